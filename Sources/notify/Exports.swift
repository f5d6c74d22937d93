// The module `import notify` resolves to on Linux, where Apple's libnotify does not
// exist (Package.swift declares it on Linux only, so on Apple's platforms `import
// notify` still finds Apple's). Apple's names only: NotifyFunctions.swift declares
// notify(3)'s functions and status codes on the device's signal table
// (AppGroupContainer's Signals/README.md). Apple's module brings Dispatch with it
// (notify.h includes dispatch.h), for `notify_register_dispatch`'s queue.
@_exported import Dispatch
