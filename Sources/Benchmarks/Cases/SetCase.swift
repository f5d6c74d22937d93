import AppGroupContainer
import Foundation

/// Case 2: a durable set of one key, in suites of growing size.
func setCase(_ run: BenchmarkRun) throws -> CaseResult {
    var result = CaseResult(name: "2. set one key (durable), by suite size")
    let directory = try run.scratch("set")
    for keys in [10, 100, 1_000, 10_000] {
        let count = run.count(keys >= 10_000 ? 100 : 1_000)
        let dictionary = sampleSuite(keys: keys)

        // The floor writes the bytes the package writes for this suite, serialized
        // once, before the clock starts: what is timed is system calls only.
        let bytes = try PropertyListCodec.write(sampleTree(keys: keys), format: .binary)
        let lockFD = Floor.openLockFile(directory.appendingPathComponent(".floor-\(keys).lock").path)
        let target = directory.appendingPathComponent("floor-\(keys).plist").path
        let floor = measure("\(keys) keys: floor: lock, write, fsync, rename, fsync dir, unlock", count: count, warmup: 5) {
            Floor.durableSave(bytes, lockFD: lockFD, directory: directory.path, target: target)
        }

        var previousDictionary = dictionary
        var i = 0
        let previous = measure("\(keys) keys: previous path: PropertyListSerialization + floor", count: count, warmup: 5) {
            i += 1
            previousDictionary["key0"] = i
            Floor.serializingDurableSave(previousDictionary, lockFD: lockFD, directory: directory.path, target: target)
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
        result.samples += [floor, previous, foundationSet]
        for variant in try run.sharedDefaults.setVariants(keys: keys, dictionary: dictionary, count: count) {
            result.samples.append(variant)
            if keys == 100 {
                result.ratios.append(Ratio("\(variant.name) / floor", variant.medianNs / floor.medianNs, atMost: 1.3))
            } else {
                result.ratios.append(Ratio(report: "\(variant.name) / floor", variant.medianNs / floor.medianNs))
            }
            let speedup = "\(keys) keys: previous path / SharedDefaults (times faster)"
            if keys == 10_000 {
                result.ratios.append(Ratio(speedup, previous.medianNs / variant.medianNs, atLeast: 5))
            } else {
                result.ratios.append(Ratio(report: speedup, previous.medianNs / variant.medianNs))
            }
            result.ratios.append(Ratio(report: "\(keys) keys: UserDefaults / SharedDefaults (times faster)", foundationSet.medianNs / variant.medianNs))
        }
    }
    result.notes.append("floor: the system calls of a durable atomic save, on bytes serialized in advance; previous path: the floor with PropertyListSerialization serializing under the lock (the floor's definition until issue 14, a lower bound of the package's path before its own codec)")
    return result
}
