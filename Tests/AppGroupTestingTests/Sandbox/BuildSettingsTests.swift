import AppGroupTesting
import Foundation
import DeviceTestSupport
import Testing

/// Item 3: Xcode's build settings in .entitlements and Info.plist files.
@Suite struct BuildSettingsTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("BuildSettingsTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ text: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    static func entitlements(_ groups: [String]) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>com.apple.security.application-groups</key>
        \t<array>
        \(groups.map { "\t\t<string>\($0)</string>" }.joined(separator: "\n"))
        \t</array>
        \t<key>keychain-access-groups</key>
        \t<array>
        \t\t<string>$(AppIdentifierPrefix)$(APP_GROUP_ID)</string>
        \t</array>
        </dict>
        </plist>
        """
    }

    @Test func entitlementsExpandFromADictionary() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try write("Reader.entitlements", Self.entitlements(["group.$(APP_ID_IOS)", "${APP_GROUP_ID}"]))
        let target = try SimulatedTarget(name: "Reader", kind: .app, entitlementsFile: file, teamIdentifier: "A1B2C3D4E5",
                                         bundleIdentifier: "com.example.reader",
                                         buildSettings: ["APP_ID_IOS": "com.example.reader", "APP_GROUP_ID": "group.com.example.shared"])
        #expect(target.entitlements.applicationGroups.map(\.rawValue) == ["group.com.example.reader", "group.com.example.shared"])
        #expect(target.entitlements.keychainAccessGroups == ["A1B2C3D4E5.group.com.example.shared"])
    }

    /// Xcode's own templates and the settings it defines for every target, in a real
    /// project's files with no setting given by the test: Xcode derives them from the
    /// target's identity, and so does the device.
    @Test func xcodesBuiltInSettingsNeedNothingGiven() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try write("Reader.entitlements", """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            	<key>com.apple.developer.ubiquity-kvstore-identifier</key>
            	<string>$(TeamIdentifierPrefix)$(CFBundleIdentifier)</string>
            	<key>com.apple.security.application-groups</key>
            	<array>
            		<string>group.$(PRODUCT_BUNDLE_IDENTIFIER)</string>
            		<string>group.$(DEVELOPMENT_TEAM).$(PRODUCT_NAME:lower)</string>
            	</array>
            	<key>keychain-access-groups</key>
            	<array>
            		<string>$(AppIdentifierPrefix)$(CFBundleIdentifier)</string>
            	</array>
            </dict>
            </plist>
            """)
        let target = try SimulatedTarget(name: "Reader", kind: .app, entitlementsFile: file, teamIdentifier: "A1B2C3D4E5",
                                         bundleIdentifier: "com.example.reader")
        #expect(target.entitlements.applicationGroups.map(\.rawValue) == ["group.com.example.reader", "group.A1B2C3D4E5.reader"])
        #expect(target.entitlements.keychainAccessGroups == ["A1B2C3D4E5.com.example.reader"])
    }

    @Test func anUnknownSettingNamesTheFileTheLineAndTheSettingsGiven() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try write("Reader.entitlements", Self.entitlements(["group.$(APP_ID_IOS)"]))
        do {
            _ = try SimulatedTarget(name: "Reader", kind: .app, entitlementsFile: file, teamIdentifier: "A1B2C3D4E5",
                                    bundleIdentifier: "com.example.reader", buildSettings: ["APP_GROUP_ID": "group.x"])
            Issue.record("an unknown setting was accepted")
        } catch SimulationError.buildSetting(let error) {
            #expect(error.problem == .undefinedSetting("APP_ID_IOS"))
            #expect(error.file == file.path)
            #expect(error.line == 7)
            #expect(error.givenSettings.contains("APP_GROUP_ID"))
            #expect(error.description.contains("\(file.path):7"))
            #expect(error.description.contains("APP_ID_IOS") && error.description.contains("given: "))
        }
    }

    @Test func anUnknownSettingInAnInfoPlistNamesItsLine() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let plist = try write("Info.plist", """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>AppGroup</key>
            \t<string>group.${APP_ID_IOS}</string>
            </dict>
            </plist>
            """)
        let error = #expect(throws: SimulationError.self) {
            try SimulatedTarget(name: "Reader", kind: .app, entitlementsFile: nil, infoPlist: .file(plist), teamIdentifier: "A1B2C3D4E5",
                                bundleIdentifier: "com.example.reader", buildSettings: ["APP_GROUP_ID": "group.x"])
        }?.buildSetting
        #expect(error?.problem == .undefinedSetting("APP_ID_IOS") && error?.file == plist.path && error?.line == 6, "\(String(describing: error))")
        #expect(error?.givenSettings.contains("APP_GROUP_ID") == true && error?.givenSettings.contains("PRODUCT_BUNDLE_IDENTIFIER") == true)
    }

    @Test func anXCConfigWithIncludesInheritedAndConditions() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try write("Base.xcconfig", """
            // The project's base
            OTHER_FLAGS = -base
            BUNDLE_PREFIX = com.example
            """)
        let main = try write("Reader.xcconfig", """
            #include "Base.xcconfig"
            #include? "Missing.xcconfig" // a developer's local overrides, absent on CI
            OTHER_FLAGS = $(inherited) -reader
            APP_ID_IOS = $(BUNDLE_PREFIX).reader ; 
            APP_GROUP_ID = group.$(APP_ID_IOS)
            APP_GROUP_ID[sdk=iphonesimulator*] = group.$(APP_ID_IOS).simulator
            SERVER[sdk=iphoneos*] = https:/$()/device.example.com
            SERVER = https:/$()/example.com
            CUT = https://example.com
            NAME[config=Release] = release
            NAME = debug
            URL_ESCAPE = https:/$()/example.com
            """)
        let settings = try BuildSettings(contentsOf: main)
        #expect(try settings.expandedValue(of: "OTHER_FLAGS") == "-base -reader")
        #expect(try settings.expandedValue(of: "APP_GROUP_ID") == "group.com.example.reader")
        #expect(try settings.expandedValue(of: "SERVER") == "https://device.example.com")
        #expect(try settings.expandedValue(of: "NAME") == "debug")
        #expect(try settings.expandedValue(of: "URL_ESCAPE") == "https://example.com")
        #expect(try settings.expandedValue(of: "CUT") == "https:", "// starts a comment, even in a value, as in Xcode")
        let simulator = try BuildSettings(contentsOf: main, sdk: "iphonesimulator")
        #expect(try simulator.expandedValue(of: "APP_GROUP_ID") == "group.com.example.reader.simulator")
        #expect(try simulator.expandedValue(of: "SERVER") == "https://example.com")
        // Given settings on top of the file's, with $(inherited).
        let layered = settings.adding(["OTHER_FLAGS": "$(inherited) -tests"])
        #expect(try layered.expandedValue(of: "OTHER_FLAGS") == "-base -reader -tests")
        #expect(try settings.expand("$(APP_ID_IOS:upper)/$(NOPE:default=x)", file: "t", line: 1) == "COM.EXAMPLE.READER/x")
    }

    @Test func malformedXCConfigsAreTypedErrorsWithTheirLine() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let bad = try write("Bad.xcconfig", "A = 1\nthis is not a setting\n")
        let malformed = #expect(throws: SimulationError.self) { try BuildSettings(contentsOf: bad) }?.buildSetting
        #expect(malformed?.problem == .malformedLine("this is not a setting") && malformed?.file == bad.path && malformed?.line == 2)
        let missing = try write("Missing.xcconfig", "#include \"Nowhere.xcconfig\"\n")
        do {
            _ = try BuildSettings(contentsOf: missing)
            Issue.record("a missing #include was accepted")
        } catch SimulationError.buildSetting(let error) {
            #expect(error.file == missing.path && error.line == 1)
            guard case .unreadableInclude = error.problem else { Issue.record("\(error)"); return }
        }
        let loop = try write("Loop.xcconfig", "#include \"Loop.xcconfig\"\n")
        #expect(#expect(throws: SimulationError.self) { try BuildSettings(contentsOf: loop) }?.buildSetting != nil)
        let circle: BuildSettings = ["A": "$(B)", "B": "$(A)"]
        #expect(#expect(throws: SimulationError.self) { try circle.expandedValue(of: "A") }?.buildSetting != nil)
        #expect(#expect(throws: SimulationError.self) { try circle.expand("$(A:nonsense)", file: "t", line: nil) }?.buildSetting != nil)
        #expect(#expect(throws: SimulationError.self) { try circle.expand("$(unterminated", file: "t", line: nil) }?.buildSetting != nil)
        // A bare $name (an NSExtensionActivationRule's $extensionItem) is left alone.
        #expect(try circle.expand("SUBQUERY(extensionItems, $extensionItem, TRUEPREDICATE)", file: "t", line: nil)
            == "SUBQUERY(extensionItems, $extensionItem, TRUEPREDICATE)")
        let fifo = directory.appendingPathComponent("fifo.xcconfig")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        #expect(#expect(throws: SimulationError.self) { try BuildSettings(contentsOf: fifo) }?.buildSetting != nil)
    }
}
