// Swift5ModeProbe: app-extension code written in Swift 5 language mode, as most
// shipping apps are, with the same import lines as the Swift 6 probes. The tests
// run it as a share extension, a widget and an app (Swift5ModeTests).
//   Swift5ModeProbe share      the share extension: ExtensionMain.run at top level
//   Swift5ModeProbe            the widget (the device launches it to reload): WidgetHost.run
//   Swift5ModeProbe app <text> the app: a suite, the container, a coordinated write,
//                              the keychain, a Darwin notification, a widget reload
//   Swift5ModeProbe forgot-import <text>  the app, with one file lacking UserDefaults' import
// Linux only (Package.swift declares this target there).
#if !canImport(Darwin)
import AppGroupFoundation
import AppGroupSimulation // ExtensionMain
import Foundation
import WidgetReloads // WidgetHost

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "share":
    ExtensionMain.run(ShareViewController())
case nil:
    WidgetHost.run(NotesProvider(), kind: NotesProvider.kind)
case "app" where arguments.count == 2:
    NotesApp.save(arguments[1])
case "forgot-import" where arguments.count == 2:
    ForgottenImport.save(arguments[1])
default:
    FileHandle.standardError.write("usage: Swift5ModeProbe [share | app <text> | forgot-import <text>]\n".data(using: .utf8)!)
    exit(64)
}
#endif
