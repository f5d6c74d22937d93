import PackagePlugin

/// The package's layering rules, checked on every build of the targets that use
/// this plugin (Package.swift lists them), so that a break is a build error at the
/// offending line, not a test that may never run.
///
/// Swift's compiler alone cannot keep a module from a layer below: SwiftPM puts
/// every built module on the search path, so `import AppGroupSystem` compiles in
/// any target whose dependencies reach it, and Foundation re-exports the C library
/// on Linux, so `rename(...)` compiles anywhere. The tool `layering-check` reads
/// the target's sources and refuses:
/// - an `import` of a module that is not one of the target's own dependencies
///   (nor a toolchain module);
/// - with `--no-system-calls` (the stores above AppGroupContainer), a bare call of
///   a C file function, or an import of the C library.
@main
struct LayeringCheck: BuildToolPlugin {
    /// Targets whose sources must reach the file system only through
    /// AppGroupContainer's package primitives: the stores, and the modules of
    /// Apple's names on top of them (AppGroupFoundation, notify).
    static let storeTargets: Set<String> = ["SharedDefaults", "ShareInbox", "SharedKeychain", "Security", "LocalAuthentication",
                                            "AppGroupFoundation", "notify"]

    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let sources = target.sourceFiles(withSuffix: "swift").map(\.url)
        var allowed: [String] = []
        for dependency in target.dependencies {
            switch dependency {
            case .target(let module): allowed.append(module.name)
            case .product(let product): allowed += product.targets.map(\.name)
            @unknown default: break
            }
        }
        let stamp = context.pluginWorkDirectoryURL.appending(path: "\(target.name).layering")
        var arguments = ["--target", target.name, "--stamp", stamp.path(percentEncoded: false)]
        for module in allowed { arguments += ["--allow", module] }
        if Self.storeTargets.contains(target.name) { arguments.append("--no-system-calls") }
        arguments.append("--")
        arguments += sources.map { $0.path(percentEncoded: false) }
        return [.buildCommand(displayName: "Checking the layering of \(target.name)",
                              executable: try context.tool(named: "layering-check").url,
                              arguments: arguments, inputFiles: sources, outputFiles: [stamp])]
    }
}
