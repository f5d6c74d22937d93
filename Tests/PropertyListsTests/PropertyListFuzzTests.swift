import Foundation
import PropertyLists
import Testing
import TestSupport

/// Seeded mutation fuzzing of the codec's readers themselves (SharedDefaultsTests'
/// SuiteReaderFuzzTests and AppGroupContainerTests' EntitlementsReaderFuzzTests fuzz
/// the suite-file and entitlements readers built on them): every
/// mutated input is a value or a typed PropertyListError, never a crash or a hang;
/// a binary input gets the same verdict from the checking pass as from the full read;
/// what is read is written again and reads back equal. Fixed seed
/// (APP_GROUP_SOAK_SEED replays another; APP_GROUP_SOAK_FUZZ sets the count).
@Suite("Property-list codec fuzzing", .tags(.fuzz, .soak), .dedicatedThreads)
struct PropertyListFuzzTests {
    /// The corpus: Foundation's files (FuzzCorpus.suites), and the codec's own binary and XML of
    /// seeded values of every type (twin keys, UTF-16 strings, 16-byte integers, NaN)
    /// and of the hostile tests' every-type suite (2-byte references).
    static func corpus() throws -> [Data] {
        var files = FuzzCorpus.suites
        let samples = PropertyListCodecTests.samples(6, seed: 0xF022, PropertyListCodecTests.Options(wholeSeconds: true))
        for tree in samples + [PropertyListCodecHostileTests.everyTypeSuite()] {
            files.append(try PropertyListCodec.write(tree, format: .binary))
            files.append(try PropertyListCodec.write(tree, format: .xml))
        }
        return files
    }

    @Test("the codec's readers survive mutated binary and XML files: a value or a typed PropertyListError, the check agreeing with the full read, and what is read writes back the same")
    func codecReaders() throws {
        let corpus = try Self.corpus()
        #expect(corpus.count == 22)
        var rng = SeededGenerator(seed: Load.seed ^ 0xC0DEC)
        var read = 0, refused = 0, binary = 0
        for i in 0..<Load.fuzzInputs {
            let input = Mutation.mutate(corpus, &rng)
            Mutation.keepForReplay(input)
            let tree: PropertyListTree
            do {
                tree = try PropertyListCodec.read(input)
                read += 1
            } catch { // a PropertyListError: the codec throws nothing else (typed throws)
                refused += 1
                continue
            }
            if input.starts(with: Array("bplist".utf8)) {
                // The checking pass and the one-key reads, on the file's own keys.
                binary += 1
                PropertyListCheckTests.agree(input, "input \(i)", probing: false)
            }
            // What was read is storable again, unchanged (binary keeps every value
            // exactly); XML may refuse what it cannot hold, with a typed error only.
            let again = try PropertyListCodec.read(PropertyListCodec.write(tree, format: .binary))
            #expect(again == tree, "input \(i) read, written and read again differs: \(input.base64EncodedString())")
            do {
                _ = try PropertyListCodec.write(tree, format: .xml)
            } catch { // a PropertyListError: the codec throws nothing else (typed throws)
                // A value XML cannot hold (a control character, a NaN date...): refused, as it should be.
            }
        }
        #expect(read > 0 && refused > 0)
        report("fuzz property-list codec: \(Load.fuzzInputs) mutated inputs (seed \(Load.seed ^ 0xC0DEC)), \(read) read (\(binary) binary, checked against the full read), \(refused) refused with a typed error, 0 crashes")
    }

    /// Old-style texts as `defaults write` takes them: nested collections, quoted
    /// strings with escapes and a surrogate pair, data, comments.
    static let oldStyleCorpus: [Data] = [
        #"{ name = Notes; count = 42; list = (a, "b c", <68656c6c6f>); nested = { k = v; }; }"#,
        #"( "caf\U00e9", "\UD83D\UDE00", "tab\tnewline\n", /* comment */ word_$+/:.- )"#,
        "// a comment\n{ \"\" = \"\"; empty = (); none = {}; }",
        #"( ((((1)))), (2, (3, (4))), "\"quoted\\" )"#,
    ].map { Data($0.utf8) }

    @Test("the old-style parser survives mutated text: a value or a typed PropertyListError, never a crash")
    func oldStyleParser() throws {
        var rng = SeededGenerator(seed: Load.seed ^ 0x01D5)
        var parsed = 0, refused = 0
        for _ in 0..<Load.fuzzInputs {
            let input = Mutation.mutate(Self.oldStyleCorpus, &rng)
            Mutation.keepForReplay(input)
            // Invalid UTF-8 becomes U+FFFD, as the tool's arguments are checked before.
            let text = String(decoding: input, as: UTF8.self)
            do {
                _ = try OldStyleParser.parse(text)
                parsed += 1
            } catch { // a PropertyListError: the codec throws nothing else (typed throws)
                refused += 1
            }
        }
        #expect(parsed > 0 && refused > 0)
        report("fuzz old-style parser: \(Load.fuzzInputs) mutated inputs (seed \(Load.seed ^ 0x01D5)), \(parsed) parsed, \(refused) refused with a typed error, 0 crashes")
    }
}
