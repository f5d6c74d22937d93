import Foundation

/// How long a coordinated access waits for a presenter in another process to
/// answer one request: `APP_GROUP_PRESENTER_TIMEOUT` seconds, else 30 (generous:
/// a presenter saving a large document, on a loaded machine). Here, below
/// AppGroupFoundation's presenters, because AppGroupError's message names the variable.
package enum PresenterTimeout {
    package static let variable = "APP_GROUP_PRESENTER_TIMEOUT"
    package static let defaultSeconds: Double = 30

    package static var seconds: Double {
        guard let text = ProcessInfo.processInfo.environment[variable], let value = Double(text), value > 0, value.isFinite else {
            return defaultSeconds
        }
        return value
    }
}
