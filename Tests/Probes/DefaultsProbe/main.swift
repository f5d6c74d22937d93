import AppGroupContainer
import Foundation
import ProbeSupport
import SharedDefaults

// A helper process for the SharedDefaults multi-process tests. Identity and
// container root come from the environment (Entitlements.environment and
// APP_GROUP_CONTAINERS_ROOT). Each command does one thing to one suite and reports
// on stdout; exit 0 means it went as asked.
//
//   increment --suite S --key K --count N        N update(forKey:) increments
//   count --suite S --key K --to N               set K to 1, 2, ... N, one set each
//   poll --suite S --key K --until N             read K until it is N; exit 2 if it ever goes backwards
//   set-many --suite S --prefix P --count N      set P0 ... P(N-1), one set each
//   register --suite S --key K --value V         register K=V, set "written"=1, print what K reads
//   get --suite S --key K                        print K's value (integer form), or "nil"
//   watch --suite S --key K --until N            observe K; print "ready", then each value; exit at N
//   nested --suite S --prefix P --count N        N updates of P"count", each setting P"inner<i>" through a
//                                                second instance inside the update closure (a nested write)
//   ud-set --suite S|--standard 1 --key K --value V   through UserDefaults(suiteName: S) or .standard: set K to V
//   ud-get --suite S|--standard 1 --key K             through UserDefaults: print K's string, or "nil"
//   guide-extension --url U                      the App Groups guide's extension code (GuideExample.swift)
//   guide-app                                    the guide's app code: prints "saved <url>" when it consumed one
//   idiom-shared --url U                         store(U, in: .shared), the idioms of Idioms.swift

func openSuite() -> SharedDefaults {
    do {
        return try SharedDefaults(requiringSuiteName: option("suite"))
    } catch {
        fail("\(error)")
    }
}

let command = CommandLine.arguments.dropFirst().first ?? ""
#if canImport(Darwin)
// On Darwin `UserDefaults` is Apple's own (the emulator's is compiled out): these
// commands would write the user's real preferences through cfprefsd, so they refuse.
if ["cf-set", "cf-get", "cf-keys", "ud-set", "ud-get", "guide-extension", "guide-app", "idiom-shared"].contains(command) {
    fail("\(command) drives UserDefaults, which on Darwin is Apple's and would write your real preferences; it runs where the emulator provides UserDefaults (Linux)", code: 69)
}
#endif
do {
    switch command {
    case "increment":
        let defaults = openSuite()
        let key = option("key")
        for _ in 0..<intOption("count") {
            try defaults.update(Int.self, forKey: key) { ($0 ?? 0) + 1 }
        }
        say("done")
    case "count":
        let defaults = openSuite()
        let key = option("key")
        for n in 1...intOption("to") { try defaults.save(n, forKey: key) }
        say("done")
    case "poll":
        let defaults = openSuite()
        let key = option("key")
        let target = intOption("until")
        let deadline = Date().addingTimeInterval(60)
        var last = 0
        var reads = 0
        while true {
            let value = (try defaults.load(forKey: key) as? Int) ?? 0
            reads += 1
            if value < last { fail("went backwards from \(last) to \(value) after \(reads) reads", code: 2) }
            last = value
            if value == target { break }
            if Date() > deadline { fail("gave up at \(value) after \(reads) reads", code: 3) }
        }
        say("reached \(target) after \(reads) reads")
    case "set-many":
        let defaults = openSuite()
        let prefix = option("prefix")
        for i in 0..<intOption("count") { try defaults.save(i, forKey: prefix + String(i)) }
        say("done")
    case "register":
        let defaults = openSuite()
        let key = option("key")
        defaults.register(defaults: [key: option("value")])
        try defaults.save(1, forKey: "written")
        say(defaults.string(forKey: key) ?? "nil")
    case "get":
        let defaults = openSuite()
        if let value = try defaults.load(forKey: option("key")) { say("\(value)") } else { say("nil") }
    case "watch":
        let defaults = openSuite()
        let key = option("key")
        let target = intOption("until")
        let done = DispatchSemaphore(value: 0)
        let observation = try defaults.addObserver(forKey: key) { value in
            let n = value as? Int
            say(n.map(String.init) ?? "nil")
            if n == target { done.signal() }
        }
        say("ready")
        if done.wait(timeout: .now() + 60) == .timedOut { fail("no \(target) within 60 s", code: 3) }
        observation.cancel()
    case "nested":
        let defaults = openSuite()
        let second = openSuite()
        let prefix = option("prefix")
        for i in 0..<intOption("count") {
            try defaults.update(Int.self, forKey: prefix + "count") { old in
                try second.save(i, forKey: prefix + "inner\(i)")
                return (old ?? 0) + 1
            }
        }
        if let error = defaults.lastError ?? second.lastError { fail("\(error)") }
        say("done")
    case "cf-set", "cf-get", "cf-keys":
        #if !canImport(Darwin)
        runCFPreferencesCommand(command)
        #endif
    case "ud-set":
        userDefaultsSet()
    case "ud-get":
        userDefaultsGet()
    case "guide-extension":
        guard let url = URL(string: option("url")) else { fail("--url is not a URL") }
        guideExtensionWrites(url)
        say("done")
    case "idiom-shared":
        guard let url = URL(string: option("url")) else { fail("--url is not a URL") }
        store(url, in: .shared)
        say("done")
    case "guide-app":
        guideAppReads()
        say("done")
    default:
        fail("unknown command \"\(command)\"; see the comment at the top of Tests/Probes/DefaultsProbe/main.swift")
    }
} catch {
    fail("\(error)")
}
