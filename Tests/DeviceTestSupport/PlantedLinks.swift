import AppGroupTesting
import Foundation
import Testing

/// A file outside `sandbox`'s root, with known content, for planted links to point at.
package func target(_ sandbox: Sandbox, _ name: String = "victim") throws -> URL {
    let url = sandbox.outside.appendingPathComponent(name)
    try Data("outside".utf8).write(to: url)
    return url
}

/// Nothing but `expected` is outside the root, and the files among them (made by
/// ``target(_:_:)``) are unchanged.
package func expectUntouched(_ sandbox: Sandbox, _ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(sandbox.outsideContents() == expected, "nothing written outside the root", sourceLocation: sourceLocation)
    for name in expected where !name.contains("/") {
        let url = sandbox.outside.appendingPathComponent(name)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            #expect((try? Data(contentsOf: url)) == Data("outside".utf8), "\(name) outside the root is unchanged", sourceLocation: sourceLocation)
        }
    }
}
