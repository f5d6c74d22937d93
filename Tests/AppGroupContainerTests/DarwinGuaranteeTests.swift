import AppGroupTesting
import AppGroupContainer
import AppGroupFoundation
import Foundation
import Testing

/// The Darwin guarantee: on Apple's platforms nothing in the
/// package reaches the real group containers, the real keychain or the user's real
/// preferences unless a caller names that root itself. This machine builds for
/// Linux only, so the Darwin branches are tested here as pure functions and by
/// reading the sources the Darwin build compiles.
@Suite(.dedicatedThreads) struct DarwinGuaranteeTests {
    @Test func theDarwinDefaultRootIsTheEmulatorsOwnFolder() {
        let home = URL(fileURLWithPath: "/Users/u", isDirectory: true)
        let root = ContainerResolver.defaultRoot(environment: ["HOME": "/Users/u"], platform: .darwin, homeDirectory: home)
        #expect(root.path == "/Users/u/Library/Application Support/AppGroupContainers")
        // XDG variables do not move it on Darwin; HOME unset falls back to the home given.
        #expect(ContainerResolver.defaultRoot(environment: ["HOME": "/Users/u", "XDG_DATA_HOME": "/x"], platform: .darwin, homeDirectory: home) == root)
        #expect(ContainerResolver.defaultRoot(environment: [:], platform: .darwin, homeDirectory: home) == root)
        // Nothing the package derives from the default root (containers, app containers,
        // the keychain files) can be in the system's folder of group containers.
        #expect(!root.path.contains("Group Containers"))
        // The other platforms keep the XDG rule.
        #expect(ContainerResolver.defaultRoot(environment: ["HOME": "/home/u", "XDG_DATA_HOME": "/data/u"], platform: .other, homeDirectory: home).path
                == "/data/u/AppGroupContainers")
        #expect(ContainerResolver.defaultRoot(environment: [:], platform: .other, homeDirectory: home).path == "/Users/u/.local/share/AppGroupContainers")
        #if os(Linux)
        #expect(ContainerResolver.Platform.current == .other)
        #endif
    }

    /// Calls whose names are Apple's own on Darwin (the stand-ins are compiled out
    /// there): made outside code that Darwin does not compile, they would reach the
    /// real group containers, keychain, sensor or preferences.
    static let appleReachingCalls = [
        "FileManager.default.containerURL(forSecurityApplicationGroupIdentifier",
        "SecItemAdd(", "SecItemCopyMatching(", "SecItemUpdate(", "SecItemDelete(",
        "UserDefaults(suiteName", "UserDefaults.standard", "LAContext(",
        "Library/Group Containers",
    ]

    /// Files whose Darwin reach is cut elsewhere, each with where.
    static let guardedElsewhere = [
        // The UserDefaults commands are refused on Darwin before dispatch (main.swift).
        "Tests/Probes/DefaultsProbe/UserDefaultsCommands.swift", "Tests/Probes/DefaultsProbe/Idioms.swift",
        "Tests/Probes/DefaultsProbe/GuideExample.swift",
        // Foundation's UserDefaults for comparison: the run re-executes itself through
        // /proc/self/exe first (main.swift), which does not exist on Darwin.
        "Benchmarks/Cases/ReadCase.swift", "Benchmarks/Cases/ContentionCase.swift",
        "Benchmarks/Cases/FoundationDefaults.swift", "Benchmarks/Cases/SetCase.swift",
    ]

    @Test func noSourceTheDarwinBuildCompilesCallsApplesRealStores() throws {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // The products, and the executables a Darwin build of the package compiles besides.
        var files: [String] = []
        for folder in ["Sources", "Tests/Probes", "Benchmarks"] {
            let directory = package.appendingPathComponent(folder)
            files += try FileManager.default.subpathsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".swift") }.map { folder + "/" + $0 }
        }
        #expect(files.filter { $0.hasPrefix("Sources/") }.count > 100, "the sources were not found below \(package.path)")
        var offenders: [String] = []
        for file in files where !Self.guardedElsewhere.contains(file) {
            let text = try String(contentsOf: package.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in Self.linesDarwinCompiles(text) {
                let code = line.components(separatedBy: "//").first ?? line
                for call in Self.appleReachingCalls where code.contains(call) {
                    offenders.append("\(file):\(number): \(call)")
                }
            }
        }
        #expect(offenders.isEmpty, "compiled on Darwin, where these are Apple's own:\n\(offenders.joined(separator: "\n"))")
    }

    @Test func theReaderOfConditionsKnowsWhatDarwinCompiles() {
        let text = """
            a
            #if !canImport(Darwin)
            b
            #else
            c
            #endif
            #if canImport(Darwin)
            d
            #elseif os(Linux)
            e
            #else
            f
            #endif
            #if os(Linux)
            #if DEBUG
            g
            #endif
            #endif
            #if DEBUG
            i
            #else
            j
            #endif
            h
            """
        #expect(Self.linesDarwinCompiles(text).map(\.1) == ["a", "c", "d", "i", "j", "h"])
    }

    /// The lines of `text` that a Darwin build may compile (numbered from 1): those
    /// outside every `#if` branch that names a non-Darwin platform, or that is the
    /// rest after a branch for Darwin. Unknown conditions count as compiled.
    static func linesDarwinCompiles(_ text: String) -> [(Int, String)] {
        // Per open #if: is the current branch excluded on Darwin, and was an earlier branch Darwin's?
        var stack: [(excluded: Bool, darwinTaken: Bool)] = []
        var result: [(Int, String)] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#if ") || line.hasPrefix("#elseif ") {
                let condition = String(line.drop(while: { $0 != " " }))
                let notDarwin = condition.contains("!canImport(Darwin)") || condition.contains("os(Linux)") || condition.contains("canImport(Glibc)")
                let darwin = !notDarwin && (condition.contains("canImport(Darwin)") || condition.contains("os(macOS)"))
                if line.hasPrefix("#if ") {
                    stack.append((notDarwin, darwin))
                } else if var top = stack.popLast() {
                    top.excluded = notDarwin || top.darwinTaken
                    top.darwinTaken = top.darwinTaken || darwin
                    stack.append(top)
                }
                continue
            }
            if line.hasPrefix("#else") {
                if var top = stack.popLast() {
                    // After a Darwin branch the rest is not Darwin's; otherwise it may be.
                    top.excluded = top.darwinTaken
                    stack.append(top)
                }
                continue
            }
            if line.hasPrefix("#endif") {
                _ = stack.popLast()
                continue
            }
            if !stack.contains(where: \.excluded) { result.append((index + 1, String(raw))) }
        }
        return result
    }
}
