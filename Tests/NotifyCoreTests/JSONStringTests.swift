import NotifyCore
import Testing

/// The one JSON string escaping of notifyctl, the benchmark and the fuzzer.
@Suite struct JSONStringTests {
    @Test func quotesBackslashesAndControlsAreEscaped() {
        #expect(JSONString.quoted("\"\\\n\r\t\u{08}\u{0C}\u{01}\u{1F}") == #""\"\\\n\r\t\b\f\u0001\u001f""#)
    }

    /// Valid JavaScript too: the line and paragraph separators are escaped.
    @Test func lineAndParagraphSeparatorsAreEscaped() {
        #expect(JSONString.quoted("\u{2028}\u{2029}") == #""\u2028\u2029""#)
    }

    @Test func everythingElseIsKept() {
        let text = "plain / ünïcode \u{7F} \u{85} \u{2027} \u{FEFF} 📦"
        #expect(JSONString.quoted(text) == "\"\(text)\"")
    }
}
