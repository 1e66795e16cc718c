/// JSON string literals, as notifyctl, the benchmark and the fuzzer write
/// them: one escaping for all.
public enum JSONString {
    /// `text` quoted, with quotes, backslashes and control characters
    /// escaped (RFC 8259 section 7), plus U+2028 and U+2029 so the output
    /// is also valid JavaScript. Everything else is kept as is.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{00}"..."\u{1F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
