// Linux only (Package.swift declares this target there): on Darwin these names are
// Apple's own and would reach the real group containers (DarwinGuaranteeTests).
#if !canImport(Darwin)
import Foundation
import WidgetReloads // WidgetHost: the package's widget entry point

// A notes app and its widget for the WidgetKit tests (Tests/WidgetKitTests):
//   WidgetProbe save <note>            the app saves to the group and forgets to reload
//   WidgetProbe save <note> --reload   the fixed app: saves, then reloads the widget
//   WidgetProbe reload <kind>          reloadTimelines(ofKind:) only
//   WidgetProbe reload-all             reloadAllTimelines()
//   WidgetProbe configurations         prints getCurrentConfigurations' widgets
//   WidgetProbe attack <group> <kind>  a hostile target: every attack on the device's WidgetKit
//   WidgetProbe reload-in-background <kind>  reloads from its didEnterBackground observer
//   WidgetProbe                        the widget: the device launches it to reload
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "save" where arguments.count >= 2:
    do {
        try NotesApp.save(arguments[1], reload: arguments.contains("--reload"))
    } catch {
        FileHandle.standardError.write(Data("WidgetProbe: \(error)\n".utf8))
        exit(1)
    }
case "reload" where arguments.count == 2:
    WidgetCenter.shared.reloadTimelines(ofKind: arguments[1])
case "reload-all":
    WidgetCenter.shared.reloadAllTimelines()
case "configurations":
    WidgetCenter.shared.getCurrentConfigurations { result in
        switch result {
        case .success(let widgets): for widget in widgets { print("\(widget.kind) \(widget.family)") }
        case .failure(let error): print("error: \(error)"); exit(1)
        }
    }
case "attack" where arguments.count == 3:
    WidgetAttacks.run(group: arguments[1], kind: arguments[2])
case "reload-in-background" where arguments.count == 2:
    // The observer runs on the lifecycle listener's thread, which cannot wait for
    // the device's answer: the request must reach the device all the same.
    let kind = arguments[1]
    let observer = NotificationCenter.default.addObserver(forName: Notification.Name("UIApplicationDidEnterBackgroundNotification"),
                                                          object: nil, queue: nil) { _ in
        WidgetCenter.shared.reloadTimelines(ofKind: kind)
        FileHandle.standardOutput.write(Data("reloaded\n".utf8))
    }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    Thread.sleep(forTimeInterval: 120)
    NotificationCenter.default.removeObserver(observer)
case nil:
    WidgetHost.run(NotesProvider(), kind: NotesProvider.kind)
default:
    FileHandle.standardError.write(Data("usage: WidgetProbe [save <note> [--reload] | reload <kind> | reload-all | configurations]\n".utf8))
    exit(64)
}
#endif
