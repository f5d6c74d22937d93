// The samples of the SignalsBetweenTargets article, compiled by `swift build`.
// snippet.hide
import Foundation
final class NotesModel {
    func reload() {}
}
let model = NotesModel()
// snippet.show
import AppGroupContainer // on iOS: Foundation alone

let center = CFNotificationCenterGetDarwinNotifyCenter()
let callback: CFNotificationCallback = { _, observer, _, _, _ in
    guard let observer else { return }
    Unmanaged<NotesModel>.fromOpaque(observer).takeUnretainedValue().reload()
}
CFNotificationCenterAddObserver(center, Unmanaged.passUnretained(model).toOpaque(), callback,
                                "com.example.notes.changed" as CFString, nil, .deliverImmediately)

// In the extension, after saving to the container:
CFNotificationCenterPostNotification(center, CFNotificationName("com.example.notes.changed" as CFString),
                                     nil, nil, true)
// snippet.hide
func listen(_ model: NotesModel) {
// snippet.show
var token: Int32 = 0
let status = notify_register_dispatch("com.example.notes.changed", &token, .main) { _ in model.reload() }
guard status == NOTIFY_STATUS_OK else { return }
notify_post("com.example.notes.changed")
notify_cancel(token)
// snippet.hide
}
