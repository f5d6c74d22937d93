import AppGroupContainer
import Foundation
import PropertyLists

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
        var previousDictionary = dictionary
        var i = 0
        let suite = foundationSuite("set-\(keys)")
        guard let foundation = UserDefaults(suiteName: suite) else { throw BenchmarkError.child("UserDefaults(suiteName:) returned nil") }
        for (key, value) in dictionary { foundation.set(value, forKey: key) }
        foundation.synchronize()
        let defaults = try run.sharedDefaults.filledSuite(keys: keys, dictionary: dictionary)

        // The four take turns, one operation each, so that the disk's state (which
        // drifts by a factor of several within seconds on a shared machine) weighs
        // on all of them alike.
        let variants: [(name: String, body: () throws -> Void)] = [
            ("\(keys) keys: floor: lock, write, fsync, rename, fsync dir, unlock", {
                Floor.durableSave(bytes, lockFD: lockFD, directory: directory.path, target: target)
            }),
            ("\(keys) keys: previous path: PropertyListSerialization + floor", {
                i += 1
                previousDictionary["key0"] = i
                Floor.serializingDurableSave(previousDictionary, lockFD: lockFD, directory: directory.path, target: target)
            }),
            ("\(keys) keys: UserDefaults set + synchronize()", {
                i += 1
                foundation.set(i, forKey: "key0")
                foundation.synchronize()
            }),
            ("\(keys) keys: SharedDefaults set(_:forKey:)", {
                i += 1
                try defaults.save(i, forKey: "key0")
            }),
        ]
        let samples = try measureInTurns(variants, count: count, warmup: 5)
        let (floor, previous, foundationSet, variant) = (samples[0], samples[1], samples[2], samples[3])
        result.samples += samples
        if keys == 100 {
            result.ratios.append(Ratio("\(variant.name) / floor", variant.medianNs / floor.medianNs, atMost: 1.3))
        } else if keys >= 1_000 {
            // Suites at scale: a set re-encodes only what changed (BENCHMARKS.md).
            result.ratios.append(Ratio("\(variant.name) / floor", variant.medianNs / floor.medianNs, atMost: 2))
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
    result.notes.append("floor: the system calls of a durable atomic save, on bytes serialized in advance; previous path: the floor with PropertyListSerialization serializing under the lock (the floor's definition until issue 14, a lower bound of the package's path before its own codec)")
    return result
}
