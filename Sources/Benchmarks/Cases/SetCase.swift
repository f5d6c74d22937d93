import Foundation

/// Case 2: a durable set of one key, in suites of growing size.
func setCase(_ run: BenchmarkRun) throws -> CaseResult {
    var result = CaseResult(name: "2. set one key (durable), by suite size")
    let directory = try run.scratch("set")
    for keys in [10, 100, 1_000, 10_000] {
        let count = run.count(keys >= 10_000 ? 100 : 1_000)
        let dictionary = sampleSuite(keys: keys)

        let lockFD = Floor.openLockFile(directory.appendingPathComponent(".floor-\(keys).lock").path)
        let target = directory.appendingPathComponent("floor-\(keys).plist").path
        var floorDictionary = dictionary
        var i = 0
        let floor = measure("\(keys) keys: bare lock+serialize+save (the floor)", count: count, warmup: 5) {
            i += 1
            floorDictionary["key0"] = i
            Floor.durableSave(floorDictionary, lockFD: lockFD, directory: directory.path, target: target)
        }

        let suite = foundationSuite("set-\(keys)")
        guard let foundation = UserDefaults(suiteName: suite) else { throw BenchmarkError.child("UserDefaults(suiteName:) returned nil") }
        for (key, value) in dictionary { foundation.set(value, forKey: key) }
        foundation.synchronize()
        let foundationSet = measure("\(keys) keys: UserDefaults set + synchronize()", count: count, warmup: 5) {
            i += 1
            foundation.set(i, forKey: "key0")
            foundation.synchronize()
        }
        result.samples += [floor, foundationSet]
        for variant in try run.sharedDefaults.setVariants(keys: keys, dictionary: dictionary, count: count) {
            result.samples.append(variant)
            if keys == 100 {
                result.ratios.append(Ratio("\(variant.name) / floor", variant.medianNs / floor.medianNs, atMost: 1.3))
            } else {
                result.ratios.append(Ratio(report: "\(variant.name) / floor", variant.medianNs / floor.medianNs))
            }
        }
    }
    return result
}
