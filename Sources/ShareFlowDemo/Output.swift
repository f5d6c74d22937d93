import AppGroupContainer
import Foundation

/// Unbuffered output, so that a parent process reading our pipe sees each line
/// as soon as it is written (the tests and the scenario wait on lines). Written
/// through the package's system-call layer: a reader that went away (EPIPE) ends
/// the process through ``Cleanup``, which removes what the scenario made first.
enum Output {
    static func line(_ text: String) {
        write(text + "\n", to: .output)
    }

    static func error(_ text: String) {
        write(text + "\n", to: .error)
    }

    /// One JSON object on one line, keys sorted.
    static func json(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return error("ShareFlowDemo: a report could not be written as JSON (\(object.keys.sorted().joined(separator: ", ")))")
        }
        line(String(decoding: data, as: UTF8.self))
    }

    /// The role's name and the error, on one line.
    static func failure(_ role: String, _ error: Error) {
        let text = String(describing: error).replacingOccurrences(of: "\n", with: " ")
        self.error("ShareFlowDemo \(role): \(text)")
    }

    private static func write(_ text: String, to stream: StandardStream) {
        do {
            try stream.write(Data(text.utf8))
        } catch where StandardStream.isBrokenPipe(error) {
            // Nobody reads what we print any more: stop as `SIGPIPE` would, cleanly.
            Cleanup.terminate(SIGPIPE)
        } catch {
            // Standard output or error failing otherwise (a full disk): nowhere left to say so.
        }
    }
}
