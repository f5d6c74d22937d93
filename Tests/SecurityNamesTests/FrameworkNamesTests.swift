// Every public or open declaration of a module named after one of Apple's
// frameworks, read from its sources, is checked against the list of Apple's names
// for that framework below: a name of the package's own declared there would reach
// every file that ports iOS code (and collide with an app's own type of that name).
import Foundation
import Testing

@Suite struct FrameworkNamesTests {
    /// Apple's names, top level, that each module may declare. A member is checked by
    /// the type it belongs to: a public member of a type or an extension is allowed
    /// only on a type of this list or of `extended`.
    static let apple: [String: Set<String>] = [
        "Security": [
            "OSStatus", "noErr", "SecAccessControl", "SecAccessControlCreateFlags", "SecAccessControlCreateWithFlags",
            "SecCopyErrorMessageString", "SecItemAdd", "SecItemCopyMatching", "SecItemDelete", "SecItemUpdate", "SecKey",
            "SecKeyCreateRandomKey",
            "errSecAuthFailed", "errSecDecode", "errSecDuplicateItem", "errSecIO", "errSecInteractionNotAllowed",
            "errSecInvalidKeychain", "errSecItemNotFound", "errSecMissingEntitlement", "errSecNoSuchAttr", "errSecNotAvailable",
            "errSecParam", "errSecSuccess", "errSecUnimplemented", "errSecUserCanceled",
            "kSecAttrAccessControl", "kSecAttrAccessGroup", "kSecAttrAccessible", "kSecAttrAccessibleAfterFirstUnlock",
            "kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly", "kSecAttrAccessibleAlways", "kSecAttrAccessibleAlwaysThisDeviceOnly",
            "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly", "kSecAttrAccessibleWhenUnlocked",
            "kSecAttrAccessibleWhenUnlockedThisDeviceOnly", "kSecAttrAccount", "kSecAttrApplicationLabel", "kSecAttrApplicationTag",
            "kSecAttrAuthenticationType", "kSecAttrAuthenticationTypeDefault", "kSecAttrAuthenticationTypeHTMLForm",
            "kSecAttrAuthenticationTypeHTTPBasic", "kSecAttrAuthenticationTypeHTTPDigest", "kSecAttrCanDecrypt", "kSecAttrCanDerive",
            "kSecAttrCanEncrypt", "kSecAttrCanSign", "kSecAttrCanUnwrap", "kSecAttrCanVerify", "kSecAttrCanWrap",
            "kSecAttrCertificateEncoding", "kSecAttrCertificateType", "kSecAttrComment", "kSecAttrCreationDate", "kSecAttrCreator",
            "kSecAttrDescription", "kSecAttrEffectiveKeySize", "kSecAttrGeneric", "kSecAttrIsExtractable", "kSecAttrIsInvisible",
            "kSecAttrIsNegative", "kSecAttrIsPermanent", "kSecAttrIsSensitive", "kSecAttrIssuer", "kSecAttrKeyClass",
            "kSecAttrKeyClassPrivate", "kSecAttrKeyClassPublic", "kSecAttrKeyClassSymmetric", "kSecAttrKeySizeInBits",
            "kSecAttrKeyType", "kSecAttrKeyTypeEC", "kSecAttrKeyTypeECSECPrimeRandom", "kSecAttrKeyTypeRSA", "kSecAttrLabel",
            "kSecAttrModificationDate", "kSecAttrPath", "kSecAttrPort", "kSecAttrProtocol", "kSecAttrProtocolFTP",
            "kSecAttrProtocolHTTP", "kSecAttrProtocolHTTPS", "kSecAttrProtocolSSH", "kSecAttrPublicKeyHash",
            "kSecAttrSecurityDomain", "kSecAttrSerialNumber", "kSecAttrServer", "kSecAttrService", "kSecAttrSubject",
            "kSecAttrSubjectKeyID", "kSecAttrSynchronizable", "kSecAttrSynchronizableAny", "kSecAttrTokenID",
            "kSecAttrTokenIDSecureEnclave", "kSecAttrType", "kSecClass", "kSecClassCertificate", "kSecClassGenericPassword",
            "kSecClassIdentity", "kSecClassInternetPassword", "kSecClassKey", "kSecMatchLimit", "kSecMatchLimitAll",
            "kSecMatchLimitOne", "kSecPrivateKeyAttrs", "kSecPublicKeyAttrs", "kSecReturnAttributes", "kSecReturnData",
            "kSecReturnPersistentRef", "kSecReturnRef", "kSecUseAuthenticationContext", "kSecUseAuthenticationUI",
            "kSecUseAuthenticationUIAllow", "kSecUseAuthenticationUIFail", "kSecUseAuthenticationUISkip",
            "kSecUseDataProtectionKeychain", "kSecUseOperationPrompt", "kSecValueData", "kSecValuePersistentRef", "kSecValueRef",
        ],
        "LocalAuthentication": [
            "LABiometryType", "LAContext", "LAError", "LAErrorDomain", "LAPolicy",
            "LATouchIDAuthenticationMaximumAllowableReuseDuration",
        ],
        "WidgetKit": [
            "TimelineEntry", "TimelineProvider", "Timeline", "TimelineProviderContext", "TimelineReloadPolicy", "WidgetCenter",
            "WidgetFamily", "WidgetInfo",
        ],
        "notify": [
            "NOTIFY_STATUS_FAILED", "NOTIFY_STATUS_INVALID_NAME", "NOTIFY_STATUS_INVALID_TOKEN", "NOTIFY_STATUS_NULL_INPUT",
            "NOTIFY_STATUS_OK", "notify_cancel", "notify_check", "notify_handler_t", "notify_post", "notify_register_check",
            "notify_register_dispatch",
        ],
        "UniformTypeIdentifiers": ["UTTagClass", "UTType"],
        // Foundation's and Core Foundation's names that Linux's Foundation lacks.
        "AppGroupFoundation": [
            "CFAllocator", "CFArray", "CFBoolean", "CFData", "CFDictionary", "CFError", "CFIndex", "CFNotificationCallback",
            "CFNotificationCenter", "CFNotificationCenterAddObserver", "CFNotificationCenterGetDarwinNotifyCenter",
            "CFNotificationCenterPostNotification", "CFNotificationCenterRemoveEveryObserver", "CFNotificationCenterRemoveObserver",
            "CFNotificationName", "CFNotificationSuspensionBehavior", "CFNumber", "CFOptionFlags", "CFPropertyList", "CFString",
            "CFTypeRef", "kCFAllocatorDefault", "kCFBooleanFalse", "kCFBooleanTrue",
            "NSErrorPointer", "NSExtensionContext", "NSExtensionItem", "NSExtensionRequestHandling", "NSFileAccessIntent",
            "NSFileCoordinator", "NSFilePresenter", "NSItemProvider", "NSItemProviderErrorDomain", "NSItemProviderReading",
            "extensionContext",
        ],
    ]

    /// Apple's types of other frameworks (Foundation's, the Swift standard library's)
    /// to which a module adds Apple's members: `FileManager.containerURL(...)`,
    /// `NSItemProvider`'s UTType forms, `String` as `NSItemProviderReading`.
    static let extended: [String: Set<String>] = [
        "UniformTypeIdentifiers": ["NSItemProvider"],
        "AppGroupFoundation": ["FileManager", "ProcessInfo", "Notification", "String", "URL"],
    ]

    @Test(arguments: ["Security", "LocalAuthentication", "WidgetKit", "notify", "UniformTypeIdentifiers", "AppGroupFoundation"])
    func declaresApplesNamesOnly(_ module: String) throws {
        let declarations = try PublicDeclarations.read(module: module)
        #expect(!declarations.isEmpty, "no public declaration found in Sources/\(module)")
        let names = Self.apple[module] ?? []
        let owners = names.union(Self.extended[module] ?? [])
        for declaration in declarations {
            if let owner = declaration.owner {
                #expect(owners.contains(owner),
                        "\(declaration.where): public \(declaration.name) is a member of \(owner), which is not one of Apple's names in \(module) (FrameworkNamesTests.apple); the package's own API goes in the store's module")
            } else {
                #expect(names.contains(declaration.name),
                        "\(declaration.where): public \(declaration.name) is not one of Apple's names in \(module) (FrameworkNamesTests.apple); the package's own API goes in the store's module")
            }
        }
        // Every name of the list is declared: a name that goes leaves the list with it.
        let topLevel = Set(declarations.filter { $0.owner == nil }.map(\.name))
        #expect(names.subtracting(topLevel).sorted() == [], "listed for \(module) but not declared in Sources/\(module)")
    }

    /// The reader finds what it must: a package-own name made public at the top level,
    /// as a member of a type of the package's own, or in an extension of one.
    @Test func theReaderSeesEveryKindOfPublicDeclaration() {
        let text = """
            import Foundation
            // public struct Commented {}
            public struct Apple {
                public var member: Int { 1 }
                struct Inner { public func hidden() {} }
            }
            @available(*, deprecated)
            public let constant = "{"
            open class Opened: NSObject {}
            extension Own { public static func added() {} }
            public extension Other.Nested { func implicit() {} }
            public func ~= (a: Int, b: Int) -> Bool { a == b }
            @_exported import class Store.Handed
            """
        let found = PublicDeclarations.parse(text, file: "X.swift").map { ($0.owner ?? "") + "|" + $0.name }
        #expect(found == ["|Apple", "Apple|member", "Apple|hidden", "|constant", "|Opened", "Own|added", "Other|implicit", "|~=", "|Handed"])
    }
}

/// The public and open declarations of a module's sources, each with the outermost
/// type or extension it is in (nil at the top level), and the declarations it hands
/// on one at a time (`@_exported import class Module.Name`), which its importers see
/// as its own.
struct PublicDeclarations {
    let owner: String?
    let name: String
    let `where`: String

    static func read(module: String) throws -> [PublicDeclarations] {
        let top = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = top.appendingPathComponent("Sources/\(module)")
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        return try files.sorted().flatMap { file in
            parse(try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8), file: "Sources/\(module)/\(file)")
        }
    }

    private static let modifiers = #"((?:(?:public|open|package|internal|private|fileprivate|final|static|class|override|mutating|nonmutating|nonisolated|indirect|convenience|required|dynamic|lazy|weak|unowned|prefix|postfix|infix)\s+)*)"#
    private static let declarationPattern = (#"^(?:@\w+(?:\([^)]*\))?\s+)*"# + modifiers
        + #"(struct|enum|class|protocol|extension|actor|typealias|func|let|var|init|subscript|case)\b\s*([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*|[-+*/%=<>!&|^~?.]+)?"#)

    /// `text`'s declarations, read line by line: comments and string contents are
    /// left out, braces tracked to know the enclosing type or extension.
    static func parse(_ text: String, file: String) -> [PublicDeclarations] {
        let declaration = try! Regex(declarationPattern)
        let handedOn = try! Regex(#"^@_exported\s+import\s+(?:struct|enum|class|protocol|typealias|func|let|var)\s+\w+\.(\w+)"#)
        var found: [PublicDeclarations] = []
        // A type or extension whose opening brace is on a later line.
        var pending: (name: String, publicExtension: Bool)?
        // The types and extensions open around the current line: name, depth inside, public extension.
        var open: [(name: String, depth: Int, publicExtension: Bool)] = []
        var depth = 0
        var inBlockComment = false
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            // Each piece ends at a brace, so that `extension X { public func f() {} }` is two declarations.
            var pieces: [String] = [""]
            for character in strip(String(raw), &inBlockComment) {
                pieces[pieces.count - 1].append(character)
                if character == "{" || character == "}" { pieces.append("") }
            }
            if let match = pieces[0].trimmingCharacters(in: .whitespaces).firstMatch(of: handedOn), let name = match.output[1].substring {
                found.append(PublicDeclarations(owner: nil, name: String(name), where: "\(file):\(index + 1)"))
                continue
            }
            for piece in pieces {
                let code = piece.trimmingCharacters(in: .whitespaces)
                let opens = code.hasSuffix("{")
                if let match = code.firstMatch(of: declaration), let kind = match.output[2].substring {
                    let name = match.output[3].substring.map { String($0) } ?? String(kind)
                    let words = (match.output[1].substring ?? "").split(separator: " ")
                    let isPublic = words.contains("public") || words.contains("open")
                    let owner = open.first?.name
                    let inPublicExtension = open.last?.publicExtension == true
                    if kind == "extension" {
                        let extended = String(name.split(separator: ".").first ?? Substring(name))
                        if opens { open.append((extended, depth + 1, isPublic)) } else { pending = (extended, isPublic) }
                    } else {
                        if isPublic || inPublicExtension { found.append(PublicDeclarations(owner: owner, name: name, where: "\(file):\(index + 1)")) }
                        if ["struct", "enum", "class", "protocol", "actor"].contains(String(kind)) {
                            if opens { open.append((owner ?? name, depth + 1, false)) } else { pending = (owner ?? name, false) }
                        }
                    }
                } else if let waiting = pending, opens {
                    open.append((waiting.name, depth + 1, waiting.publicExtension))
                    pending = nil
                }
                if opens { depth += 1 }
                if code.hasSuffix("}") {
                    depth -= 1
                    while let last = open.last, last.depth > depth { open.removeLast() }
                }
            }
        }
        return found
    }

    /// The line without comments and without the contents of its string literals.
    private static func strip(_ line: String, _ inBlockComment: inout Bool) -> String {
        var out = ""
        var inString = false
        var previous: Character = " "
        for character in line {
            if inBlockComment {
                if previous == "*" && character == "/" { inBlockComment = false; previous = " "; continue }
                previous = character
                continue
            }
            if inString {
                if character == "\"" && previous != "\\" { inString = false; out.append(character) }
                previous = character
                continue
            }
            if character == "/" && previous == "/" { out.removeLast(); return out }
            if character == "*" && previous == "/" { out.removeLast(); inBlockComment = true; previous = " "; continue }
            if character == "\"" { inString = true }
            out.append(character)
            previous = character
        }
        return out
    }
}
