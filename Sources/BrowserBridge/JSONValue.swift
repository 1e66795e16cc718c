/// A JSON value, as the browser sends it in a native message.
///
/// Parsed without Foundation (``JSONValue/parse(_:)``): the host starts
/// with every browser window and should stay small.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members[key]
    }

    /// The string, or nil for any other value.
    public var string: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The number, or nil for any other value.
    public var number: Double? {
        guard case .number(let value) = self else { return nil }
        return value
    }

    /// The boolean, or nil for any other value.
    public var bool: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// Parses one JSON text (RFC 8259), nested at most 64 deep.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("text after the value") }
        return value
    }
}

/// Why a message is not JSON, with the byte offset where it went wrong.
public struct JSONParseError: Error, Equatable, CustomStringConvertible {
    public let reason: String
    public let offset: Int
    public var description: String { "not JSON: \(reason) at byte \(offset)" }
}
