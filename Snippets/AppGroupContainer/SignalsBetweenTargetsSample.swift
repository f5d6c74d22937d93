// The Darwin notification samples of the SignalsBetweenTargets article, compiled
// by `swift build` (Linux: on Apple's platforms these are Apple's own names).
// snippet.hide
#if !canImport(Darwin)
// snippet.show
import AppGroupFoundation // on iOS: Foundation alone
// snippet.hide
import notify // the article says it in its text: iOS code that calls notify(3) has this line already
final class NotesModel { func reload() {} }
func darwinCenter(_ model: NotesModel) {
// snippet.show

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
}
func notifyFunctions(_ model: NotesModel) {
// snippet.show
var token: Int32 = 0
let status = notify_register_dispatch("com.example.notes.changed", &token, .main) { _ in model.reload() }
guard status == NOTIFY_STATUS_OK else { return }
notify_post("com.example.notes.changed")
notify_cancel(token)
// snippet.hide
}
#endif
