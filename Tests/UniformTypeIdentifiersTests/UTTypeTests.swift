#if !canImport(Darwin)
import AppGroupFoundation
import Foundation
import Testing
import UniformTypeIdentifiers

/// UTType as Apple documents it: the system's identifiers, conformance through the
/// type tree, tags both ways, dynamic types for unknown tags, app-declared types.
@Suite struct UTTypeTests {
    @Test("the system's types carry Apple's identifiers")
    func identifiers() {
        let expected: [(UTType, String)] = [
            (.item, "public.item"), (.content, "public.content"), (.data, "public.data"), (.url, "public.url"),
            (.fileURL, "public.file-url"), (.text, "public.text"), (.plainText, "public.plain-text"),
            (.utf8PlainText, "public.utf8-plain-text"), (.json, "public.json"), (.propertyList, "com.apple.property-list"),
            (.image, "public.image"), (.jpeg, "public.jpeg"), (.png, "public.png"), (.gif, "com.compuserve.gif"),
            (.heic, "public.heic"), (.webP, "org.webmproject.webp"), (.movie, "public.movie"),
            (.quickTimeMovie, "com.apple.quicktime-movie"), (.mpeg4Movie, "public.mpeg-4"), (.pdf, "com.adobe.pdf"),
            (.zip, "public.zip-archive"), (.vCard, "public.vcard"), (.folder, "public.folder"),
        ]
        for (type, identifier) in expected {
            #expect(type.identifier == identifier)
            #expect(type.description == identifier)
            #expect(UTType(identifier) == type, "UTType(\"\(identifier)\") finds the declared type")
            #expect(type.isDeclared && !type.isDynamic)
        }
        #expect(UTType.url.isPublic && !UTType.pdf.isPublic)
    }

    @Test("conformance follows the type tree, reflexive and transitive, every type to public.item")
    func conformance() {
        #expect(UTType.fileURL.conforms(to: .url) && UTType.fileURL.conforms(to: .data) && UTType.fileURL.conforms(to: .item))
        #expect(UTType.utf8PlainText.conforms(to: .plainText) && UTType.utf8PlainText.conforms(to: .text) && UTType.utf8PlainText.conforms(to: .content))
        #expect(UTType.jpeg.conforms(to: .image) && UTType.heic.conforms(to: .image))
        #expect(UTType.xmlPropertyList.conforms(to: .propertyList) && UTType.xmlPropertyList.conforms(to: .xml))
        #expect(UTType.mpeg4Audio.conforms(to: .audio) && UTType.mpeg4Audio.conforms(to: .movie))
        #expect(!UTType.url.conforms(to: .text) && !UTType.image.conforms(to: .jpeg) && !UTType.plainText.conforms(to: .image))
        #expect(UTType.png.conforms(to: .png))
        #expect(UTType.jpeg.isSubtype(of: .image) && UTType.image.isSupertype(of: .jpeg))
        #expect(!UTType.jpeg.isSubtype(of: .jpeg) && !UTType.jpeg.isSupertype(of: .jpeg))
        #expect(UTType.fileURL.supertypes == [.url, .data, .item])
    }

    @Test("identifiers compare case-insensitively, as Apple's do")
    func caseInsensitive() {
        #expect(UTType("PUBLIC.URL") == .url)
        #expect(Set([UTType.url, UTType("Public.Url")!]).count == 1)
    }

    @Test("tags both ways: filename extensions and MIME types, the preferred first")
    func tags() {
        #expect(UTType(filenameExtension: "jpg") == .jpeg)
        #expect(UTType(filenameExtension: "JPG") == .jpeg)
        #expect(UTType.jpeg.preferredFilenameExtension == "jpeg")
        #expect(UTType.jpeg.preferredMIMEType == "image/jpeg")
        #expect(UTType(mimeType: "image/png") == .png)
        #expect(UTType(mimeType: "application/json") == .json)
        #expect(UTType.plainText.tags[.filenameExtension] == ["txt", "text"])
        #expect(UTType.url.preferredFilenameExtension == nil && UTType.url.preferredMIMEType == nil)
        #expect(UTType(filenameExtension: "png", conformingTo: .image) == .png)
    }

    @Test("an unknown tag gives a dynamic type, which its identifier finds again; an invalid one gives nil")
    func dynamicTypes() throws {
        let type = try #require(UTType(filenameExtension: "notes-archive"))
        #expect(type.isDynamic && !type.isDeclared && !type.isPublic)
        #expect(type.identifier.hasPrefix("dyn."))
        #expect(type.preferredFilenameExtension == "notes-archive")
        #expect(type.conforms(to: .data) && !type.conforms(to: .text))
        #expect(UTType(type.identifier) == type)
        #expect(UTType(type.identifier)?.preferredFilenameExtension == "notes-archive")
        // A known extension under a supertype it does not conform to: a dynamic type under that supertype.
        let textAsImage = try #require(UTType(filenameExtension: "txt", conformingTo: .image))
        #expect(textAsImage.isDynamic && textAsImage.conforms(to: .image) && textAsImage != .plainText)
        #expect(UTType(filenameExtension: "") == nil)
        #expect(UTType(filenameExtension: "a/b") == nil)
        #expect(UTType(mimeType: "") == nil)
        #expect(UTType("com.example.never-declared") == nil)
        #expect(UTType("dyn.zz") == nil, "a malformed dynamic identifier names no type")
    }

    @Test("a type the app exports or imports is known by its identifier and conforms to its parent")
    func appDeclaredTypes() throws {
        let note = UTType(exportedAs: "com.example.uttypetests.note", conformingTo: .json)
        #expect(note.identifier == "com.example.uttypetests.note" && note.isDeclared && !note.isPublic && !note.isDynamic)
        #expect(note.conforms(to: .json) && note.conforms(to: .text) && note.conforms(to: .item))
        #expect(UTType("com.example.uttypetests.note") == note)
        let outline = UTType(importedAs: "com.example.uttypetests.outline", conformingTo: note)
        #expect(outline.conforms(to: note) && outline.conforms(to: .json))
        // Exporting a system type gives the system's.
        #expect(UTType(exportedAs: "public.json") == .json)
    }

    @Test("Codable: the identifier, and a decoded unknown identifier is a typed error")
    func codable() throws {
        let data = try JSONEncoder().encode([UTType.jpeg, .url])
        #expect(String(decoding: data, as: UTF8.self) == #"["public.jpeg","public.url"]"#)
        #expect(try JSONDecoder().decode([UTType].self, from: data) == [.jpeg, .url])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([UTType].self, from: Data(#"["com.example.nothing"]"#.utf8)) }
    }

    @Test("NSItemProvider's UTType forms load what the identifier forms load")
    func itemProvider() async throws {
        let provider = NSItemProvider(item: URL(string: "https://example.com/a")! as NSURL, typeIdentifier: UTType.url.identifier)
        #expect(provider.hasItemConformingToTypeIdentifier(UTType.url.identifier))
        #expect(provider.registeredContentTypes == [.url])
        #expect(provider.registeredContentTypes(conformingTo: .data) == [.url])
        #expect(provider.registeredContentTypes(conformingTo: .text).isEmpty)
        let data: Data? = await withCheckedContinuation { continuation in
            provider.loadDataRepresentation(for: .url) { data, _ in continuation.resume(returning: data) }
        }
        #expect(data.map { String(decoding: $0, as: UTF8.self) } == "https://example.com/a")

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("UTTypeTests-\(UUID().uuidString).txt")
        try Data("hello".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromFile = try #require(NSItemProvider(contentsOf: file))
        #expect(fromFile.registeredContentTypes == [.plainText])
        let loaded: (String?, Bool) = await withCheckedContinuation { continuation in
            fromFile.loadFileRepresentation(for: .text) { url, inPlace, _ in
                continuation.resume(returning: (url.flatMap { try? String(contentsOf: $0, encoding: .utf8) }, inPlace))
            }
        }
        #expect(loaded.0 == "hello" && loaded.1 == false)
    }
}
#endif
