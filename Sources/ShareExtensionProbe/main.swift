// ShareExtensionProbe: the share extension of the share-sheet tests. Its one line
// of Linux-only entry point names the principal object, as Info.plist's
// NSExtensionPrincipalClass does on iOS.
import AppGroupSimulation // ExtensionMain

let arguments = Array(CommandLine.arguments.dropFirst())
ExtensionMain.run(ShareViewController(mode: arguments.first ?? "complete", argument: arguments.dropFirst().first))
