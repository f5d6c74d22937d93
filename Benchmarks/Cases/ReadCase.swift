import Foundation

/// Case 1: a coherent read of an unchanged key.
func readCase(_ run: BenchmarkRun) throws -> CaseResult {
    var result = CaseResult(name: "1. coherent read of an unchanged key")
    let count = run.count(100_000)
    let directory = try run.scratch("read")

    let suite = foundationSuite("read")
    guard let foundation = UserDefaults(suiteName: suite) else { throw BenchmarkError.child("UserDefaults(suiteName:) returned nil") }
    for (key, value) in sampleSuite(keys: 100) { foundation.set(value, forKey: key) }
    foundation.set("hello", forKey: "greeting")
    foundation.synchronize()
    let foundationRead = measure("UserDefaults synchronize() + string(forKey:)", count: max(1, count / 20)) {
        foundation.synchronize()
        _ = foundation.string(forKey: "greeting")
    }

    let file = directory.appendingPathComponent("suite.plist").path
    _ = FileManager.default.createFile(atPath: file, contents: Data(count: 4096))
    let floor = measure("stat() (the floor)", count: count) { Floor.stat(file) }

    result.samples += [floor, foundationRead]
    for variant in try run.sharedDefaults.readVariants(directory: directory, count: count) {
        result.samples.append(variant)
        result.ratios.append(Ratio("\(variant.name) / stat()", variant.medianNs / floor.medianNs, atMost: 3))
        result.ratios.append(Ratio("UserDefaults+synchronize / \(variant.name)", foundationRead.medianNs / variant.medianNs, atLeast: 30))
    }
    return result
}
