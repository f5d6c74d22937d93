import Foundation

/// A process's memory footprint as close as Linux comes to iOS's `phys_footprint`
/// (what jetsam compares with a process's limit): its resident anonymous memory
/// plus its anonymous memory swapped out (`RssAnon` + `VmSwap` of
/// `/proc/<pid>/status`). Not its virtual size, not the file pages it maps (a
/// mapped library is shared and clean), as iOS does not count those either.
package enum ProcessMemory {
    /// The footprint of `pid` in bytes; nil when it cannot be read (ended).
    package static func footprint(of pid: pid_t) -> Int? {
        guard let data = try? SandboxSystemCalls.readRegularFile("/proc/\(pid)/status", limit: 1 << 16) else { return nil }
        // Scanned as bytes: the watchdog reads this for every limited target at every
        // sample (BENCHMARKS.md case 11), and splitting the text into lines costs more than the read.
        let anon = number(after: Array("RssAnon:".utf8), in: data)
        let swap = number(after: Array("VmSwap:".utf8), in: data)
        guard anon != nil || swap != nil else { return nil }
        return ((anon ?? 0) + (swap ?? 0)) * 1024
    }

    /// The decimal number after `label` at the start of a line of `data`.
    static func number(after label: [UInt8], in data: Data) -> Int? {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Int? in
            var i = 0
            let count = bytes.count
            while i + label.count <= count {
                if (i == 0 || bytes[i - 1] == 10), bytes[i] == label[0] {
                    var matches = true
                    for k in 1..<label.count where bytes[i + k] != label[k] { matches = false; break }
                    if matches {
                        var j = i + label.count
                        while j < count && (bytes[j] == 32 || bytes[j] == 9) { j += 1 }
                        var value = 0
                        var digits = 0
                        while j < count, bytes[j] >= 48, bytes[j] <= 57 { value = value * 10 + Int(bytes[j] - 48); j += 1; digits += 1 }
                        return digits > 0 ? value : nil
                    }
                }
                i += 1
            }
            return nil
        }
    }
}

/// A cgroup v2 of the memory controller for one process: the kernel enforces the
/// limit (`memory.max`) and counts its kills (`memory.events`' `oom_kill`). Usable
/// only where cgroup v2 is mounted with the memory controller enabled for the
/// cgroup this process is in, and that cgroup's directory is writable.
package struct MemoryCgroup: Sendable {
    /// The directory of the cgroup made for one process.
    package let path: String

    /// Where child cgroups with the memory controller can be made, or why not.
    package static let parent: Result<String, MemoryCgroupUnavailable> = {
        guard let membership = ProcessSystemCalls.procText("/proc/self/cgroup") else {
            return .failure(MemoryCgroupUnavailable(reason: "/proc/self/cgroup cannot be read"))
        }
        // The v2 line is "0::/path"; its mount is the cgroup2 entry of /proc/self/mounts.
        guard let line = membership.split(separator: "\n").first(where: { $0.hasPrefix("0::") }) else {
            return .failure(MemoryCgroupUnavailable(reason: "this process is in no cgroup v2 hierarchy"))
        }
        let relative = String(line.dropFirst(3))
        let mounts = ProcessSystemCalls.procText("/proc/self/mounts") ?? ""
        guard let mount = mounts.split(separator: "\n").map({ $0.split(separator: " ") }).first(where: { $0.count > 2 && $0[2] == "cgroup2" })
        else { return .failure(MemoryCgroupUnavailable(reason: "no cgroup2 file system is mounted")) }
        let directory = String(mount[1]) + (relative == "/" ? "" : relative)
        let controllers = ProcessSystemCalls.procText(directory + "/cgroup.subtree_control") ?? ""
        guard controllers.split(whereSeparator: { $0 == " " || $0 == "\n" }).contains("memory") else {
            return .failure(MemoryCgroupUnavailable(reason: "the memory controller is not enabled for child cgroups of \(directory) "
                                                    + "(its cgroup.subtree_control has no \"memory\"; on a hybrid hierarchy memory is cgroup v1)"))
        }
        guard access(directory, W_OK) == 0 else {
            return .failure(MemoryCgroupUnavailable(reason: "\(directory) is not writable"))
        }
        return .success(directory)
    }()

    /// Makes a cgroup for `pid` with `limit` bytes and moves the process into it.
    package static func make(for pid: pid_t, limit: Int) throws(MemoryCgroupUnavailable) -> MemoryCgroup {
        let parent: String
        switch Self.parent {
        case .success(let found): parent = found
        case .failure(let why): throw why
        }
        let path = parent + "/appgroup-target-\(pid)"
        do {
            try ProcessSystemCalls.makeDirectory(path)
            try ProcessSystemCalls.writeControlFile(path + "/memory.max", String(limit))
            try ProcessSystemCalls.writeControlFile(path + "/cgroup.procs", String(pid))
        } catch {
            try? ProcessSystemCalls.removeDirectory(path)
            throw MemoryCgroupUnavailable(reason: "\(path): \(error)")
        }
        return MemoryCgroup(path: path)
    }

    /// True when the kernel killed a process of this cgroup at its limit.
    package var killedAtLimit: Bool {
        let events = ProcessSystemCalls.procText(path + "/memory.events") ?? ""
        return events.split(separator: "\n").contains { $0.hasPrefix("oom_kill ") && $0 != "oom_kill 0" }
    }

    /// The most memory the cgroup used (`memory.peak`), in bytes.
    package var peak: Int? {
        (ProcessSystemCalls.procText(path + "/memory.peak")?.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { Int($0) }
    }

    /// Removes the cgroup once its process has ended.
    package func remove() { try? ProcessSystemCalls.removeDirectory(path) }
}

/// Why the cgroup v2 path cannot enforce memory limits here.
package struct MemoryCgroupUnavailable: Error, Sendable, CustomStringConvertible {
    package let reason: String
    package var description: String { reason }
}
