// The package's own API speaks Foundation's types (URL, Data, Date): re-exporting
// Foundation lets `import AppGroupContainer` alone compile a file that uses it.
// Apple's names that Linux's Foundation lacks (NSFileCoordinator...) are
// AppGroupFoundation's, above this module.
@_exported import Foundation

// Two declarations of the system layer travel with this module, and no more: the
// errno type its errors carry (a caller matches `.systemCall(_, _, .ENOSPC)`),
// and the lock-guarded value the stores above share state with. The rest of
// AppGroupSystem (every system call) stays out of reach of the modules above.
@_exported import struct AppGroupSystem.Errno
@_exported import class AppGroupSystem.Locked
// And, package-wide only (their declarations are `package`, so no user sees them),
// the trace recorder, for the stores' one-call traced sites (Tracing.swift), and the
// exploring scheduler's step, for the stores' coordinated steps (Exploration.swift).
@_exported import enum AppGroupSystem.Tracing
@_exported import enum AppGroupSystem.Exploration
@_exported import struct AppGroupSystem.TraceEvent
@_exported import enum AppGroupSystem.TraceJSON
@_exported import enum AppGroupSystem.TraceMerge
