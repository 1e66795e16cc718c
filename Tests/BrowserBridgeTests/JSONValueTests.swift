import Testing

@testable import BrowserBridge

@Suite struct JSONValueTests {
    func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test func parsesWhatTheExtensionSends() throws {
        let value = try parse(#"{"type":"download","download":{"id":3,"bytesReceived":1.5e3,"incognito":false,"error":null,"list":[1,"a",true]}}"#)
        #expect(value["type"] == .string("download"))
        #expect(value["download"]?["id"] == .number(3))
        #expect(value["download"]?["bytesReceived"] == .number(1500))
        #expect(value["download"]?["incognito"] == .bool(false))
        #expect(value["download"]?["error"] == .null)
        #expect(value["download"]?["list"] == .array([.number(1), .string("a"), .bool(true)]))
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        #expect(try parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#) == .string("a\"b\\c/d\n\té😀"))
        #expect(try parse(#""\ud83d""#) == .string("\u{FFFD}"), "a lone surrogate becomes U+FFFD")
        #expect(try parse(#""tête à tête""#) == .string("tête à tête"))
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\"}", "{\"a\":1,}", "tru", "nul", "01x", "+1", "\"abc", "\"a\u{01}b\"", "\"\\x\"",
        "1 2", "{\"a\":1} x", "NaN", "1e999",
    ])
    func refusesWhatIsNotJSON(_ text: String) {
        #expect(throws: JSONParseError.self) { try parse(text) }
    }

    @Test func refusesNestingPastTheLimit() throws {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        let error = #expect(throws: JSONParseError.self) { try parse(deep) }
        #expect(error?.reason == "nested too deep")
        let fine = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        #expect(throws: Never.self) { try parse(fine) }
    }
}
