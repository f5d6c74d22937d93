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
//   tamper-keychain --group G --find S
//                            reports `unreadable <file>`, or `found` / `absent` for the
//                            bytes S in group G's file, then rewrites it with S
//                            replaced by as many `X`s
//   tamper-keychain-tree --group G
//                            tries every way to reach group G's items and the device's
//                            keychain directories; one line per try, `did <what>` or
//                            `refused <what> errno=<n>`
// The first two write where the device keeps the record now and where earlier
// versions kept it (`Keychains/`): the device must obey neither.

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

/// One try of `tamper-keychain-tree`: a bare system call, reported as `did` or `refused` with its errno.
func attempt(_ what: String, _ call: () -> Int32) {
    if call() == 0 { say("did \(what)") } else { say("refused \(what) errno=\(errno)") }
}

/// Opens the directory at `path` for listing (opendir), as an attacker would.
func listing(_ path: String) -> Int32 {
    guard let directory = opendir(path) else { return -1 }
    defer { closedir(directory) }
    return 0
}

func runTamperCommand(_ command: String) {
    let device: KeychainDevice
    do { device = try KeychainDevice.fromEnvironment() } catch { fail("\(error)") }
    let legacy = device.directory
    switch command {
    case "tamper-state":
        let unlocked = binaryPlist(DeviceStateRecord(DeviceState(isLocked: false, hasBeenUnlockedSinceBoot: true, isPasscodeSet: true)))
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
        let file = device.itemsURL(forAccessGroup: option("group"))
        guard let bytes = try? Data(contentsOf: file) else {
            say("unreadable \(file.lastPathComponent)")
            return
        }
        guard let range = bytes.range(of: needle) else {
            say("absent")
            return
        }
        say("found")
        var changed = bytes
        changed.replaceSubrange(range, with: Data(repeating: UInt8(ascii: "X"), count: needle.count))
        tamper(file, changed)
    case "tamper-keychain-tree":
        runTreeAttack(on: device, group: option("group"))
    default:
        fail("unknown command \(command)", code: 64)
    }
}

/// Every way a target might reach group `group`'s items, or plant what the device
/// or another target would read, in the device's keychain directories.
func runTreeAttack(on device: KeychainDevice, group: String) {
    let directory = device.directory(forAccessGroup: group).path
    let items = device.itemsURL(forAccessGroup: group).path
    let own = NSTemporaryDirectory()
    let forged = Array("bplist00 forged".utf8)
    func create(_ path: String) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return -1 }
        _ = forged.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return close(fd)
    }
    attempt("read the group's items") {
        let fd = open(items, O_RDONLY)
        return fd >= 0 ? close(fd) : -1
    }
    attempt("list the group's directory") { listing(directory) }
    attempt("plant a file in the group's directory") { create(directory + "/planted") }
    attempt("rename the group's items") { rename(items, directory + "/renamed") }
    attempt("replace the group's items") {
        let mine = own + "/forged-items-\(getpid())"
        guard create(mine) == 0 else { return -1 }
        defer { unlink(mine) }
        return rename(mine, items)
    }
    attempt("remove the group's items") { unlink(items) }
    attempt("link the group's items into the target's own directory") { link(items, own + "/linked-\(getpid())") }
    attempt("rename the group's directory") { rename(directory, device.accessGroupsDirectory.path + "/moved") }
    attempt("list the access groups") { listing(device.accessGroupsDirectory.path) }
    attempt("make an access group's directory") {
        mkdir(device.accessGroupsDirectory.path + "/" + KeychainDevice.accessGroupDirectoryName("group.forged"), 0o700)
    }
    attempt("list the device's keychain directory") { listing(device.directory.path) }
    attempt("plant a keychain file of an earlier version") { create(device.directory.appendingPathComponent(device.fileName).path) }
    attempt("plant a file in the device's keychain directory") { create(device.directory.path + "/planted") }
}
#endif
