import AppGroupContainer
import Foundation
import PropertyLists

/// `appgroup plist FILE [--lint | --convert FORMAT [--output OUT]]`: `plutil` for
/// any property-list file, read by the package's own codec.
enum PlistCommand {
    static let help = """
        usage: appgroup plist FILE|- [--json]
               appgroup plist FILE --lint
               appgroup plist FILE|- --convert xml1|binary1|json [--output OUT|-]

        Works on any property-list file (XML or binary), as `plutil` does on a Mac:
          (no option)        prints it as `plutil -p` does: "key" => value, arrays with
                             indices, booleans true/false, data {length = N, bytes = 0x...}
          --lint             checks it: prints "FILE: OK", or fails naming what is wrong
          --convert FORMAT   rewrites FILE in FORMAT (xml1, binary1 or json), atomically,
                             or writes to OUT with --output (- for standard output). JSON has
                             no dates nor data: a file holding one is refused, as plutil does.
          --json             print as JSON instead (dates and data refused likewise)
        Every key is kept exactly as the file spells it. Nothing under a container root is
        assumed: FILE may be anywhere (- reads standard input).

        Fails with exit 65 when FILE is not a property list, 1 when it is missing or a
        conversion is impossible, 64 for bad arguments.
        """

    static func run(_ argv: [String]) throws {
        let arguments = try Arguments(argv, options: ["convert", "output"], flags: ["lint", "json"])
        if arguments.wantsHelp { return Output.line(help) }
        try arguments.expectPositionals(1...1, "FILE")
        let path = arguments.positionals[0]
        let source = path == "-" ? "standard input" : path
        let modes = [arguments.flag("lint"), arguments.option("convert") != nil, arguments.flag("json")].filter { $0 }.count
        guard modes <= 1 else { throw CLIError.usage("--lint, --convert and --json go one at a time") }
        if arguments.option("output") != nil && arguments.option("convert") == nil {
            throw CLIError.usage("--output goes with --convert")
        }
        let format = try arguments.option("convert").map(parseFormat)
        let tree = try PropertyListFile.parse(try PropertyListFile.readBytes(path), source: source)
        if arguments.flag("lint") { return Output.line("\(source): OK") }
        if arguments.flag("json") { return try Output.json(json(tree)) }
        guard let format else { return Output.line(PlutilText.render(tree)) }
        let target = arguments.option("output") ?? path
        try PropertyListFile.writeBytes(try encode(tree, format), to: target)
    }

    enum Format: String { case xml1, binary1, json }

    static func parseFormat(_ raw: String) throws -> Format {
        guard let format = Format(rawValue: raw) else {
            throw CLIError.usage("unknown format \(Arguments.quote(raw)) for --convert: use xml1, binary1 or json")
        }
        return format
    }

    /// The tree as JSON, as `plutil -convert json` makes it.
    /// - Throws: ``CLIError/failed(_:)`` for a value JSON cannot hold, saying which and where.
    static func json(_ tree: PropertyListTree) throws -> Any {
        do {
            return try PlutilText.jsonObject(tree)
        } catch {
            throw CLIError.failed(error.message)
        }
    }

    /// The bytes of `tree` in `format`.
    /// - Throws: ``CLIError/failed(_:)`` when the format cannot hold the value.
    static func encode(_ tree: PropertyListTree, _ format: Format) throws -> Data {
        do {
            switch format {
            case .xml1: return try PropertyListCodec.write(tree, format: .xml)
            case .binary1: return try PropertyListCodec.write(tree, format: .binary)
            case .json:
                let object = try json(tree)
                return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.failed("cannot write the property list as \(format.rawValue): \(error)")
        }
    }
}
