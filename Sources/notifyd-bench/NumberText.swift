import NotifyCore

/// Number and string formatting without Foundation.
enum NumberText {
    /// `value` with exactly `decimals` digits after the point, rounded half
    /// away from zero: `fixed(1.2345, decimals: 2)` is `1.23`.
    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else { return "\(value)" }
        let digits = UInt64(scaled)
        let whole = digits / UInt64(scale)
        let sign = value < 0 && digits != 0 ? "-" : ""
        guard decimals > 0 else { return "\(sign)\(whole)" }
        var fraction = String(digits % UInt64(scale))
        fraction = String(repeating: "0", count: decimals - fraction.count) + fraction
        return "\(sign)\(whole).\(fraction)"
    }

    /// A whole number without decimals, anything else with three: `30`, `0.5`.
    static func compact(_ value: Double) -> String {
        guard value.rounded() != value else { return fixed(value, decimals: 0) }
        var text = fixed(value, decimals: 3)
        while text.last == "0" { text.removeLast() }
        return text
    }

    /// A whole number with its thousands grouped: `100,001`.
    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value.magnitude))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return value < 0 ? "-" + text : text
    }

    /// A JSON number, or `null` for a missing or non-finite one.
    static func json(_ value: Double?, decimals: Int = 3) -> String {
        guard let value, value.isFinite else { return "null" }
        return fixed(value, decimals: decimals)
    }

    /// A JSON string literal, quoted and escaped (``JSONString``), or `null`.
    static func json(_ text: String?) -> String {
        text.map(JSONString.quoted) ?? "null"
    }

    /// `text` padded with spaces to `width` characters.
    static func padded(_ text: String, _ width: Int, alignRight: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return alignRight ? padding + text : text + padding
    }
}
