import Foundation

/// Unbuffered output, so that a parent process reading our pipe sees each line
/// as soon as it is written (the tests and the scenario wait on lines).
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// One JSON object on one line, keys sorted.
    static func json(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        line(String(decoding: data, as: UTF8.self))
    }

    /// The role's name and the error, on one line.
    static func failure(_ role: String, _ error: Error) {
        let text = String(describing: error).replacingOccurrences(of: "\n", with: " ")
        self.error("ShareFlowDemo \(role): \(text)")
    }
}
