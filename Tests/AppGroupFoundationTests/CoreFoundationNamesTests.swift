import AppGroupContainer
import AppGroupFoundation
import Testing

/// The Core Foundation idioms ported iOS code writes compile and mean what they
/// mean on Apple's platforms (Sources/AppGroupContainer/CoreFoundationNames/README.md).
@Suite struct CoreFoundationNamesTests {
    @Test func aStringLiteralIsACFStringAndBackAString() {
        let name = "group.notes.changed" as CFString
        let text = name as String
        #expect(text == "group.notes.changed")
        let names: [CFString: Any] = [name: 1]
        #expect(names["group.notes.changed"] as? Int == 1)
    }

    @Test func aNotificationNameWrapsItsString() {
        let name = CFNotificationName("group.notes.changed" as CFString)
        #expect(name == CFNotificationName(rawValue: "group.notes.changed" as CFString))
        #expect(name.rawValue as String == "group.notes.changed")
        #expect(Set([name, CFNotificationName(rawValue: "group.notes.changed")]).count == 1)
    }

    @Test func aCallbackIsAClosureThatCapturesNothing() {
        let callback: CFNotificationCallback = { _, observer, name, object, userInfo in
            #expect(observer == nil && name == nil && object == nil && userInfo == nil)
        }
        callback(nil, nil, nil, nil, nil)
        #expect(CFNotificationSuspensionBehavior.deliverImmediately.rawValue == 4)
    }

    @Test func aPropertyListComesBackAsItsSwiftType() {
        let value: CFPropertyList = NSArray(array: ["a", "b"])
        #expect(value as? [String] == ["a", "b"])
        let array: CFArray = ["x"] as NSArray
        #expect(array as? [String] == ["x"])
    }
}
