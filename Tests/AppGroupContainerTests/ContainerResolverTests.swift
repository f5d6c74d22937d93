import AppGroupTesting
import AppGroupContainer
import DeviceTestSupport
import Foundation
import Testing
import TestSupport

/// The share extension of the running example: it holds two groups.
func shareExtension() throws -> Entitlements {
    try Entitlements(applicationIdentifier: "A1B2C3D4E5.ai.systenics.notes.share",
                     applicationGroups: ["group.ai.systenics.notes", "A1B2C3D4E5.ai.systenics.shared"])
}

@Suite("Container resolver", .dedicatedThreads)
struct ContainerResolverTests {
    @Test("containerURL returns nil for a group the identity lacks, and creates nothing")
    func nilWhenNotEntitled() throws {
        try withTemporaryDirectory { dir in
            let root = dir.appendingPathComponent("root")
            let resolver = ContainerResolver(root: root, entitlements: try shareExtension())
            #expect(resolver.containerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.other") == nil)
            #expect(resolver.containerURL(forSecurityApplicationGroupIdentifier: "group.a/../..") == nil)
            #expect(resolver.containerURL(forSecurityApplicationGroupIdentifier: "") == nil)
            #expect(!FileManager.default.fileExists(atPath: root.path), "a refused group must not create anything")
            #expect(resolver.containerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.notes") != nil)
        }
    }

    @Test("the throwing variant names the group, the bundle id, the groups held and the fix")
    func throwingVariantExplains() throws {
        try withTemporaryDirectory { dir in
            let resolver = ContainerResolver(root: dir, entitlements: try shareExtension())
            let error = #expect(throws: AppGroupError.self) {
                try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.other")
            }
            #expect(error == .notEntitled(group: "group.ai.systenics.other", bundleIdentifier: "ai.systenics.notes.share",
                                          heldGroups: ["group.ai.systenics.notes", "A1B2C3D4E5.ai.systenics.shared"]))
            let message = error?.description ?? ""
            for part in ["group.ai.systenics.other", "ai.systenics.notes.share", "group.ai.systenics.notes",
                         "A1B2C3D4E5.ai.systenics.shared", "App Groups capability"] {
                #expect(message.contains(part), "the message lacks \(part): \(message)")
            }

            let bare = ContainerResolver(root: dir, entitlements: try Entitlements(applicationIdentifier: "A1B2C3D4E5.com.example.widget"))
            let none = #expect(throws: AppGroupError.self) {
                try bare.requireContainerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.notes")
            }
            #expect(none == .notEntitled(group: "group.ai.systenics.notes", bundleIdentifier: "com.example.widget", heldGroups: []))
            #expect(none?.description.contains("no application groups at all") == true)
            #expect(throws: AppGroupError.invalidGroupIdentifier("group.a..b", rule: .dotComponent)) {
                try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: "group.a..b")
            }
            #expect(throws: AppGroupError.notEntitled(group: "group.ai.systenics.other", bundleIdentifier: "ai.systenics.notes.share",
                                                      heldGroups: ["group.ai.systenics.notes", "A1B2C3D4E5.ai.systenics.shared"])) {
                try resolver.checkEntitlement(try GroupIdentifier("group.ai.systenics.other"))
            }
        }
    }

    @Test("the layout is <root>/<group>/Library/{Caches,Preferences}, directories 0700, and resolving again is harmless")
    func layout() throws {
        try withTemporaryDirectory { dir in
            let root = dir.appendingPathComponent("a/b/root")
            let resolver = ContainerResolver(root: root, entitlements: try shareExtension())
            let url = try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.notes")
            #expect(url.path == root.appendingPathComponent("group.ai.systenics.notes").path)
            #expect(url == resolver.containerLocation(for: try GroupIdentifier("group.ai.systenics.notes")))
            try Data("kept".utf8).write(to: url.appendingPathComponent("Library/Preferences/keep"))
            #expect(try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.notes") == url)
            #expect(try Data(contentsOf: url.appendingPathComponent("Library/Preferences/keep")) == Data("kept".utf8))
            #expect(names(in: url) == ["Library"])
            #expect(names(in: url.appendingPathComponent("Library")) == ["Caches", "Preferences"])
            for path in [root.path, url.path] + ContainerResolver.standardSubdirectories.map({ url.appendingPathComponent($0).path }) {
                #expect(permissions(path) == 0o700, "\(path)")
            }
        }
    }

    @Test("the root comes from the argument, else APP_GROUP_CONTAINERS_ROOT, else the XDG data directory or ~/.local/share")
    func rootChoice() throws {
        let identity = try shareExtension()
        let explicit = ContainerResolver(root: URL(fileURLWithPath: "/srv/x"), entitlements: identity,
                                         environment: [ContainerResolver.rootEnvironmentKey: "/srv/env"])
        #expect(explicit.root.path == "/srv/x")
        let fromEnv = ContainerResolver(entitlements: identity, environment: [ContainerResolver.rootEnvironmentKey: "/srv/env", "HOME": "/home/u"])
        #expect(fromEnv.root.path == "/srv/env")
        #if os(Linux)
        #expect(ContainerResolver.defaultRoot(environment: ["HOME": "/home/u", "XDG_DATA_HOME": "/data/u"]).path == "/data/u/AppGroupContainers")
        #expect(ContainerResolver.defaultRoot(environment: ["HOME": "/home/u"]).path == "/home/u/.local/share/AppGroupContainers")
        // XDG says a relative XDG_DATA_HOME is invalid and must be ignored.
        #expect(ContainerResolver.defaultRoot(environment: ["HOME": "/home/u", "XDG_DATA_HOME": "rel"]).path == "/home/u/.local/share/AppGroupContainers")
        #expect(ContainerResolver(entitlements: identity, environment: ["HOME": "/home/u", ContainerResolver.rootEnvironmentKey: ""]).root.path
                == "/home/u/.local/share/AppGroupContainers")
        #endif
    }

    @Test("a root that is a file is invalidRoot")
    func rootIsAFile() throws {
        try withTemporaryDirectory { dir in
            let root = dir.appendingPathComponent("root")
            try Data().write(to: root)
            let error = #expect(throws: AppGroupError.self) {
                try ContainerResolver(root: root, entitlements: try shareExtension())
                    .requireContainerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.notes")
            }
            guard case let .invalidRoot(path, _)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(path == root.path)
        }
    }

    /// Where a symbolic link is planted, relative to the container.
    static let plantedLinks = ["", "Library", "Library/Preferences", "Library/Caches"]

    @Test("a symbolic link planted where a container directory belongs is refused; nothing is written outside the root", .tags(.hostile),
          arguments: plantedLinks)
    func symlinkedDirectoryRefused(planted: String) throws {
        try withTemporaryDirectory { dir in
            let root = dir.appendingPathComponent("root")
            let outside = dir.appendingPathComponent("outside")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            let container = root.appendingPathComponent("group.ai.systenics.notes")
            let linkPath = planted.isEmpty ? container : container.appendingPathComponent(planted)
            try FileManager.default.createDirectory(at: linkPath.deletingLastPathComponent(), withIntermediateDirectories: true)
            if planted == "Library/Preferences" || planted == "Library/Caches" {
                // Leave the sibling in place as a real directory.
                try FileManager.default.createDirectory(at: container.appendingPathComponent("Library"), withIntermediateDirectories: true)
            }
            try FileManager.default.createSymbolicLink(atPath: linkPath.path, withDestinationPath: outside.path)
            let resolver = ContainerResolver(root: root, entitlements: try shareExtension())
            let error = #expect(throws: AppGroupError.self) {
                try resolver.requireContainerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.notes")
            }
            guard case let .unsafePath(path, problem)? = error else { Issue.record("got \(String(describing: error))"); return }
            #expect(path == linkPath.path)
            #expect(problem.contains("symbolic link"))
            #expect(resolver.containerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.notes") == nil)
            #expect(names(in: outside) == [], "something was written through the link")
        }
    }

    @Test("a file planted where the container belongs is refused", .tags(.hostile))
    func fileInPlaceOfContainer() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("root"), withIntermediateDirectories: false)
            let container = dir.appendingPathComponent("root/group.ai.systenics.notes")
            try Data("x".utf8).write(to: container)
            #expect(throws: AppGroupError.self) {
                try ContainerResolver(root: dir.appendingPathComponent("root"), entitlements: try shareExtension())
                    .requireContainerURL(forSecurityApplicationGroupIdentifier: "group.ai.systenics.notes")
            }
            #expect(try Data(contentsOf: container) == Data("x".utf8))
        }
    }
}

extension MultiProcess {
    @Suite("Containers across processes", .tags(.multiprocess))
    struct ContainersAcrossProcesses {
        @Test("a child process started with the identity's environment resolves the container; refused groups print why")
        func childResolves() throws {
            try withTemporaryDirectory { dir in
                let root = dir.appendingPathComponent("root")
                let identity = try shareExtension()
                let environment = identity.environment.merging([ContainerResolver.rootEnvironmentKey: root.path]) { $1 }
                let ok = try Probe.run(["resolve", "--group", "group.ai.systenics.notes,A1B2C3D4E5.ai.systenics.shared"], environment: environment)
                #expect(ok.outputLines == [root.appendingPathComponent("group.ai.systenics.notes").path,
                                     root.appendingPathComponent("A1B2C3D4E5.ai.systenics.shared").path])
                #expect(containerNames(in: root) == ["A1B2C3D4E5.ai.systenics.shared", "group.ai.systenics.notes"])

                let refused = try Probe.start(["resolve", "--group", "group.ai.systenics.other"], environment: environment)
                #expect(refused.wait(timeout: 30).status == 2)
                #expect(refused.outputLines == ["nil group.ai.systenics.other"])
                for part in ["group.ai.systenics.other", "ai.systenics.notes.share", "group.ai.systenics.notes"] {
                    #expect(refused.standardError.contains(part), "the diagnostic lacks \(part): \(refused.standardError)")
                }

                // Without any identity in its environment the child gets nil, and is told how to set one.
                let anonymous = try Probe.start(["resolve", "--group", "group.ai.systenics.notes"], environment: [ContainerResolver.rootEnvironmentKey: root.path])
                #expect(anonymous.wait(timeout: 30).status == 2)
                #expect(anonymous.standardError.contains(Entitlements.EnvironmentKey.applicationIdentifier))
            }
        }

        @Test("a child process given an .entitlements file in its environment resolves the Team-ID group")
        func childWithEntitlementsFile() throws {
            try withTemporaryDirectory { dir in
                let root = dir.appendingPathComponent("root")
                let file = dir.appendingPathComponent("Share.entitlements")
                try Data(xcodeEntitlements.utf8).write(to: file)
                let ok = try Probe.run(["resolve", "--group", "A1B2C3D4E5.ai.systenics.shared"], environment: [
                    ContainerResolver.rootEnvironmentKey: root.path,
                    Entitlements.EnvironmentKey.entitlementsFile: file.path,
                    Entitlements.EnvironmentKey.teamIdentifier: "A1B2C3D4E5",
                    Entitlements.EnvironmentKey.bundleIdentifier: "ai.systenics.notes.share",
                ])
                #expect(ok.outputLines == [root.appendingPathComponent("A1B2C3D4E5.ai.systenics.shared").path])
            }
        }

        @Test("two processes resolving the same new groups at the same moment both succeed with the same directories")
        func concurrentCreation() throws {
            try withTemporaryDirectory { dir in
                // Neither the root nor its parent exists yet: they race on those too.
                let root = dir.appendingPathComponent("new/root")
                let groups = (0..<25).map { "group.ai.systenics.race\($0)" }
                let identity = try Entitlements(applicationIdentifier: "A1B2C3D4E5.ai.systenics.notes", applicationGroups: groups)
                let environment = identity.environment.merging([ContainerResolver.rootEnvironmentKey: root.path]) { $1 }
                try withProbes { probes in
                    let racers = try startTogether(Array(repeating: ["resolve", "--group", groups.joined(separator: ",")], count: 2),
                                                   barrier: dir.appendingPathComponent("go"), probes: &probes, environment: environment)
                    for probe in racers {
                        #expect(probe.wait(timeout: 30).status == 0, "stderr: \(probe.standardError)")
                    }
                    let expected = groups.map { root.appendingPathComponent($0).path }
                    #expect(racers[0].outputLines.filter { $0 != "ready" } == expected)
                    #expect(racers[1].outputLines.filter { $0 != "ready" } == expected)
                }
                #expect(Set(containerNames(in: root)) == Set(groups))
                for group in groups {
                    #expect(names(in: root.appendingPathComponent(group + "/Library")) == ["Caches", "Preferences"])
                }
            }
        }

        @Test("directories are 0700 and files 0600 whatever the umask", arguments: ["000", "777", "022"])
        func modesIgnoreUmask(mask: String) throws {
            try withTemporaryDirectory { dir in
                let root = dir.appendingPathComponent("root")
                let identity = try shareExtension()
                let environment = identity.environment.merging([ContainerResolver.rootEnvironmentKey: root.path]) { $1 }
                let resolved = try Probe.run(["resolve", "--group", "group.ai.systenics.notes", "--umask", mask], environment: environment)
                let container = try #require(resolved.outputLines.first.map { URL(fileURLWithPath: $0) })
                let counterFile = container.appendingPathComponent("Library/Preferences/counter")
                try Probe.run(["increment", "--file", counterFile.path, "--count", "2", "--umask", mask])
                let saved = container.appendingPathComponent("Library/Caches/note")
                try Probe.run(["save", "--file", saved.path, "--text", "hello", "--umask", mask])

                #expect(counter(counterFile) == 2)
                for path in [root.path, container.path] + ContainerResolver.standardSubdirectories.map({ container.appendingPathComponent($0).path }) {
                    #expect(permissions(path) == 0o700, "directory \(path) under umask \(mask)")
                }
                let tree = root.appendingPathComponent(".coordination")
                #expect(permissions(tree.path) == 0o700, "the coordination tree under umask \(mask)")
                for file in [counterFile, saved, try FileCoordinator.lockFileURL(for: counterFile), try FileCoordinator.lockFileURL(for: saved)] {
                    #expect(permissions(file.path) == 0o600, "file \(file.path) under umask \(mask)")
                }
                #expect(try FileCoordinator.lockFileURL(for: counterFile).deletingLastPathComponent().path == tree.path)
                #expect(names(in: container.appendingPathComponent("Library/Preferences")) == ["counter"])
                #expect(names(in: container.appendingPathComponent("Library/Caches")) == ["note"])
            }
        }
    }
}
