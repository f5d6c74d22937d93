#if !canImport(Darwin)
import AppGroupSimulation

ExtensionMain.run(NotificationService())
#endif
