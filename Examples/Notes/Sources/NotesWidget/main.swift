// The widget's process, reduced to what the tests drive. On iOS this is the
// timeline provider reading what the app published.
import Foundation
import NotesShared

#if !canImport(Darwin)
// Launched by a simulated device to reload the timeline (no arguments).
if CommandLine.arguments.count == 1 { NotesTimelineProvider.runAsWidgetHost() }
#endif

HostProcess.run("NotesWidget", usage: "timeline | about | refresh [--background-time] SECONDS") { arguments in
    if arguments == ["about"] { return AppIdentity.lines.forEach(HostProcess.say) }
    if arguments.first == "refresh", let seconds = arguments.last.flatMap(Double.init) {
        HostProcess.say("ready")
        if arguments.contains("--background-time") {
            try TimelineRefresh.refreshTakingBackgroundTime(workSeconds: seconds)
        } else {
            try TimelineRefresh.refresh(workSeconds: seconds)
        }
        // The widget stays alive, as an extension process does between refreshes.
        while true { Thread.sleep(forTimeInterval: 1000) }
    }
    guard arguments == ["timeline"] else { throw HostProcess.UsageError() }
    // The entry the widget would show.
    guard let snapshot = try WidgetSnapshot.current() else { return HostProcess.say("no notes yet") }
    HostProcess.say("notes \(snapshot.noteCount)")
    for url in snapshot.latest { HostProcess.say("latest \(url.absoluteString)") }
}
