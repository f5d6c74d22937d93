import AppGroupContainer
import Foundation

/// The paragraph a failure report of a sandboxed target ends with: the kernel does
/// not say which access it refused (see "Which access was refused" in the article
/// The sandbox), so the report says what the target could reach, how a refusal
/// shows, and how to tell whether the sandbox is the cause.
enum SandboxNote {
    static func enforced(target: SimulatedTarget, home: DataContainer, device: SimulatedDevice) -> String {
        let groups = target.entitlements.applicationGroups.map(\.rawValue)
        let theirs = groups.isEmpty ? "no App Group containers (it holds no group)" : "the containers of " + groups.joined(separator: ", ")
        return "It ran in its sandbox (Landlock): \(target.name) may write only its data container \(home.home.path), \(theirs), "
            + "the device's coordination trees and the keychain directories of its access groups; everything else, \(device.outside.path) and the machine's home included, "
            + "is refused with EACCES, which Foundation reports as NSCocoaErrorDomain 513 (a write) or 257 (a read), as iOS does. "
            + "If that is what failed, the code reaches outside what iOS allows; to check, launch it with sandbox: .unenforced."
    }

    static func unenforced(reason: String) -> String {
        "It ran without its sandbox (\(reason)): a device would have refused any access outside its containers."
    }
}
