import AppGroupContainer
import Foundation

/// Case 4: the file coordinator against a bare OFD lock, uncontended and contended.
func coordinatorCase(_ run: BenchmarkRun) throws -> CaseResult {
    var result = CaseResult(name: "4. file coordinator: lock + unlock")
    let directory = try run.scratch("coordinator")
    let item = directory.appendingPathComponent("item")
    let count = run.count(200_000)

    let barePath = directory.appendingPathComponent(".bare.lock").path
    let fd = Floor.openLockFile(barePath)
    let places = Floor.searchPlaces(for: item.path)
    let bare = measure("bare OFD lock + unlock (fcntl)", count: count) { Floor.lockUnlock(fd) }
    let named = measure("bare OFD lock + lstat + unlock (the lock file still named)", count: count) { Floor.lockCheckUnlock(fd, path: barePath) }
    let checked = measure("bare OFD lock + \(1 + places.count) lstats + unlock (the protocol's system calls: still named, still its tree)", count: count) {
        Floor.lockCheckUnlock(fd, path: barePath, places: places)
    }
    let coordinator = FileCoordinator()
    let coordinated = try measure("FileCoordinator coordinate(writingItemAt:)", count: count) {
        try coordinator.coordinate(writingItemAt: item) { _ in }
    }
    let reading = try measure("FileCoordinator coordinate(readingItemAt:)", count: count) {
        try coordinator.coordinate(readingItemAt: item) { _ in }
    }
    // An item where an app's suite is: Library/Preferences of a group container,
    // four directories below its device root, so four places to look at.
    let device = try run.scratch("coordinator-device")
    try FileManager.default.createDirectory(at: device.appendingPathComponent(".coordination"), withIntermediateDirectories: false)
    let preferences = device.appendingPathComponent("group.bench/Library/Preferences")
    try FileManager.default.createDirectory(at: preferences, withIntermediateDirectories: true)
    let suite = preferences.appendingPathComponent("group.bench.plist")
    let inRoot = try measure("FileCoordinator coordinate(writingItemAt:), a suite in a device root", count: count) {
        try coordinator.coordinate(writingItemAt: suite) { _ in }
    }
    result.samples += [bare, named, checked, coordinated, reading, inRoot]
    // The target is against the protocol's own calls: section 5 (an lstat after
    // locking, so a lock on a replaced file is never trusted, and one per place
    // the search looks at, so a tree that appeared or went is never missed) costs
    // more than the lock itself, and no correct participant can skip it. At most
    // 1.5x.
    result.ratios.append(Ratio("coordinate(writing) / the protocol's system calls", coordinated.medianNs / checked.medianNs, atMost: 1.5))
    result.ratios.append(Ratio(report: "coordinate(writing) / bare OFD lock", coordinated.medianNs / bare.medianNs))

    // Contended: two processes hand the same lock back and forth.
    let rounds = run.count(20_000)
    var handoff: [String: Double] = [:]
    for variant in ["bare", "coordinator"] {
        let start = now()
        let children = try (0..<2).map { _ in
            try run.spawnSelf(["child", "lock-loop", "--file", item.path, "--count", String(rounds), "--variant", variant])
        }
        for child in children { try run.wait(child) }
        let elapsed = Double(now() - start)
        handoff[variant] = elapsed
        result.samples.append(Sample(name: "2 processes x \(rounds) \(variant) lock + unlock",
                                     value: elapsed / Double(2 * rounds), unit: "mean_ns_per_handoff"))
    }
    if let bare = handoff["bare"], let coordinated = handoff["coordinator"], bare > 0 {
        result.ratios.append(Ratio(report: "contended, 2 processes: coordinator / bare", coordinated / bare))
    }
    return result
}

/// Child role: `lock-loop --file F --count N --variant bare|coordinator`.
func lockLoopChild(_ options: Options) throws {
    let item = URL(fileURLWithPath: try options.string("file"))
    let count = try options.int("count")
    if try options.string("variant") == "bare" {
        let fd = Floor.openLockFile(try FileCoordinator.lockFileURL(for: item).path)
        for _ in 0..<count { Floor.lockUnlock(fd) }
    } else {
        let coordinator = FileCoordinator()
        for _ in 0..<count { try coordinator.coordinate(writingItemAt: item) { _ in } }
    }
}
