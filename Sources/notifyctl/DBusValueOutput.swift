import DBus

extension JSON {
    /// A D-Bus value as JSON, the natural way: strings (object paths and
    /// signatures too) as strings, numbers as numbers, booleans as booleans,
    /// arrays and structures as arrays, dictionaries (`a{sv}` above all) as
    /// objects in their wire order, variants as what they hold, a file
    /// descriptor as its number.
    static func dbus(_ value: DBusValue) -> JSON {
        switch value {
        case .byte(let v): .uint(UInt64(v))
        case .boolean(let v): .bool(v)
        case .int16(let v): .int(Int64(v))
        case .uint16(let v): .uint(UInt64(v))
        case .int32(let v): .int(Int64(v))
        case .uint32(let v): .uint(UInt64(v))
        case .int64(let v): .int(v)
        case .uint64(let v): .uint(v)
        case .double(let v): .double(v)
        case .string(let v), .objectPath(let v), .signature(let v): .string(v)
        case .unixFD(let descriptor): .int(Int64(descriptor.fd))
        case .variant(let inner): dbus(inner)
        case .array(_, let elements), .structure(let elements): .array(elements.map(dbus))
        case .dictionary(_, _, let entries):
            .object(entries.map { (key: DBusValueText.keyText($0.key), value: dbus($0.value)) })
        }
    }
}

/// D-Bus values as compact text for people: one token per value, no line
/// breaks, nothing a terminal would act on.
///
/// `firefox`, `3`, `true`, `"two words"`, `[a,b]`, `{kind=finished,title=x.iso}`,
/// `(a,1)`. A string is written bare when it is a plain word and quoted
/// otherwise; control characters are escaped as `\u{…}`.
enum DBusValueText {
    static func text(_ value: DBusValue) -> String {
        switch value {
        case .byte(let v): String(v)
        case .boolean(let v): v ? "true" : "false"
        case .int16(let v): String(v)
        case .uint16(let v): String(v)
        case .int32(let v): String(v)
        case .uint32(let v): String(v)
        case .int64(let v): String(v)
        case .uint64(let v): String(v)
        case .double(let v): "\(v)"
        case .string(let v), .objectPath(let v), .signature(let v): word(v)
        case .unixFD(let descriptor): "fd\(descriptor.fd)"
        case .variant(let inner): text(inner)
        case .array(_, let elements): "[" + elements.map(text).joined(separator: ",") + "]"
        case .structure(let fields): "(" + fields.map(text).joined(separator: ",") + ")"
        case .dictionary(_, _, let entries):
            "{" + entries.map { word(keyText($0.key)) + "=" + text($0.value) }.joined(separator: ",") + "}"
        }
    }

    /// A dictionary key as a JSON object key: a string as it is, anything
    /// else as its text.
    static func keyText(_ key: DBusValue) -> String {
        switch key {
        case .string(let v), .objectPath(let v), .signature(let v): v
        default: text(key)
        }
    }

    /// A string as one token: bare when it is a non-empty plain word,
    /// else in double quotes with `"`, `\` and control characters escaped.
    static func word(_ string: String) -> String {
        if !string.isEmpty && string.unicodeScalars.allSatisfy(isPlain) { return string }
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if isControl(scalar) {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// Not a space, control character, quote, backslash or one of the
    /// characters that delimit values (`=,[]{}()`).
    private static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        guard !isControl(scalar), !scalar.properties.isWhitespace else { return false }
        return !"\"\\=,[]{}()".unicodeScalars.contains(scalar)
    }

    /// C0 and C1 control characters, DEL, and the line and paragraph separators.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028
            || scalar.value == 0x2029
    }
}
