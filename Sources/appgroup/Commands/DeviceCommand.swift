import AppGroupContainer
import Foundation
import SharedKeychain

/// `appgroup device lock|unlock|reboot|state`: the device's state (power, lock,
/// passcode, clock) that the keychain, WidgetKit and the targets follow, for every
/// process using the device at once.
enum DeviceCommand {
    static let help = """
        usage: appgroup device lock|unlock|reboot|state [--root DIR] [--device NAME]
               appgroup device biometry ...   the biometric sensor (see device biometry --help)

        Changes or shows the state of the simulated device that data protection follows
        (the keychain, the shared suites, the targets' protected-data notifications), for
        every app and extension using it at once:
          lock     the screen locks: WhenUnlocked items become unreadable (errSecInteractionNotAllowed)
          unlock   the user unlocks: every item readable; the first unlock since boot also
                   opens AfterFirstUnlock items
          reboot   the device restarts: locked, and not unlocked since boot (before first
                   unlock, only Always items are readable)
          state    prints the state (also: status)
        Each prints the state it leaves. Locking a locked device and unlocking an unlocked
        one are refused, as iOS never does either. A device with no passcode is always
        unlocked for data protection (the state says so). A running SimulatedDevice's
        targets are told of a change only when the test makes it (SimulatedDevice.lock()).

        Options:
          --device NAME  the device (default: APP_GROUP_KEYCHAIN_DEVICE, else "default")
          --root DIR     the container root (default: APP_GROUP_CONTAINERS_ROOT, else the per-user default)
        """

    static func run(_ argv: [String]) throws {
        // Parsed once for both: options may come before `biometry` or after it.
        let arguments = try Arguments(argv, options: ["root", "device"], flags: ["json"])
        if arguments.positionals.first == "biometry" { return try BiometryCommand.run(arguments) }
        if arguments.wantsHelp { return Output.line(help) }
        try arguments.expectPositionals(1...1, "lock, unlock, reboot, state or biometry")
        let action = arguments.positionals[0]
        guard ["lock", "unlock", "reboot", "state", "status"].contains(action) else {
            throw CLIError.usage("unknown device command \(Arguments.quote(action)): use lock, unlock, reboot, state or biometry")
        }
        if arguments.flag("json") { throw CLIError.usage("--json is for device biometry status only") }
        let device = try KeychainCommand.device(arguments)
        let state = try KeychainCommand.keychainCall { () -> DeviceState in
            switch action {
            case "lock": try device.changeState { try $0.apply(.lock) }
            case "unlock": try device.changeState { try $0.apply(.unlock) }
            case "reboot": try device.reboot()
            default: break
            }
            return try device.state()
        }
        Output.line("\(device.name): \(state)")
    }
}
