import NotifyCore

/// A JSON value as notifyctl prints it with `--json`.
///
/// A hand-written writer instead of Foundation's `JSONEncoder`: notifyctl
/// must start in milliseconds, and its output is a handful of flat values.
/// Objects keep their members in the order given, so the output is stable
/// (commands sort what they list). The text is compact, on one line, and
/// valid RFC 8259 JSON.
enum JSON {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    /// A number; NaN and the infinities, which JSON cannot express, are written as `null`.
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(key: String, value: JSON)])

    /// The value as compact JSON text.
    var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Appends the value's JSON text to `out`.
    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .uint(let value): out += String(value)
        case .double(let value): out += value.isFinite ? "\(value)" : "null"
        case .string(let value): JSON.writeString(value, to: &out)
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += "," }
                element.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                JSON.writeString(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }

    /// Writes a JSON string: quotes, backslashes and control characters
    /// escaped (RFC 8259 section 7), plus U+2028 and U+2029 so the output is
    /// also valid JavaScript. Everything else is written as UTF-8.
    static func writeString(_ value: String, to out: inout String) {
        out += JSONString.quoted(value)
    }
}

extension JSON {
    /// An object of counts keyed by app, in app order: `{"app": count, ...}`.
    static func counts(_ counts: [String: UInt32]) -> JSON {
        .object(counts.sorted { $0.key < $1.key }.map { (key: $0.key, value: .uint(UInt64($0.value))) })
    }

    /// An array of strings.
    static func strings(_ values: [String]) -> JSON {
        .array(values.map { .string($0) })
    }
}
