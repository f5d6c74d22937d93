// The widget's process, reduced to what the tests drive. On iOS this is the
// timeline provider reading what the app published.
//
//   NotesWidget timeline   print the entry the widget would show
import Foundation
import NotesShared

do {
    guard CommandLine.arguments.dropFirst() == ["timeline"] else {
        FileHandle.standardError.write(Data("usage: NotesWidget timeline\n".utf8))
        exit(64)
    }
    if let snapshot = try WidgetSnapshot.current() {
        print("notes \(snapshot.noteCount)")
        for url in snapshot.latest { print("latest \(url.absoluteString)") }
    } else {
        print("no notes yet")
    }
} catch {
    FileHandle.standardError.write(Data("NotesWidget: \(error)\n".utf8))
    exit(1)
}
