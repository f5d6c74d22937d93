import AppGroupContainer
import AppGroupTesting
import Foundation
import PropertyLists
import Testing
@testable import SharedDefaults
import TestSupport

/// Numbers reach a suite exactly or not at all: an integer above
/// Int64.max (which Apple's NSNumber holds and binary property lists store in their
/// 16-byte form) stays that integer, never a real; reals keep their bits.
@Suite(.dedicatedThreads) struct ExactNumberTests {
    /// The value as stored in the suite's file.
    static func stored(_ defaults: SharedDefaults, _ key: String) throws -> PropertyListTree? {
        guard case .dictionary(let suite) = try PropertyListCodec.read(Data(contentsOf: defaults.fileURL)) else { return nil }
        return suite[key]
    }

    @Test("UInt64.max given as NSNumber, UInt64 or UInt is stored as the integer 18446744073709551615 and read back as it (as? UInt64), nested too")
    func integersAboveInt64Max() throws {
        let device = try Device()
        let defaults = try device.defaults()
        try defaults.save(NSNumber(value: UInt64.max), forKey: "number")
        // Checked at once: this one was silently stored as the real 1.8446744073709552e19.
        #expect(try Self.stored(defaults, "number") == .integer(.unsigned(UInt64.max)))
        try defaults.save(UInt64.max, forKey: "uint64")
        try defaults.save(UInt.max, forKey: "uint")
        try defaults.save([NSNumber(value: UInt64(Int64.max) + 1), ["u": UInt64.max] as [String: Any]] as [Any], forKey: "nested")
        let reader = try device.defaults(as: device.share)
        for key in ["number", "uint64", "uint"] {
            #expect(try Self.stored(defaults, key) == .integer(.unsigned(UInt64.max)), "\(key) in the file")
            #expect(try reader.load(forKey: key) as? UInt64 == UInt64.max, "\(key) read back")
            #expect(reader.string(forKey: key) == "18446744073709551615")
            #expect(reader.double(forKey: key) == Double(UInt64.max))
            // Out of Int's range: integer(forKey:) gives 0, as for a real out of range.
            #expect(reader.integer(forKey: key) == 0)
            #expect(reader.bool(forKey: key))
        }
        #expect(try Self.stored(defaults, "nested") == .array([.integer(.unsigned(1 << 63)),
                                                               .dictionary({ var d = PropertyListDictionary(); d.set(.integer(.unsigned(UInt64.max)), forKey: "u"); return d }())]))
        let nested = try #require(reader.array(forKey: "nested"))
        #expect(nested.first as? UInt64 == 1 << 63)
        #expect((nested.last as? [String: Any])?["u"] as? UInt64 == UInt64.max)
        // UserDefaults hands it out as NSNumber, as Apple's does.
        let user = try UserDefaults(requiringSuiteName: Device.group, resolver: device.resolver(device.share))
        #expect((user.object(forKey: "number") as? NSNumber)?.uint64Value == UInt64.max)
        #expect(user.object(forKey: "number") as? UInt64 == UInt64.max)
    }

    @Test("a Codable value holding UInt64.max and -0.0 is stored and decoded exactly")
    func codableNumbers() throws {
        struct Limits: Codable, Equatable { var top: UInt64; var bottom: Int64; var zero: Double }
        let device = try Device()
        let defaults = try device.defaults()
        let limits = Limits(top: .max, bottom: .min, zero: -0.0)
        try defaults.set(codable: limits, forKey: "limits")
        let back = try #require(try device.defaults(as: device.share).value(Limits.self, forKey: "limits"))
        #expect(back == limits && back.zero.bitPattern == (-0.0 as Double).bitPattern)
        guard case .dictionary(let stored)? = try Self.stored(defaults, "limits") else {
            Issue.record("not stored as a dictionary")
            return
        }
        #expect(stored["top"] == .integer(.unsigned(UInt64.max)) && stored["bottom"] == .integer(.signed(Int64.min)))
    }

    /// A seeded number as a caller may hand it over, and the stored form it must take.
    static func number(_ rng: inout SeededGenerator) -> (value: Any, expected: PropertyListTree) {
        let bits = UInt64.random(in: 0...UInt64.max, using: &rng)
        let edges: [UInt64] = [0, 1, UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64.max, UInt64.max - 1, 1 << 53, (1 << 53) + 1]
        let u = Bool.random(using: &rng) ? edges.randomElement(using: &rng)! : bits
        let i = Int64(bitPattern: u)
        let d = Double(bitPattern: bits)
        let f = Float(bitPattern: UInt32(truncatingIfNeeded: bits))
        switch Int.random(in: 0..<12, using: &rng) {
        case 0: return (NSNumber(value: u), .integer(PropertyListInteger(u)))
        case 1: return (u, .integer(PropertyListInteger(u)))
        case 2: return (UInt(u), .integer(PropertyListInteger(u)))
        case 3: return (NSNumber(value: i), .integer(.signed(i)))
        case 4: return (Int(i), .integer(.signed(i)))
        case 5: return (i, .integer(.signed(i)))
        case 6: return (Int32(truncatingIfNeeded: i), .integer(.signed(Int64(Int32(truncatingIfNeeded: i)))))
        case 7: return (UInt32(truncatingIfNeeded: u), .integer(.signed(Int64(UInt32(truncatingIfNeeded: u)))))
        case 8: return (d, .real(d))
        case 9: return (NSNumber(value: d), .real(d))
        case 10: return (f, .real(Double(f)))
        default:
            let zero = Bool.random(using: &rng) ? -0.0 : 0.0
            return (zero, .real(zero))
        }
    }

    @Test("2,000 seeded numbers of every Swift and NSNumber type are stored exactly (integers by value, reals by bits), read back exactly in another process's view, and never change kind")
    func seededNumbers() throws {
        let device = try Device()
        let defaults = try device.defaults()
        var rng = SeededGenerator(seed: 23)
        var expected: [(String, PropertyListTree)] = []
        try defaults.transaction { suite in
            for index in 0..<2_000 {
                let (value, tree) = Self.number(&rng)
                try suite.set(value, forKey: "n\(index)")
                expected.append(("n\(index)", tree))
            }
        }
        guard case .dictionary(let file) = try PropertyListCodec.read(Data(contentsOf: defaults.fileURL)) else {
            Issue.record("the suite is not a dictionary")
            return
        }
        let reader = try device.defaults(as: device.share)
        for (key, tree) in expected {
            #expect(file[key] == tree, "\(key) in the file: \(String(describing: file[key])), expected \(tree)")
            let back = try reader.load(forKey: key)
            switch tree {
            case .integer(.signed(let v)): #expect(back as? Int == Int(v) && !(back is Double), "\(key): \(String(describing: back))")
            case .integer(.unsigned(let v)): #expect(back as? UInt64 == v && !(back is Double), "\(key): \(String(describing: back))")
            case .real(let r): #expect((back as? Double)?.bitPattern == r.bitPattern || (r.isNaN && (back as? Double)?.isNaN == true), "\(key): \(String(describing: back))")
            default: Issue.record("\(key): unexpected \(tree)")
            }
        }
    }
}
