// A capture store's preferences code, as iOS code calls Core Foundation's functions on
// its group's suite. On Linux the functions come from SharedDefaults.
#if !canImport(Darwin)
import Foundation
import ProbeSupport
import SharedDefaults

//   cf-set --suite S --key K (--value V | --int N | --remove)   CFPreferencesSetAppValue, then AppSynchronize
//   cf-get --suite S --key K                                  CFPreferencesCopyAppValue: the string or number, or "nil"
//   cf-keys --suite S                                         CFPreferencesCopyKeyList, sorted, comma-separated
func runCFPreferencesCommand(_ command: String) {
    let suite = option("suite") as CFString
    switch command {
    case "cf-set":
        let key = option("key") as CFString
        let value: CFPropertyList?
        if let text = optionalOption("value") {
            value = text as NSString
        } else if let number = optionalOption("int").flatMap(Int.init) {
            value = NSNumber(value: number)
        } else {
            value = nil
        }
        CFPreferencesSetAppValue(key, value, suite)
        say(CFPreferencesAppSynchronize(suite) ? "synchronized" : "not synchronized")
    case "cf-get":
        let value = CFPreferencesCopyAppValue(option("key") as CFString, suite)
        if let text = value as? String { say(text) } else if let number = value as? NSNumber { say("\(number.intValue)") } else { say("nil") }
    case "cf-keys":
        let keys = CFPreferencesCopyKeyList(suite, kCFPreferencesCurrentUser, kCFPreferencesAnyHost) as? [String] ?? []
        say("keys " + keys.sorted().joined(separator: ","))
        say("forced \(CFPreferencesAppValueIsForced("any" as CFString, suite))")
    default:
        fail("unknown command \(command)", code: 64)
    }
}
#endif
