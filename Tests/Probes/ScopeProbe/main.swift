import Foundation
import ProbeSupport

// A helper process for the identity-scope tests (Tests/SharedKeychainTests/ScopeTests.swift).
// Work hopped to a queue or a thread is answered from the scopes live in the
// process, and a test process runs other tests' scopes in parallel; so what such
// work sees alone is tested here, in a process whose only scopes are the scenario's.
// Every scenario works on the simulated device at --root (keychain device "phone").
//
//   extension-then-app   as the share extension, then as the app, from each hop:
//                        "<hop> written=<container> read=<container>|<file>|<value>|<status>|<data> notify=<status> stranger=<path|nil>"
//   with-current         Keychain.withCurrent, SecItemCopyMatching from a GCD hop: "status=N"
//   nested               nested scopes seen from hops: "nested=<bundle>,<bundle>,<bundle>,<bundle>"
//   async-alone          an async scope of the widget alone, from each hop:
//                        "<hop> bundle=<b> container=<path|nil> standardRefused=<bool>"
//   async-beside-sync    the same beside a sync scope of the app held on a thread: refused,
//                        then carried ("<hop> carried ..."), then as no scope ("<hop> unscoped none")

#if !canImport(Darwin)
switch CommandLine.arguments.dropFirst().first ?? "" {
case "extension-then-app":
    do { try Scenarios.extensionThenApp() } catch { fail("\(error)") }
case "with-current":
    do { try Scenarios.withCurrent() } catch { fail("\(error)") }
case "nested":
    do { try Scenarios.nested() } catch { fail("\(error)") }
case "async-alone":
    await Scenarios.asyncAlone()
case "async-beside-sync":
    await Scenarios.asyncBesideSync()
default:
    fail("usage: ScopeProbe extension-then-app|with-current|nested|async-alone|async-beside-sync --root <device root>", code: 2)
}
#else
fail("ScopeProbe runs on Linux only: on Apple's platforms the SecItem functions are Apple's own", code: 2)
#endif
