import AppGroupContainer
import AppGroupTesting
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// The tool on a disk that is really full (a tmpfs in a mount namespace of its own).
@Suite("appgroup on a full disk", .tags(.hostile, .multiprocess), .dedicatedThreads)
struct FullDiskTests {
    /// `appgroup defaults delete` on a full disk. A save never
    /// rewrites a suite in place (a crash would leave half a file): it writes the new,
    /// smaller file beside the old one and renames it over, so it needs room for that
    /// file. Where there is none it must say so, and what to do.
    @Test("appgroup defaults delete on a full disk (a tmpfs): refused with what to free, the suite unchanged; once there is room it works",
          .enabled(if: canMountTmpfs, "needs a tmpfs mount (unshare -m as root, or unshare -rm)"))
    func defaultsDeleteOnFullDisk() throws {
        let sandbox = try Sandbox()
        let tool = try #require(SimulatedDevice.builtExecutable(named: "appgroup"))
        let out = sandbox.scratch.path
        let script = #"""
            "$1" create "$2" > /dev/null && "$1" defaults write "$2" first -string hello && "$1" defaults write "$2" second -string world || exit 98
            dd if=/dev/zero of="$0/filler" bs=4096 2> /dev/null
            "$1" defaults delete "$2" first 2> "$3/delete.err"; echo $? > "$3/delete.status"
            "$1" defaults read "$2" > "$3/read-full.out" 2>&1
            rm "$0/filler"
            "$1" defaults delete "$2" first 2> "$3/delete-again.err"; echo $? > "$3/delete-again.status"
            "$1" defaults read "$2" > "$3/read-after.out" 2>&1
            """#
        var environment = sandbox.environment(sandbox.app)
        environment[ContainerResolver.rootEnvironmentKey] = sandbox.root.path
        let end = try onSmallFileSystem(size: "256k", at: sandbox.root, script, [tool.path, Sandbox.group, out], environment: environment)
        func text(_ name: String) -> String { (try? String(contentsOfFile: out + "/" + name, encoding: .utf8)) ?? "" }
        #expect(end.status == 0, "\(end.standardOutput)\(end.standardError)")
        #expect(text("delete.status") == "1\n")
        let message = text("delete.err")
        for phrase in ["disk is full", "writes the new suite file beside the old one", "free at least", "nothing was changed", "run the command again"] {
            #expect(message.contains(phrase), "\"\(phrase)\" not in: \(message)")
        }
        #expect(text("read-full.out").contains("first = hello"), "the suite is unchanged: \(text("read-full.out"))")
        #expect(text("delete-again.status") == "0\n", "\(text("delete-again.err"))")
        #expect(!text("read-after.out").contains("first") && text("read-after.out").contains("second = world"), "\(text("read-after.out"))")
    }
}
