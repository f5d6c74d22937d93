import Foundation

func formatNs(_ ns: Double) -> String {
    if ns >= 1e9 { return String(format: "%.2f s", ns / 1e9) }
    if ns >= 1e6 { return String(format: "%.2f ms", ns / 1e6) }
    if ns >= 1e3 { return String(format: "%.2f us", ns / 1e3) }
    return String(format: "%.0f ns", ns)
}

func pad(_ s: String, _ width: Int) -> String {
    s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
}

/// The name column: names wider than it get a line of their own, so figures stay aligned.
let nameWidth = 58
func label(_ name: String) -> String {
    let indented = "  " + name
    if indented.count < nameWidth { return pad(indented, nameWidth) }
    return indented + "\n" + String(repeating: " ", count: nameWidth)
}

/// Prints one case as a table: each variant's median and p99, then the ratios.
func printTable(_ result: CaseResult) {
    print("")
    print("== \(result.name)")
    for sample in result.samples {
        var line = label(sample.name)
        if sample.count > 1 || sample.medianNs > 0 {
            line += pad("median " + formatNs(sample.medianNs), 20) + pad("p99 " + formatNs(sample.p99Ns), 18) + "n=\(sample.count)"
        }
        for (key, value) in sample.extra.sorted(by: { $0.key < $1.key }) {
            line += "  \(key)=" + (value == value.rounded() && abs(value) < 1e12 ? String(Int(value)) : String(format: "%.3g", value))
        }
        print(line)
    }
    for ratio in result.ratios {
        // Three decimals near a target, so that a miss never prints as equal to it.
        let value = String(format: ratio.relation.isEmpty || abs(ratio.value) >= 10 ? "%.2f" : "%.3f", ratio.value)
        if ratio.relation.isEmpty {
            print(label(ratio.name) + value)
        } else {
            let target = String(format: "%g", ratio.target)
            print(label(ratio.name) + pad(value, 10) + "target \(ratio.relation) \(target)  " + (ratio.met ? "met" : "MISSED"))
        }
    }
    for note in result.notes { print("  note: \(note)") }
}

/// The whole run, as written with --json.
struct RunReport: Codable {
    var date: String
    var machine: String
    var scale: Double
    var cases: [CaseResult]
}

func machineDescription() -> String {
    var parts = ["\(ProcessInfo.processInfo.activeProcessorCount) cores",
                 "\(ProcessInfo.processInfo.physicalMemory >> 30) GiB"]
    if let cpu = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
       let line = cpu.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
       let name = line.split(separator: ":").last {
        parts.insert(name.trimmingCharacters(in: .whitespaces), at: 0)
    }
    if let kernel = try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8) {
        parts.append("Linux " + kernel.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    return parts.joined(separator: ", ")
}
