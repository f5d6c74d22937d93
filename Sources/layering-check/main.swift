import Foundation

// The tool behind the LayeringCheck build plugin (Plugins/LayeringCheck says what
// it enforces and why the compiler cannot). Prints `file:line:column: error: ...`,
// the compiler's own format, so the build shows each break at its line, and exits 1.

/// Modules of the toolchain every target may import.
let toolchainModules: Set<String> = [
    "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Dispatch",
    "Synchronization", "_Concurrency", "Swift", "Testing", "XCTest", "PackageDescription",
]
/// The C library: a store reaches it only through AppGroupContainer.
let cLibraries: Set<String> = ["Glibc", "Musl", "Darwin", "CAppGroupSys"]

/// The C file functions the system layer wraps, called bare (not as a method:
/// `rename(` but not `.rename(`, `func rename(` or `renameItem(`).
let rawCall = try! NSRegularExpression(pattern:
    #"(^|[^.\w])(open|openat|openat2|rename|renameat|renameat2|link|linkat|unlink|unlinkat|rmdir|mkdir|fcntl|flock|lockf|fsync|fdatasync|pwrite|pread|write|read|close|lstat|fstat|fstatat|stat|opendir|fdopendir|readdir|dup|dup2|chmod|fchmod|truncate|ftruncate|inotify_init1|inotify_add_watch|kill|syscall)\("#)

var target = "?"
var stamp: String?
var allowed: Set<String> = []
var noSystemCalls = false
var files: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--target": target = arguments.popFirst() ?? target
    case "--stamp": stamp = arguments.popFirst()
    case "--allow": if let module = arguments.popFirst() { allowed.insert(module) }
    case "--no-system-calls": noSystemCalls = true
    case "--": files = Array(arguments); arguments = []
    default:
        FileHandle.standardError.write(Data("layering-check: unknown argument \(argument)\n".utf8))
        exit(2)
    }
}

/// Functions the target declares itself: an unqualified call of one of those
/// names is the target's own (Swift shadows the C function there, which then
/// needs `Glibc.` to be reached, and that is refused below).
var declared: Set<String> = []
// Functions, closure parameters (`_ read: (String) -> Value`) and closures kept in
// constants or variables.
let declaration = try! NSRegularExpression(pattern: #"\bfunc\s+(\w+)\s*[(<]|\b(\w+)\s*:\s*(?:@\w+\s+)*\(|\b(?:let|var)\s+(\w+)\b"#)
for file in files {
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { continue }
    for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
        for group in 1...3 {
            if let name = Range(match.range(at: group), in: text) { declared.insert(String(text[name])) }
        }
    }
}
let qualifiedC = try! NSRegularExpression(pattern: #"\b(Glibc|Musl|Darwin|CAppGroupSys)\."#)

var problems = 0
@MainActor func report(_ file: String, _ line: Int, _ column: Int, _ message: String) {
    print("\(file):\(line):\(column): error: \(message)")
    problems += 1
}

for file in files {
    guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
        report(file, 1, 1, "layering-check could not read this file")
        continue
    }
    var inBlockComment = false
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        var line = String(raw)
        // Comments say what the code may not do; only code counts.
        if inBlockComment {
            guard let end = line.range(of: "*/") else { continue }
            line = String(line[end.upperBound...])
            inBlockComment = false
        }
        if let start = line.range(of: "/*"), !line[start.upperBound...].contains("*/") {
            line = String(line[..<start.lowerBound])
            inBlockComment = true
        }
        let code = line.components(separatedBy: "//").first ?? ""
        let trimmed = code.trimmingCharacters(in: .whitespaces)
        let words = trimmed.split(separator: " ").map(String.init)
        if let importIndex = words.firstIndex(of: "import"),
           words[..<importIndex].allSatisfy({ $0.hasPrefix("@") || ["public", "package", "internal", "private", "fileprivate"].contains($0) }),
           importIndex + 1 < words.count {
            // `import struct A.B` names the module after the kind.
            var moduleWord = words[importIndex + 1]
            if ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"].contains(moduleWord), importIndex + 2 < words.count {
                moduleWord = words[importIndex + 2]
            }
            let module = String(moduleWord.split(separator: ".").first ?? "")
            let column = (line.range(of: "import")?.lowerBound).map { line.distance(from: line.startIndex, to: $0) + 1 } ?? 1
            if noSystemCalls && cLibraries.contains(module) {
                report(file, index + 1, column, "\(target) may not import \(module): it reaches the file system only through AppGroupContainer's package primitives (CONTRIBUTING.md, the module map)")
            } else if !toolchainModules.contains(module) && !cLibraries.contains(module) && !allowed.contains(module) {
                let list = allowed.sorted().joined(separator: ", ")
                report(file, index + 1, column, "\(target) imports \(module), which is not one of its dependencies (\(list.isEmpty ? "none" : list)): declare it in Package.swift if the layering allows it (CONTRIBUTING.md, the module map)")
            }
        }
        if noSystemCalls {
            let range = NSRange(code.startIndex..., in: code)
            for match in rawCall.matches(in: code, range: range) {
                guard let name = Range(match.range(at: 2), in: code), !declared.contains(String(code[name])) else { continue }
                let column = code.distance(from: code.startIndex, to: name.lowerBound) + 1
                report(file, index + 1, column, "\(target) calls the C function \(code[name]) itself: a store reaches the file system only through AppGroupContainer's package primitives (FileOperations, OpenFile, DirectoryHandle, AtomicFile), which go through the system layer's fault and trace seam")
            }
            if let match = qualifiedC.firstMatch(in: code, range: range), let name = Range(match.range(at: 1), in: code) {
                report(file, index + 1, code.distance(from: code.startIndex, to: name.lowerBound) + 1,
                       "\(target) names the C library (\(code[name]).) itself: a store reaches the file system only through AppGroupContainer's package primitives")
            }
        }
    }
}

if problems > 0 { exit(1) }
if let stamp {
    _ = FileManager.default.createFile(atPath: stamp, contents: Data("\(target): \(files.count) files checked\n".utf8))
}
