/// A Swift type with a fixed D-Bus type, convertible to and from
/// ``DBusValue``.
///
/// Basic Swift types, arrays and dictionaries of representable types, and
/// ``DBusValue`` itself (as `v`, so `[String: DBusValue]` is `a{sv}`)
/// conform.
public protocol DBusRepresentable {
    /// The D-Bus type of every value of this Swift type.
    static var dbusType: DBusType { get }
    /// Converts a D-Bus value, or throws `InvalidArgs` if it is of another type.
    init(dbusValue: DBusValue) throws(DBusError)
    /// The value in D-Bus form.
    var dbusValue: DBusValue { get }
}

extension DBusRepresentable {
    static func mismatch(_ value: DBusValue) -> DBusError {
        .invalidArgs("expected a value of type '\(dbusType)', got '\(value.signature)'")
    }
}

extension UInt8: DBusRepresentable {
    public static var dbusType: DBusType { .byte }
    public init(dbusValue: DBusValue) throws(DBusError) {
        guard case .byte(let v) = dbusValue else { throw Self.mismatch(dbusValue) }
        self = v
    }
    public var dbusValue: DBusValue { .byte(self) }
}

extension Bool: DBusRepresentable {
    public static var dbusType: DBusType { .boolean }
    public init(dbusValue: DBusValue) throws(DBusError) {
        guard case .boolean(let v) = dbusValue else { throw Self.mismatch(dbusValue) }
        self = v
    }
    public var dbusValue: DBusValue { .boolean(self) }
}

extension Int16: DBusRepresentable {
    public static var dbusType: DBusType { .int16 }
    public init(dbusValue: DBusValue) throws(DBusError) {
        guard case .int16(let v) = dbusValue else { throw Self.mismatch(dbusValue) }
        self = v
    }
    public var dbusValue: DBusValue { .int16(self) }
}

extension UInt16: DBusRepresentable {
    public static var dbusType: DBusType { .uint16 }
    public init(dbusValue: DBusValue) throws(DBusError) {
        guard case .uint16(let v) = dbusValue else { throw Self.mismatch(dbusValue) }
        self = v
    }
    public var dbusValue: DBusValue { .uint16(self) }
}

extension Int32: DBusRepresentable {
    public static var dbusType: DBusType { .int32 }
    public init(dbusValue: DBusValue) throws(DBusError) {
        guard case .int32(let v) = dbusValue else { throw Self.mismatch(dbusValue) }
        self = v
    }
    public var dbusValue: DBusValue { .int32(self) }
}

extension UInt32: DBusRepresentable {
    public static var dbusType: DBusType { .uint32 }
    public init(dbusValue: DBusValue) throws(DBusError) {
        guard case .uint32(let v) = dbusValue else { throw Self.mismatch(dbusValue) }
        self = v
    }
    public var dbusValue: DBusValue { .uint32(self) }
}

extension Int64: DBusRepresentable {
    public static var dbusType: DBusType { .int64 }
    public init(dbusValue: DBusValue) throws(DBusError) {
        guard case .int64(let v) = dbusValue else { throw Self.mismatch(dbusValue) }
        self = v
    }
    public var dbusValue: DBusValue { .int64(self) }
}

extension UInt64: DBusRepresentable {
    public static var dbusType: DBusType { .uint64 }
    public init(dbusValue: DBusValue) throws(DBusError) {
        guard case .uint64(let v) = dbusValue else { throw Self.mismatch(dbusValue) }
        self = v
    }
    public var dbusValue: DBusValue { .uint64(self) }
}

extension Double: DBusRepresentable {
    public static var dbusType: DBusType { .double }
    public init(dbusValue: DBusValue) throws(DBusError) {
        guard case .double(let v) = dbusValue else { throw Self.mismatch(dbusValue) }
        self = v
    }
    public var dbusValue: DBusValue { .double(self) }
}

extension String: DBusRepresentable {
    public static var dbusType: DBusType { .string }
    public init(dbusValue: DBusValue) throws(DBusError) {
        switch dbusValue {
        case .string(let v), .objectPath(let v), .signature(let v): self = v
        default: throw Self.mismatch(dbusValue)
        }
    }
    public var dbusValue: DBusValue { .string(self) }
}

extension DBusValue: DBusRepresentable {
    public static var dbusType: DBusType { .variant }
    /// Unwraps a variant; any other value is taken as it is.
    public init(dbusValue: DBusValue) throws(DBusError) {
        if case .variant(let inner) = dbusValue { self = inner } else { self = dbusValue }
    }
    public var dbusValue: DBusValue { .variant(self) }
}

extension Array: DBusRepresentable where Element: DBusRepresentable {
    public static var dbusType: DBusType { .array(Element.dbusType) }
    public init(dbusValue: DBusValue) throws(DBusError) {
        guard case .array(_, let values) = dbusValue else { throw Self.mismatch(dbusValue) }
        var result: [Element] = []
        result.reserveCapacity(values.count)
        for value in values { result.append(try Element(dbusValue: value)) }
        self = result
    }
    public var dbusValue: DBusValue { .array(element: Element.dbusType, map(\.dbusValue)) }
}

extension Dictionary: DBusRepresentable where Key: DBusRepresentable, Value: DBusRepresentable {
    public static var dbusType: DBusType { .dictionary(key: Key.dbusType, value: Value.dbusType) }
    public init(dbusValue: DBusValue) throws(DBusError) {
        guard case .dictionary(_, _, let entries) = dbusValue else { throw Self.mismatch(dbusValue) }
        var result: [Key: Value] = [:]
        for entry in entries {
            result[try Key(dbusValue: entry.key)] = try Value(dbusValue: entry.value)
        }
        self = result
    }
    /// Entries in key order when keys are strings, so the wire form is stable.
    public var dbusValue: DBusValue {
        var entries = map { DBusDictionaryEntry(key: $0.key.dbusValue, value: $0.value.dbusValue) }
        entries.sort { lhs, rhs in
            if case .string(let l) = lhs.key, case .string(let r) = rhs.key { return l < r }
            return false
        }
        return .dictionary(key: Key.dbusType, value: Value.dbusType, entries)
    }
}

extension Array where Element == DBusValue {
    /// The argument at `index` as a Swift type, or `InvalidArgs`.
    public func decode<T: DBusRepresentable>(_ index: Int, as type: T.Type = T.self) throws(DBusError) -> T {
        guard indices.contains(index) else {
            throw .invalidArgs("argument \(index) is missing")
        }
        return try T(dbusValue: self[index])
    }
}
