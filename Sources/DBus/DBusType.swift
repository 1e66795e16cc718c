/// One complete D-Bus type, as a tree.
///
/// ``DBusType/parse(_:)`` reads a signature into a list of complete types
/// and refuses anything the D-Bus specification does not allow: unknown
/// codes, unbalanced containers, dictionary entries outside arrays,
/// non-basic dictionary keys, empty structs, and nesting deeper than 32
/// arrays or 32 structs.
public indirect enum DBusType: Hashable, Sendable, CustomStringConvertible {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature, unixFD
    case variant
    case array(DBusType)
    case dictionary(key: DBusType, value: DBusType)
    case structure([DBusType])

    /// The type's signature, e.g. `a{sv}`.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .variant: "v"
        case .array(let element): "a" + element.signature
        case .dictionary(let key, let value): "a{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }

    public var description: String { signature }

    /// Whether the type is basic (may be a dictionary key).
    public var isBasic: Bool {
        switch self {
        case .variant, .array, .dictionary, .structure: false
        default: true
        }
    }

    /// The signature of a list of types, e.g. the arguments of a method.
    public static func signature(of types: [DBusType]) -> String {
        types.map(\.signature).joined()
    }

    /// Parses a signature into its complete types.
    ///
    /// - Throws: ``DBusError`` `InvalidSignature` naming what is wrong.
    public static func parse(_ signature: String) throws(DBusError) -> [DBusType] {
        var parser = SignatureParser(Array(signature.utf8), text: signature)
        return try parser.parseAll()
    }

    /// Parses a signature that must hold exactly one complete type.
    public static func parseSingle(_ signature: String) throws(DBusError) -> DBusType {
        let types = try parse(signature)
        guard types.count == 1 else {
            throw DBusError(
                DBusError.Name.invalidSignature,
                "signature '\(signature)' must be exactly one complete type, it has \(types.count)")
        }
        return types[0]
    }
}

/// A recursive-descent reader of D-Bus signatures.
private struct SignatureParser {
    static let maxSignatureLength = 255
    static let maxDepth = 32

    let bytes: [UInt8]
    let text: String
    var index = 0
    var arrayDepth = 0
    var structDepth = 0

    init(_ bytes: [UInt8], text: String) {
        self.bytes = bytes
        self.text = text
    }

    func fail(_ why: String) -> DBusError {
        DBusError(DBusError.Name.invalidSignature, "invalid signature '\(text)': \(why)")
    }

    mutating func parseAll() throws(DBusError) -> [DBusType] {
        guard bytes.count <= Self.maxSignatureLength else {
            throw fail("longer than \(Self.maxSignatureLength) bytes")
        }
        var types: [DBusType] = []
        while index < bytes.count { types.append(try parseOne()) }
        return types
    }

    mutating func parseOne() throws(DBusError) -> DBusType {
        guard index < bytes.count else { throw fail("ends in the middle of a type") }
        let code = bytes[index]
        index += 1
        switch code {
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "b"): return .boolean
        case UInt8(ascii: "n"): return .int16
        case UInt8(ascii: "q"): return .uint16
        case UInt8(ascii: "i"): return .int32
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "o"): return .objectPath
        case UInt8(ascii: "g"): return .signature
        case UInt8(ascii: "h"): return .unixFD
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "a"): return try parseArray()
        case UInt8(ascii: "("): return try parseStruct()
        default:
            throw fail("unexpected '\(Unicode.Scalar(code))' at offset \(index - 1)")
        }
    }

    mutating func parseArray() throws(DBusError) -> DBusType {
        arrayDepth += 1
        defer { arrayDepth -= 1 }
        guard arrayDepth <= Self.maxDepth else { throw fail("arrays nested deeper than \(Self.maxDepth)") }
        guard index < bytes.count else { throw fail("array has no element type") }
        guard bytes[index] == UInt8(ascii: "{") else { return .array(try parseOne()) }
        index += 1
        let key = try parseOne()
        guard key.isBasic else { throw fail("dictionary key must be a basic type, not '\(key)'") }
        let value = try parseOne()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "}") else {
            throw fail("dictionary entry must hold exactly a key and a value")
        }
        index += 1
        return .dictionary(key: key, value: value)
    }

    mutating func parseStruct() throws(DBusError) -> DBusType {
        structDepth += 1
        defer { structDepth -= 1 }
        guard structDepth <= Self.maxDepth else { throw fail("structs nested deeper than \(Self.maxDepth)") }
        var fields: [DBusType] = []
        while true {
            guard index < bytes.count else { throw fail("struct is not closed") }
            if bytes[index] == UInt8(ascii: ")") {
                index += 1
                break
            }
            fields.append(try parseOne())
        }
        guard !fields.isEmpty else { throw fail("empty struct") }
        return .structure(fields)
    }
}
