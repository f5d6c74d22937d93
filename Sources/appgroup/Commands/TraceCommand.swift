import AppGroupContainer
import Foundation

/// `appgroup trace FILE|DIR... [--output OUT]`: merges trace files (a traced device's
/// `trace/` directory, or merged traces) into one, or summarises one.
enum TraceCommand {
    static let help = """
        usage: appgroup trace FILE|DIR...               summarise: processes, events by kind, arrows
               appgroup trace FILE|DIR... --output OUT  merge into one trace file (- for standard output)

        Works on the timeline traces of a simulated device (SimulatedDevice(trace:), or
        APPGROUP_TRACE=DIR for any process): Chrome's Trace Event Format, one file per
        process in the device's trace/ directory, merged into trace.json beside a kept
        device. A DIR stands for every *.json file in it. The merged file opens in
        Perfetto's UI (ui.perfetto.dev, "Open trace file") and in chrome://tracing.

        Fails with exit 65 when a file is not a trace, 1 when one is missing, 64 for bad arguments.
        """

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: ["output"], flags: [])
        if arguments.wantsHelp { return Output.line(help) }
        guard !arguments.positionals.isEmpty else { throw CLIError.usage("missing FILE or DIR: name a trace file or a device's trace/ directory") }
        var events: [[String: Any]] = []
        for path in arguments.positionals {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw CLIError.notFound("\(path): no such file or directory")
            }
            let files = isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".json") }.sorted().map { path + "/" + $0 }
                : [path]
            for file in files {
                do {
                    // A file named on the command line is the user's to point anywhere; a directory's entries are not followed.
                    events += try TraceMerge.events(ofFile: file, followingLink: !isDirectory.boolValue)
                } catch let error as TraceMerge.Unreadable {
                    throw CLIError.badValue(error.description)
                }
            }
        }
        guard let output = arguments.option("output") else {
            return Output.line(TraceMerge.summary(events))
        }
        let merged = TraceMerge.merge(events)
        if output == "-" {
            FileHandle.standardOutput.write(merged)
            FileHandle.standardOutput.write(Data("\n".utf8))
        } else {
            do {
                try merged.write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                throw CLIError.failed("\(output): the merged trace cannot be written: \(error.localizedDescription)")
            }
        }
    }
}
