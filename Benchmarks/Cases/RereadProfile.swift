import AppGroupContainer
import Foundation
import PropertyLists
import SharedDefaults

/// Child role, for profiling only (not a case, not in `--list`):
/// `reread-profile --keys N --count C [--durable 0] [--settle-us U]`. The read after another
/// instance's save of case 7, alone in a loop, with the pieces it is made of timed
/// apart after the same kind of save: the whole read, the open and read of the file
/// as the package does it (openat2 from the root or the walk, fstat, read, the pin), the
/// package's parse of those bytes, the floor (open, fstat, read), the lstat that
/// finds the change and the hand-off of a replaced cache to its background queue;
/// then the parse warm, in memory (as case 8 times it). Run it under
/// `perf record` or `valgrind --tool=callgrind` to see the reader without the case's
/// other work; `--durable 0` leaves the writer's fsyncs out of the profile.
func rereadProfileChild(_ options: Options) throws {
    let keys = (try? options.int("keys")) ?? 100
    let count = (try? options.int("count")) ?? 2_000
    let durable = options.values["durable"] != "0"
    // Microseconds to wait after each save before the timed read (0: none).
    let settle = (try? options.int("settle-us")) ?? 0
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("appgroup-reread-\(getpid())")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    let writer = try BenchIdentity.defaults(root: root)
    let reader = try BenchIdentity.defaults(root: root)
    try writer.transaction { suite in
        for (key, value) in sampleSuite(keys: keys).merging(["greeting": "hello"], uniquingKeysWith: { $1 }) {
            try suite.set(value, forKey: key)
        }
    }
    // The writer is a second instance: its saves replace the file as another
    // process's would, and a non-durable one keeps fsyncs out of a profile.
    let saver = durable ? writer : try SharedDefaults(requiringSuiteName: BenchIdentity.group, resolver: try BenchIdentity.resolver(root: root), durable: false)
    let file = reader.fileURL
    let containerRoot = ContainerRoot(root)
    var buffer: [UInt8] = []
    var i = 0
    func save() throws {
        i += 1
        try saver.save(i, forKey: "key0")
        if settle > 0 { usleep(UInt32(settle)) }
    }
    var whole: [UInt64] = [], fileRead: [UInt64] = [], parse: [UInt64] = [], floor: [UInt64] = [], handOff: [UInt64] = [], identity: [UInt64] = []
    for _ in 0..<count {
        try save()
        var start = now()
        guard reader.string(forKey: "greeting") == "hello" else { throw BenchmarkError.child("the re-parsing read failed: \(String(describing: reader.lastError))") }
        whole.append(now() - start)
        try save()
        start = now()
        guard let read = try AtomicFile.readPinned(file, below: containerRoot) else { throw BenchmarkError.child("no suite file") }
        fileRead.append(now() - start)
        start = now()
        // What a suite's first read of a changed file does: check it all, decode one value.
        _ = try BinaryPropertyListReader.check(read.data, lookingUp: "greeting")
        parse.append(now() - start)
        try save()
        start = now()
        guard Floor.readFile(file.path, into: &buffer) != nil else { throw BenchmarkError.child("cannot read \(file.path)") }
        floor.append(now() - start)
        try save()
        start = now()
        _ = try AtomicFile.identity(atPath: file.path, below: containerRoot)
        identity.append(now() - start)
        start = now()
        AtomicFile.releaseInBackground(read.data)
        handOff.append(now() - start)
    }
    // The same parse warm, in memory, as case 8 measures it.
    guard let bytes = try AtomicFile.read(file, below: containerRoot) else { throw BenchmarkError.child("no suite file") }
    let warm = try measure("parse, in memory", count: count, warmup: 50) { _ = try PropertyListCodec.read(bytes) }
    for (name, times) in [("whole read (re-parse)", whole), ("open (openat2 or the walk), fstat, read, pin", fileRead),
                          ("check + one key", parse), ("floor: open, fstat, read", floor),
                          ("lstat (the identity check)", identity), ("hand-off of the replaced cache", handOff)] {
        let sample = Sample(name: "\(keys) keys: \(name)", nanoseconds: times)
        print("\(sample.name)\tmedian \(Int(sample.medianNs)) ns\tp99 \(Int(sample.p99Ns)) ns\tn=\(sample.count)")
    }
    print("\(keys) keys: \(warm.name)\tmedian \(Int(warm.medianNs)) ns\tp99 \(Int(warm.p99Ns)) ns\tn=\(warm.count)")
}

/// Child role, for profiling only (not a case): `check-loop [--keys N] [--count C]`.
/// The check of a suite file plus the decoding of one key (what a read after
/// another process's save does to the bytes), in memory, C times: run it under
/// `perf record` to see the reader's hot spots without system calls or saves.
func checkLoopChild(_ options: Options) throws {
    let keys = (try? options.int("keys")) ?? 100
    let count = (try? options.int("count")) ?? 200_000
    var d = PropertyListDictionary()
    if case .dictionary(let s) = sampleTree(keys: keys) { d = s }
    d.set(.string("hello"), forKey: "greeting")
    let data = try PropertyListCodec.write(.dictionary(d), format: .binary)
    var n = 0
    let start = now()
    for _ in 0..<count { if try BinaryPropertyListReader.check(data, lookingUp: "greeting").value != nil { n += 1 } }
    print("check+lookup: \((now() - start) / UInt64(count)) ns per call, \(n)")
}
