#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AppGroupContainer
import Foundation
import ProbeSupport
import ShareInbox

// The share inbox's writer and drainer roles for the journal tests:
// each prints the number every returned enqueue was given and every delivered
// item's number, so a test proves exactly-once against what the writers were told.
//
//   inbox-enqueue --group G --id W --count N [--attach-every K --scratch DIR]
//                 [--pause-after P --resume FILE] [--stay]
//        enqueues items titled "<W>-<i>" (every K-th with an attachment); prints
//        "ready", then "ack <number> <title>" after each enqueue returned. With
//        --pause-after P: after P of them prints "paused" and waits for FILE to
//        exist. Prints "done" at the end; with --stay then sleeps until killed (the
//        instance, and its journal log's lock, stay alive). An enqueue that throws
//        prints "error <title> <error>" and ends the process (status 1).
//   inbox-drain --group G [--nofile N] [--hog-at K] [--max M] [--until-empty]
//        drains and prints "drain" at each drain's start, "got <number> <title>" per
//        item, "drained <n>" at its end, "warning <text>" for each diagnostic line,
//        "error <error>" when a drain throws. --nofile N lowers RLIMIT_NOFILE's soft
//        limit to N first. --hog-at K: the handler of the K-th item opens /dev/null
//        until the descriptors run out (EMFILE) and keeps them until that drain
//        returned ("hogged <count>"). --until-empty drains again until a drain
//        delivers nothing and throws nothing (at most 50 drains).
//   inbox-fill --group G --scratch DIR [--attachment-bytes B]
//        on a small file system: enqueues, in turn, an item without attachments (a
//        journal record) and one with a B-byte attachment (in Items/), until both
//        kinds failed with ENOSPC three rounds in a row; prints "ack <number>
//        <title>" per enqueue that returned, then "full <journal> <items>" (how many
//        of each). Another error prints "error <title> <error>" (status 1).

/// `inbox-enqueue`.
func inboxEnqueue() throws {
    let inbox = try ShareInbox(groupIdentifier: option("group"), resolver: resolver())
    let id = option("id")
    let attachEvery = intOption("attach-every", 0)
    let pauseAfter = optionalOption("pause-after").flatMap(Int.init)
    let scratch = URL(fileURLWithPath: option("scratch", NSTemporaryDirectory()), isDirectory: true)
    say("ready")
    for i in 1...max(1, intOption("count")) {
        if let pauseAfter, i == pauseAfter + 1 {
            say("paused")
            let resume = option("resume")
            while !FileManager.default.fileExists(atPath: resume) { usleep(5_000) }
        }
        let title = "\(id)-\(i)"
        var attachments: [SharedItem.Attachment] = []
        if attachEvery > 0 && i % attachEvery == 0 {
            let file = scratch.appendingPathComponent("\(title)-\(getpid()).txt")
            try attachmentBytes(title).write(to: file)
            attachments = [.init(fileURL: file, name: "clip.txt")]
        }
        do {
            let number = try inbox.enqueue(SharedItem(url: URL(string: "https://example.com/\(title)"), title: title, attachments: attachments))
            say("ack \(number) \(title)")
        } catch {
            say("error \(title) \(error)")
            exit(1)
        }
    }
    say("done")
    if CommandLine.arguments.contains("--stay") {
        withExtendedLifetime(inbox) { while true { sleep(60) } }
    }
}

/// `inbox-drain`.
func inboxDrain() throws {
    if let limit = optionalOption("nofile").flatMap(rlim_t.init) {
        var current = rlimit()
        getrlimit(limitResource(RLIMIT_NOFILE), &current)
        var lowered = rlimit(rlim_cur: limit, rlim_max: current.rlim_max)
        guard setrlimit(limitResource(RLIMIT_NOFILE), &lowered) == 0 else { fail("setrlimit(RLIMIT_NOFILE, \(limit)) failed: errno \(errno)") }
    }
    Diagnostics.handler = { say("warning " + $0.replacingOccurrences(of: "\n", with: " ")) }
    let inbox = try ShareInbox(groupIdentifier: option("group"), resolver: resolver())
    let hogAt = optionalOption("hog-at").flatMap(Int.init)
    let maximum = optionalOption("max").flatMap(Int.init)
    let untilEmpty = CommandLine.arguments.contains("--until-empty")
    var handled = 0
    var hogged: [Int32] = []
    for _ in 0..<(untilEmpty ? 50 : 1) {
        say("drain")
        var delivered = -1
        do {
            delivered = try inbox.drain(maximumCount: maximum) { item in
                say("got \(item.sequenceNumber) \(item.title ?? "?")")
                handled += 1
                if handled == hogAt {
                    while true {
                        let fd = open("/dev/null", O_RDONLY)
                        if fd < 0 { break }
                        hogged.append(fd)
                    }
                    say("hogged \(hogged.count)")
                }
            }
            say("drained \(delivered)")
        } catch {
            say("error \(String(describing: error).replacingOccurrences(of: "\n", with: " "))")
        }
        for fd in hogged { close(fd) }
        hogged = []
        if delivered == 0 { break }
    }
    say("done")
}

/// `inbox-fill`.
func inboxFill() throws {
    let inbox = try ShareInbox(groupIdentifier: option("group"), resolver: resolver())
    let scratch = URL(fileURLWithPath: option("scratch"), isDirectory: true)
    let attachment = scratch.appendingPathComponent("fill-\(getpid()).bin")
    try Data(repeating: 0x5A, count: intOption("attachment-bytes", 6000)).write(to: attachment)
    var counts = [0, 0]
    var fullRounds = 0
    var i = 0
    while fullRounds < 3 {
        var failed = 0
        for kind in 0..<2 {
            i += 1
            let title = (kind == 0 ? "journal-" : "item-") + String(i)
            do {
                let number = try inbox.enqueue(SharedItem(title: title, attachments: kind == 0 ? [] : [.init(fileURL: attachment, name: "fill.bin")]))
                say("ack \(number) \(title)")
                counts[kind] += 1
            } catch where isDiskFull(error) {
                failed += 1
            } catch {
                say("error \(title) \(error)")
                exit(1)
            }
        }
        fullRounds = failed == 2 ? fullRounds + 1 : 0
        if i > 200_000 { say("error the disk never filled"); exit(1) }
    }
    say("full \(counts[0]) \(counts[1])")
}

#if canImport(Glibc)
private func limitResource(_ resource: __rlimit_resource) -> __rlimit_resource_t { __rlimit_resource_t(resource.rawValue) }
#else
private func limitResource(_ resource: Int32) -> Int32 { resource }
#endif
