#if !canImport(Darwin)
import Foundation
import ProbeSupport
import SharedKeychain

// What a hostile target does to the device's files directly, without the library
// (whose checks run in the target's own process and so bind only a target that
// uses it): each command prints, per file, `wrote <name>` or `refused <name> <reason>`.
//
//   tamper-state             writes "unlocked, passcode set" over the device state
//   tamper-biometry          writes a sensor with two scripted matches
//   tamper-keychain --find S reports `found` or `absent` for the bytes S in the keychain file
//                            (every access group's items), then rewrites the file with S
//                            replaced by as many `X`s
// Each writes where the device keeps the record now and where earlier versions kept
// it (`Keychains/`, which a target may write): the device must obey neither.

/// Writes `data` over `url` as an attacker would (a plain open-for-write, no library).
func tamper(_ url: URL, _ data: Data) {
    do {
        try data.write(to: url)
        say("wrote \(url.lastPathComponent) in \(url.deletingLastPathComponent().lastPathComponent)")
    } catch {
        let underlying = ((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError).map { " errno=\($0.code)" } ?? ""
        say("refused \(url.lastPathComponent) in \(url.deletingLastPathComponent().lastPathComponent) code=\((error as NSError).code)\(underlying)")
    }
}

func binaryPlist(_ value: some Encodable) -> Data {
    let encoder = PropertyListEncoder()
    encoder.outputFormat = .binary
    guard let data = try? encoder.encode(value) else { fail("cannot encode \(value)") }
    return data
}

func runTamperCommand(_ command: String) {
    let device: KeychainDevice
    do { device = try KeychainDevice.fromEnvironment() } catch { fail("\(error)") }
    let legacy = device.directory
    switch command {
    case "tamper-state":
        let unlocked = binaryPlist(DeviceState(isLocked: false, hasBeenUnlockedSinceBoot: true, isPasscodeSet: true))
        tamper(device.stateURL, unlocked)
        tamper(legacy.appendingPathComponent(device.stateURL.lastPathComponent), unlocked)
    case "tamper-biometry":
        var sensor = SimulatedBiometry.enrolledFaceID
        sensor.scriptedOutcomes = [.match, .match]
        let scripted = binaryPlist(sensor)
        tamper(device.biometryURL, scripted)
        tamper(legacy.appendingPathComponent(device.biometryURL.lastPathComponent), scripted)
    case "tamper-keychain":
        let needle = Data(option("find").utf8)
        guard let bytes = try? Data(contentsOf: device.keychainURL) else {
            say("unreadable \(device.keychainURL.lastPathComponent)")
            return
        }
        guard let range = bytes.range(of: needle) else {
            say("absent")
            return
        }
        say("found")
        var changed = bytes
        changed.replaceSubrange(range, with: Data(repeating: UInt8(ascii: "X"), count: needle.count))
        tamper(device.keychainURL, changed)
    default:
        fail("unknown command \(command)", code: 64)
    }
}
#endif
