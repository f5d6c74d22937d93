import Foundation
import PropertyLists
import Testing

/// The XML reader at the edges of the numbers a property list holds: every integer
/// of the binary format's range (decimal, hex, negative hex, a leading +), and reals
/// whose text no 64-bit real is near. (What a suite stores from each kind of number
/// a caller hands over: SharedDefaultsTests' ExactNumberTests.)
@Suite("XML numbers at their edges")
struct XMLNumberTests {
    @Test("the XML reader reads every integer a property list holds, hex and negative hex included, and refuses a real whose text no 64-bit real is near")
    func xmlNumbersAtTheirEdges() throws {
        func read(_ element: String) throws -> PropertyListTree {
            try XMLPropertyListReader.read(Data("<plist version=\"1.0\">\(element)</plist>".utf8))
        }
        #expect(try read("<integer>-0x8000000000000000</integer>") == .integer(.signed(Int64.min)))
        #expect(try read("<integer>-0x1</integer>") == .integer(.signed(-1)))
        #expect(try read("<integer>0xFFFFFFFFFFFFFFFF</integer>") == .integer(.unsigned(UInt64.max)))
        #expect(try read("<integer>+18446744073709551615</integer>") == .integer(.unsigned(UInt64.max)))
        #expect(throws: PropertyListError.self) { try read("<integer>-0x8000000000000001</integer>") }
        #expect(throws: PropertyListError.self) { try read("<integer>18446744073709551616</integer>") }
        #expect(try read("<real>-0</real>") == .real(-0.0))
        #expect(try read("<real>4.9406564584124654e-324</real>") == .real(.leastNonzeroMagnitude))
        #expect(try read("<real>0e999</real>") == .real(0))
        for word in ["+infinity", "infinity", "inf", "-infinity", "-inf", "nan", "-nan"] {
            #expect(throws: Never.self, "\(word)") { try read("<real>\(word)</real>") }
        }
        for text in ["1e400", "-1e400", "1e-400", "-0.5e-400", "0x1p-1100"] {
            do {
                _ = try read("<real>\(text)</real>")
                Issue.record("<real>\(text)</real> was read")
            } catch let error as PropertyListError {
                #expect(error.message.contains(text) && error.message.contains("at byte"), "\(error)")
            }
        }
    }
}
