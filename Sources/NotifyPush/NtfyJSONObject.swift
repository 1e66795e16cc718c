/// The members of one JSON object, as ntfy writes each event of its JSON
/// stream (Go's `encoding/json`): strings and whole numbers are kept; any
/// other value (`true`, `false`, `null`, a fraction, an array, an object)
/// is read to its end and kept only as ``Member/other``.
///
/// Pure and bounded (no Foundation, nesting at most ``maximumDepth``), so
/// that anything a server sends is either read or refused with a reason.
struct NtfyJSONObject: Equatable {
    /// A member's value, as far as ntfy's events need it.
    enum Member: Equatable {
        case string(String)
        case integer(Int64)
        case other
    }

    /// How deep arrays and objects may nest inside the object.
    static let maximumDepth = 32

    /// The members, by name (of a name given twice, the last, as Go keeps).
    private(set) var members: [String: Member] = [:]

    /// Reads `bytes`, which must hold exactly one object (whitespace around it allowed).
    ///
    /// - Throws: ``NtfyPushError`` saying what was wrong and where.
    init(parsing bytes: ArraySlice<UInt8>) throws(NtfyPushError) {
        var reader = Reader(bytes: bytes)
        reader.skipWhitespace()
        guard reader.peek == UInt8(ascii: "{") else { throw reader.failure("expected an object") }
        try reader.readObject(depth: 0) { name, member in members[name] = member }
        reader.skipWhitespace()
        guard reader.peek == nil else { throw reader.failure("more after the object") }
    }

    subscript(name: String) -> Member? { members[name] }
}

/// A cursor over the bytes of one JSON text.
private struct Reader {
    let bytes: ArraySlice<UInt8>
    var index: Int

    init(bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    var peek: UInt8? { index < bytes.endIndex ? bytes[index] : nil }

    func failure(_ what: String) -> NtfyPushError {
        NtfyPushError("malformed JSON at byte \(index - bytes.startIndex): \(what)")
    }

    mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    mutating func consume(_ byte: UInt8, _ what: String) throws(NtfyPushError) {
        skipWhitespace()
        guard peek == byte else { throw failure("expected \(what)") }
        index += 1
    }

    /// An object from its `{`: each member goes to `member` (nested ones are read and dropped by the caller).
    mutating func readObject(depth: Int, _ member: (String, NtfyJSONObject.Member) -> Void) throws(NtfyPushError) {
        index += 1
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let name = try readString()
            try consume(UInt8(ascii: ":"), "':'")
            member(name, try readValue(depth: depth + 1))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return
            default: throw failure("expected ',' or '}'")
            }
        }
    }

    mutating func readValue(depth: Int) throws(NtfyPushError) -> NtfyJSONObject.Member {
        guard depth <= NtfyJSONObject.maximumDepth else { throw failure("nested too deep") }
        skipWhitespace()
        switch peek {
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "{"):
            try readObject(depth: depth) { _, _ in }
            return .other
        case UInt8(ascii: "["):
            try readArray(depth: depth)
            return .other
        case UInt8(ascii: "t"): try readWord("true")
        case UInt8(ascii: "f"): try readWord("false")
        case UInt8(ascii: "n"): try readWord("null")
        case nil: throw failure("unexpected end")
        default: return try readNumber()
        }
        return .other
    }

    private mutating func readArray(depth: Int) throws(NtfyPushError) {
        index += 1
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            _ = try readValue(depth: depth + 1)
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return
            default: throw failure("expected ',' or ']'")
            }
        }
    }

    private mutating func readWord(_ word: StaticString) throws(NtfyPushError) {
        let count = word.utf8CodeUnitCount
        guard bytes.endIndex - index >= count,
            bytes[index..<index + count].elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: count))
        else { throw failure("unexpected character") }
        index += count
    }

    /// A number as JSON writes it: whole numbers that fit 64 bits are kept.
    private mutating func readNumber() throws(NtfyPushError) -> NtfyJSONObject.Member {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        while let byte = peek, (0x30...0x39).contains(byte) { index += 1 }
        let digits = index - integerStart
        guard digits > 0, digits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { throw failure("a malformed number") }
        var whole = true
        if peek == UInt8(ascii: ".") {
            index += 1
            whole = false
            try readDigits()
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            whole = false
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            try readDigits()
        }
        guard whole, let value = Int64(String(decoding: bytes[start..<index], as: UTF8.self)) else { return .other }
        return .integer(value)
    }

    private mutating func readDigits() throws(NtfyPushError) {
        let start = index
        while let byte = peek, (0x30...0x39).contains(byte) { index += 1 }
        guard index > start else { throw failure("a malformed number") }
    }

    /// A string from its opening quote, escapes resolved; it must be valid UTF-8.
    mutating func readString() throws(NtfyPushError) -> String {
        index += 1
        var text: [UInt8] = []
        while true {
            guard let byte = peek else { throw failure("an unterminated string") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(validating: text, as: UTF8.self) else { throw failure("a string that is not UTF-8") }
                return string
            case UInt8(ascii: "\\"): try readEscape(into: &text)
            case 0..<0x20: throw failure("a control character in a string")
            default: text.append(byte)
            }
        }
    }

    private mutating func readEscape(into text: inout [UInt8]) throws(NtfyPushError) {
        guard let byte = peek else { throw failure("an unterminated escape") }
        index += 1
        if let replacement = Self.escapes[byte] {
            text.append(replacement)
            return
        }
        guard byte == UInt8(ascii: "u") else { throw failure("an unknown escape") }
        var scalar = try readHex4()
        if (0xD800..<0xDC00).contains(scalar) {
            // A surrogate pair: the second half must follow at once.
            guard peek == UInt8(ascii: "\\") else { throw failure("half a surrogate pair") }
            index += 1
            guard peek == UInt8(ascii: "u") else { throw failure("half a surrogate pair") }
            index += 1
            let low = try readHex4()
            guard (0xDC00..<0xE000).contains(low) else { throw failure("half a surrogate pair") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw failure("half a surrogate pair") }
        UTF8.encode(unicode) { text.append($0) }
    }

    /// What each one-letter escape stands for.
    private static let escapes: [UInt8: UInt8] = [
        UInt8(ascii: "\""): 0x22, UInt8(ascii: "\\"): 0x5C, UInt8(ascii: "/"): 0x2F, UInt8(ascii: "b"): 0x08,
        UInt8(ascii: "f"): 0x0C, UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09,
    ]

    private mutating func readHex4() throws(NtfyPushError) -> UInt32 {
        guard bytes.endIndex - index >= 4 else { throw failure("a short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x41 + 10
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: throw failure("a malformed \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
