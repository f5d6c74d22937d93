import Foundation

/// The SharedDefaults variants of cases 1 to 3, kept apart so that the cases read
/// the same whatever the stores compared.
struct SharedDefaultsVariants {
    func readVariants(_ run: BenchmarkRun, directory: URL, count: Int) -> [Sample] { [] }
    func setVariants(_ run: BenchmarkRun, keys: Int, dictionary: [String: Any], count: Int) -> [Sample] { [] }
    func contentionVariants(_ run: BenchmarkRun, processes: Int, perProcess: Int) throws -> [Sample] { [] }
}

extension BenchmarkRun {
    var sharedDefaults: SharedDefaultsVariants { SharedDefaultsVariants() }
}
