import Foundation
import PropertyLists

/// Case 8: the property-list codec alone, in memory, against Foundation's
/// `PropertyListSerialization` on the same suites: where a set's and a re-parsing
/// read's CPU goes, without the disk.
func codecCase(_ run: BenchmarkRun) throws -> CaseResult {
    var result = CaseResult(name: "8. property-list codec in memory, by suite size")
    for keys in [10, 100, 1_000, 10_000] {
        let count = run.count(keys >= 10_000 ? 50 : keys >= 1_000 ? 500 : 5_000)
        let tree = sampleTree(keys: keys)
        let dictionary = sampleSuite(keys: keys)
        let bytes = try PropertyListCodec.write(tree, format: .binary)
        let foundationBytes = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
        let write = try measure("\(keys) keys: codec write (binary)", count: count, warmup: 5) {
            _ = try PropertyListCodec.write(tree, format: .binary)
        }
        let foundationWrite = try measure("\(keys) keys: PropertyListSerialization write (binary)", count: count, warmup: 5) {
            _ = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
        }
        let read = try measure("\(keys) keys: codec read (\(bytes.count) bytes)", count: count, warmup: 5) {
            _ = try PropertyListCodec.read(bytes)
        }
        let foundationRead = try measure("\(keys) keys: PropertyListSerialization read (\(foundationBytes.count) bytes)", count: count, warmup: 5) {
            _ = try PropertyListSerialization.propertyList(from: foundationBytes, format: nil)
        }
        result.samples += [write, foundationWrite, read, foundationRead]
        result.ratios.append(Ratio(report: "\(keys) keys: write, PropertyListSerialization / codec", foundationWrite.medianNs / write.medianNs))
        result.ratios.append(Ratio(report: "\(keys) keys: read, PropertyListSerialization / codec", foundationRead.medianNs / read.medianNs))
    }
    return result
}
