import AppGroupContainer
import AppGroupSimulation
import Foundation

/// The whole share flow: the quiet failure of a target that never joined the
/// group, then K share-extension processes sharing URLs and a file while the app
/// process drains, then a tally. Exit 0 only when nothing was lost or duplicated.
enum ScenarioRole {
    static let help = """
        usage: ShareFlowDemo run [--extensions K] [--items M] [--root DIR] [--json] [--keep]

        Runs the share flow of the Notes example (Examples/*.entitlements) with real processes:
          1. a share extension whose target never joined group.ai.systenics.notes gets a nil
             container; the resolver's explanation is printed, and the same process run as an
             extension exits non-zero having written nothing;
          2. the app (this binary, `app --watch`) launches, publishes the user's session token in
             the shared keychain access group (as Apple's guides recommend), and waits for shares;
          3. K extension processes (default 4) each read that token from the keychain, then
             share M URLs (default 5) with a payload file, concurrently;
          4. the app drains as they arrive; a second launch of the app finds nothing left.
        Prints what each process did and a summary: shared, received, lost, duplicated, elapsed.
        With --json it prints JSON only: one object a line, each with an "event" (started,
        unentitledExtension, appLaunched, extension, appDrained), the last the summary
        {event: "summary", shared, received, lost, duplicated, elapsedMilliseconds, ok,
        removed, root}. A path printed exists when printed; "root" is in the summary only
        when it stays, and "removed" lists the folders removed by then.
        The root is a fresh temporary directory unless --root (a root used before is fine:
        the check of step 1 compares the container before and after). The scratch folder
        (the payload, and the root unless --root) is removed at the end unless --keep, and
        also when the run is stopped: Ctrl-C, SIGTERM, SIGHUP or a closed output pipe kill
        the processes it started and remove it before it exits.
        Exits 0 only when nothing was lost or duplicated and the extension of step 1 wrote
        nothing.
        """

    static func run(_ argv: [String]) throws -> Int32 {
        let arguments = try Arguments(argv, options: ["extensions", "items", "root"], flags: ["json", "keep"])
        let extensionCount = try arguments.int("extensions", default: 4, range: 1...64)
        let itemsPerExtension = try arguments.int("items", default: 5, range: 1...100_000)
        let report = Report(json: arguments.flag("json"))
        let started = Date()

        // The scratch folder (payload, examples, and the root unless --root) goes
        // however the run ends: normally, by a signal, or by a closed output pipe.
        let work = try makeTemporaryDirectory()
        let keep = arguments.flag("keep")
        Cleanup.removeOnStop(keep ? nil : work)
        let givenRoot = arguments.string("root").map { URL(fileURLWithPath: $0, isDirectory: true).standardizedFileURL }
        let root = givenRoot ?? work.appendingPathComponent("containers", isDirectory: true)
        var removed: [String] = []
        func removeScratch() {
            guard !keep, removed.isEmpty else { return }
            try? FileOperations.removeTree(work.path, maximumDepth: 64)
            Cleanup.forgetFolder()
            removed.append(work.path)
        }
        defer { removeScratch() } // an error thrown midway
        // Made now, so that every path printed exists when it is printed.
        try FileOperations.makeTrustedDirectory(root)
        let group = NotesExampleFiles.groupIdentifier
        let team = NotesExampleFiles.teamIdentifier
        let (examples, origin) = try ExampleFiles.locate(fallback: work.appendingPathComponent("Examples", isDirectory: true))
        report.say("root: \(root.path)")
        report.say("entitlements: \(examples.path) (\(origin))")
        report.event("started", ["root": root.path, "scratch": work.path, "entitlements": examples.path])
        let file = { (name: String) in examples.appendingPathComponent(name).path }
        let me = try executable()

        // 1. The platform's quiet failure: a nil container.
        report.say("")
        report.say("1. A share extension whose target never joined \(group)")
        let lonely = try Entitlements(contentsOf: URL(fileURLWithPath: file("NotesShareWithoutGroup.entitlements")),
                                      teamIdentifier: team, bundleIdentifier: "ai.systenics.notes.share")
        let lonelyResolver = ContainerResolver(root: root, entitlements: lonely)
        setenv("APP_GROUP_QUIET", "1", 1) // we print the explanation ourselves
        let nilContainer = lonelyResolver.containerURL(forSecurityApplicationGroupIdentifier: group)
        unsetenv("APP_GROUP_QUIET")
        report.say("   containerURL(forSecurityApplicationGroupIdentifier: \"\(group)\") -> \(nilContainer?.path ?? "nil")")
        var why = ""
        do {
            _ = try lonelyResolver.requireContainerURL(forSecurityApplicationGroupIdentifier: group)
        } catch {
            why = "\(error)"
            report.say("   why: \(error)")
        }
        let payload = try makePayload(in: work)
        // What the refused extension changed, not whether the container exists: on a
        // root used before it does, and that proves nothing.
        let container = root.appendingPathComponent(group, isDirectory: true)
        let before = ContainerSnapshot(of: container)
        let refused = try Cleanup.launch(me, [
            "extension", "--root", root.path, "--group", group, "--entitlements", file("NotesShareWithoutGroup.entitlements"),
            "--bundle-id", "ai.systenics.notes.share", "--url", "https://example.com/lost", "--file", payload.path,
        ], environment: childEnvironment()).wait(timeout: 60)
        let changed = ContainerSnapshot(of: container).changes(since: before)
        let refusedCleanly = !refused.succeeded && changed.isEmpty
        report.say("   as a process: exit \(refused.status), "
            + (changed.isEmpty ? "nothing written" : "WROTE INTO THE CONTAINER (\(changed.count) path(s) changed: \(changed.prefix(3).joined(separator: ", ")))")
            + "; stderr: \(firstSentence(refused.standardError))")
        report.event("unentitledExtension", ["containerURL": nilContainer?.path ?? NSNull(), "why": why, "exitStatus": Int(refused.status),
                                             "changedPaths": changed, "refusedCleanly": refusedCleanly])

        // 2. The app launches and waits; 3. the extensions share concurrently.
        let expected = extensionCount * itemsPerExtension
        report.say("")
        report.say("2. The app (ai.systenics.notes) launches, publishes the session token and watches its inbox")
        let token = UUID().uuidString
        let app = try Cleanup.launch(me, [
            "app", "--root", root.path, "--group", group, "--entitlements", file("Notes.entitlements"),
            "--bundle-id", "ai.systenics.notes", "--json", "--watch", "--until", String(expected), "--timeout", "120",
            "--publish-token", token,
        ], environment: childEnvironment())
        let published = app.waitForErrorLine(timeout: 30) { $0.hasPrefix("published ") }
        _ = app.waitForErrorLine(timeout: 30) { $0.hasPrefix("watching ") }
        report.say("   app pid \(app.processIdentifier): \(published ?? "did not publish a session token") and is watching")
        report.event("appLaunched", ["pid": Int(app.processIdentifier), "publishedToken": published != nil])
        report.say("")
        report.say("3. \(extensionCount) share extensions (ai.systenics.notes.share) read the session token from the keychain, "
            + "then share \(itemsPerExtension) URL(s) each, with \(payload.lastPathComponent)")
        var extensions: [(process: LaunchedProcess, started: Date)] = []
        for index in 1...extensionCount {
            let process = try Cleanup.launch(me, [
                "extension", "--root", root.path, "--group", group, "--entitlements", file("NotesShare.entitlements"),
                "--bundle-id", "ai.systenics.notes.share", "--url", "https://example.com/articles/ext\(index)",
                "--title", "Article from extension \(index)", "--file", payload.path, "--count", String(itemsPerExtension),
                "--require-token",
            ], environment: childEnvironment())
            extensions.append((process, Date()))
        }
        var shared: [String: UInt64] = [:]
        for (index, entry) in extensions.enumerated() {
            let outcome = entry.process.wait(timeout: 300)
            let lines = outcome.outputLines.filter { $0.hasPrefix("shared ") }
            var numbers: [UInt64] = []
            for line in lines {
                let parts = line.split(separator: " ")
                if parts.count == 3, let n = UInt64(parts[1]) { shared[String(parts[2])] = n; numbers.append(n) }
            }
            let ms = Int(Date().timeIntervalSince(entry.started) * 1000)
            let tokenLine = outcome.outputLines.first { $0.hasPrefix("session token: ") } ?? "session token: NOT READ"
            var text = "   extension \(index + 1) (pid \(entry.process.processIdentifier)): \(tokenLine), shared \(numbers.count) item(s) " + describe(numbers)
                + ", exit \(outcome.status), \(ms) ms"
            if !outcome.succeeded { text += "; stderr: " + outcome.standardError.replacingOccurrences(of: "\n", with: " ") }
            report.say(text)
            report.event("extension", ["index": index + 1, "pid": Int(entry.process.processIdentifier), "shared": numbers.count,
                                       "readToken": tokenLine != "session token: NOT READ", "exitStatus": Int(outcome.status)])
        }

        // 4. The app drains as items arrive.
        if shared.count < expected {
            // Some shares failed: the app would wait for items that never come.
            usleep(1_000_000)
            app.kill(SIGTERM)
        }
        let appOutcome = app.wait(timeout: 150)
        let again = try Cleanup.launch(me, [
            "app", "--root", root.path, "--group", group, "--entitlements", file("Notes.entitlements"),
            "--bundle-id", "ai.systenics.notes", "--json",
        ], environment: childEnvironment()).wait(timeout: 60)

        report.say("")
        report.say("4. The app drained")
        let payloadChecksum = Checksum.fnv1a(try Data(contentsOf: payload))
        var tally = Tally()
        for (launch, outcome) in [("app, watching", appOutcome), ("app, launched again", again)] {
            let items = outcome.outputLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            tally.add(items, payloadChecksum: payloadChecksum)
            report.say("   \(launch): received \(items.count) item(s), exit \(outcome.status)"
                + (outcome.succeeded ? "" : "; stderr: " + outcome.standardError.replacingOccurrences(of: "\n", with: " ")))
            for item in items.prefix(3) {
                report.say("     #\(item["sequence"] ?? "?") \(item["url"] ?? "") \"\(item["title"] ?? "")\" [\(item["file"] ?? "-"), \(item["fileBytes"] ?? 0) bytes] from \(item["sender"] ?? "?")")
            }
            if items.count > 3 { report.say("     ... and \(items.count - 3) more") }
            report.event("appDrained", ["launch": launch, "received": items.count, "exitStatus": Int(outcome.status)])
        }

        let lost = Set(shared.keys).subtracting(tally.urls.keys).count
        let duplicated = tally.urls.values.reduce(0) { $0 + max(0, $1 - 1) }
        let elapsed = Date().timeIntervalSince(started)
        let ok = lost == 0 && duplicated == 0 && tally.damaged == 0 && shared.count == expected && tally.inOrder && refusedCleanly
        report.say("")
        report.say("Summary: shared \(shared.count), received \(tally.urls.count), lost \(lost), duplicated \(duplicated), "
            + "attachments intact \(tally.intact)/\(tally.total), in enqueue order: \(tally.inOrder ? "yes" : "NO"), "
            + "elapsed \(String(format: "%.2f", elapsed)) s")
        report.say(ok ? "OK: every share arrived exactly once." : "FAILED: see above.")
        removeScratch()
        // The closing line names what stays and what went, as they are now.
        if let givenRoot {
            report.say("(the root \(givenRoot.path) is yours and stays; " + (keep ? "kept the scratch folder \(work.path))" : "removed the scratch folder \(work.path))"))
        } else {
            report.say(keep ? "(kept \(work.path), the root inside it)" : "(removed \(work.path) with the root inside it; pass --keep to keep it)")
        }
        var summary: [String: Any] = ["event": "summary", "shared": shared.count, "received": tally.urls.count, "lost": lost,
                                      "duplicated": duplicated, "elapsedMilliseconds": Int(elapsed * 1000), "ok": ok, "removed": removed]
        // "root" only while it exists: a temporary root removed above is in "removed" instead.
        if givenRoot != nil || keep { summary["root"] = root.path }
        if keep { summary["scratch"] = work.path }
        report.json(summary)
        return ok ? 0 : 1
    }

    /// The scenario's output: human text, or (with --json) JSON objects only, one a
    /// line, each with an "event"; the last one is the summary.
    struct Report {
        let json: Bool

        func say(_ text: String) { if !json { Output.line(text) } }

        func event(_ name: String, _ fields: [String: Any]) {
            guard json else { return }
            var object = fields
            object["event"] = name
            Output.json(object)
        }

        func json(_ object: [String: Any]) { if json { Output.json(object) } }
    }

    /// What the app processes printed, added up.
    struct Tally {
        var urls: [String: Int] = [:]
        var total = 0
        var intact = 0
        var damaged = 0
        var inOrder = true
        var last: Int = 0

        mutating func add(_ items: [[String: Any]], payloadChecksum: String) {
            for item in items {
                if let url = item["url"] as? String { urls[url, default: 0] += 1 }
                if let sequence = item["sequence"] as? Int {
                    if sequence <= last { inOrder = false }
                    last = sequence
                }
                guard item["file"] != nil else { continue }
                total += 1
                if item["fileChecksum"] as? String == payloadChecksum { intact += 1 } else { damaged += 1 }
            }
        }
    }

    static func firstSentence(_ text: String) -> String {
        let line = text.split(separator: "\n").first.map(String.init) ?? "(empty)"
        guard let end = line.range(of: ": its ") else { return line }
        return String(line[..<end.lowerBound]) + " ..."
    }

    static func describe(_ numbers: [UInt64]) -> String {
        guard !numbers.isEmpty else { return "" }
        let shown = numbers.prefix(6).map { "#\($0)" }.joined(separator: " ")
        return "(" + shown + (numbers.count > 6 ? " ..." : "") + ")"
    }

    static func makeTemporaryDirectory() throws -> URL {
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("ShareFlowDemo-XXXXXX").path
        var bytes = Array(template.utf8CString)
        guard mkdtemp(&bytes) != nil else { throw AppGroupError.systemCall(operation: "mkdtemp", path: template, errno: .current) }
        let path = String(decoding: bytes.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return URL(fileURLWithPath: path, isDirectory: true).resolvingSymlinksInPath()
    }

    /// The file the "share sheet" hands the extensions: outside every container.
    static func makePayload(in work: URL) throws -> URL {
        let directory = work.appendingPathComponent("share-sheet", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("clipping.txt")
        let text = (1...40).map { "Line \($0) of a clipping shared from Safari.\n" }.joined()
        try AtomicFile.write(Data(text.utf8), to: url, below: nil)
        return url
    }

    /// This executable, to spawn in other roles.
    static func executable() throws -> URL {
        #if os(Linux)
        let link = "/proc/self/exe"
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link) { return URL(fileURLWithPath: target) }
        #endif
        if let url = Bundle.main.executableURL { return url }
        return URL(fileURLWithPath: CommandLine.arguments[0])
    }

    /// Our environment without any identity: each child's comes from --entitlements.
    static func childEnvironment() -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("APP_GROUP_") && key != "APP_GROUP_QUIET" {
            environment.removeValue(forKey: key)
        }
        return environment
    }
}
