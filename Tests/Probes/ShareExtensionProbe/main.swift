// ShareExtensionProbe: the share extension of the share-sheet tests. Its one line
// of Linux-only entry point names the principal object, as Info.plist's
// NSExtensionPrincipalClass does on iOS.
import AppGroupSimulation // ExtensionMain
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
// The hostile modes act before the request is read, as any code in the extension may.
if let mode = arguments.first, HostileReplies.run(mode, Array(arguments.dropFirst())) { exit(0) }
ExtensionMain.run(ShareViewController(mode: arguments.first ?? "complete", argument: arguments.dropFirst().first))
