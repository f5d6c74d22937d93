import Foundation
import PropertyLists
import Testing

/// The old-style (OpenStep) text and plutil's text, called directly (AppGroupCLITests
/// run them through the built appgroup tool): what `defaults write` parses, what
/// `defaults read` and `plutil -p` print, and the JSON `plutil -convert json` makes.
@Suite("Old-style text and plutil's text")
struct OldStyleTextTests {
    @Test("the parser reads arrays, dictionaries, data, quoted strings with escapes and comments; every other leaf is a string")
    func parses() throws {
        let value = try OldStyleParser.parse(#"{ n = (1, "two words", <68656c 6c6f>); "caf\U00e9" = "\UD83D\UDE00\n"; /* c */ e = {}; } // end"#)
        let dictionary = try #require(value as? [String: Any])
        #expect(dictionary.count == 3)
        let list = try #require(dictionary["n"] as? [Any])
        #expect(list.count == 3)
        #expect(list[0] as? String == "1", "leaves are strings, as in the format")
        #expect(list[1] as? String == "two words")
        #expect(list[2] as? Data == Data("hello".utf8))
        #expect(dictionary["caf\u{E9}"] as? String == "\u{1F600}\n")
        #expect((dictionary["e"] as? [String: Any])?.isEmpty == true)
        #expect(OldStyleParser.looksLikePropertyList("  (a)") && OldStyleParser.looksLikePropertyList("{}"))
        #expect(!OldStyleParser.looksLikePropertyList("plain") && !OldStyleParser.looksLikePropertyList(""))
    }

    @Test("the parser refuses with a typed error saying what and at which character: twin keys, a lone surrogate, too deep, trailing text")
    func refuses() {
        let cases: [(text: String, says: String)] = [
            ("{ \"caf\u{E9}\" = 1; \"cafe\u{301}\" = 2; }", "differ only in Unicode normalization"),
            ("( \u{E9}t\u{E9} )", "quote strings that hold it"),
            (#"( "\UD83D" )"#, "half of a surrogate pair"),
            (String(repeating: "(", count: OldStyleParser.maximumDepth + 1), "nest more than \(OldStyleParser.maximumDepth)"),
            ("(a) b", "unexpected text after the value"),
            ("(a, <6g>)", "is not hex data"),
            ("{ k = v }", "expected ';'"),
        ]
        for (text, says) in cases {
            do {
                _ = try OldStyleParser.parse(text)
                Issue.record("\(text) was parsed")
            } catch { // a PropertyListError: the parser throws nothing else (typed throws)
                #expect(error.message.contains(says) && error.message.contains("(at character "), "\(text): \(error.message)")
            }
        }
    }

    @Test("defaults' text: bare words unquoted, others quoted and escaped, keys sorted, data in hex, reals without a needless .0")
    func oldStyleRendering() {
        let value: [String: Any] = ["b": [1, 2.5, 2.0], "a_1": "two words", "d": Data([0xAB, 0x01]), "q": "say \"hi\"\n"]
        #expect(OldStylePlist.render(value) == """
            {
                a_1 = "two words";
                b = (
                    1,
                    2.5,
                    2
                );
                d = {length = 2, bytes = 0xab01};
                q = "say \\"hi\\"\\n";
            }
            """)
        #expect(OldStylePlist.renderTopLevel("bare text") == "bare text")
        #expect(OldStylePlist.renderTopLevel(Date(timeIntervalSince1970: 0)) == "1970-01-01 00:00:00 +0000")
        #expect(OldStylePlist.data(hex: "0x68 65 <6c6c6f>") == Data("hello".utf8))
        #expect(OldStylePlist.data(hex: "abc") == nil && OldStylePlist.data(hex: "zz") == nil)
        #expect(OldStylePlist.ValueType(true) == .boolean && OldStylePlist.ValueType(1) == .integer && OldStylePlist.ValueType(1.5) == .float)
        #expect(OldStylePlist.kind(of: [1]) == "an array")
    }

    @Test("plutil's text keeps file order and both twin keys; its JSON refuses dates, data and twins, naming where")
    func plutilText() throws {
        var dictionary = PropertyListDictionary()
        dictionary.set(.integer(.unsigned(UInt64.max)), forKey: "z")
        dictionary.set(.bool(true), forKey: "caf\u{E9}")
        dictionary.set(.array([.real(1.5), .data(Data(repeating: 7, count: 30))]), forKey: "cafe\u{301}")
        #expect(PlutilText.render(.dictionary(dictionary)) == """
            {
              "z" => 18446744073709551615
              "caf\u{E9}" => true
              "cafe\u{301}" => [
                0 => 1.5
                1 => {length = 30, bytes = 0x0707070707070707 ... 0707070707070707}
              ]
            }
            """)
        #expect(throws: PropertyListError.self) { try PlutilText.jsonObject(.dictionary(dictionary)) }
        do {
            _ = try PlutilText.jsonObject(.array([.string("a"), .date(0)]))
            Issue.record("a date became JSON")
        } catch {
            #expect(error.message.contains("/1") && error.message.contains("date"), "\(error.message)")
        }
        let json = try PlutilText.jsonObject(.array([.string("a"), .integer(.signed(-1)), .bool(false)]))
        #expect((json as? [Any])?.count == 3)
    }
}
