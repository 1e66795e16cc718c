/// A value of any D-Bus type.
///
/// Containers carry their element types so that empty arrays and
/// dictionaries still have a signature. Dictionaries keep their entries in
/// order; `a{sv}` is `.dictionary(key: .string, value: .variant, ...)` whose
/// values are `.variant(...)`.
public indirect enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    case unixFD(DBusFileDescriptor)
    case variant(DBusValue)
    case array(element: DBusType, [DBusValue])
    case dictionary(key: DBusType, value: DBusType, [DBusDictionaryEntry])
    case structure([DBusValue])

    /// The value's complete type.
    public var type: DBusType {
        switch self {
        case .byte: .byte
        case .boolean: .boolean
        case .int16: .int16
        case .uint16: .uint16
        case .int32: .int32
        case .uint32: .uint32
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .objectPath: .objectPath
        case .signature: .signature
        case .unixFD: .unixFD
        case .variant: .variant
        case .array(let element, _): .array(element)
        case .dictionary(let key, let value, _): .dictionary(key: key, value: value)
        case .structure(let fields): .structure(fields.map(\.type))
        }
    }

    /// The signature of the value's type.
    public var signature: String { type.signature }

    /// A dictionary of variants, `a{sv}`, from Swift pairs (sorted by key so
    /// the wire form is stable).
    public static func vardict(_ entries: [String: DBusValue]) -> DBusValue {
        .dictionary(
            key: .string, value: .variant,
            entries.sorted { $0.key < $1.key }.map {
                DBusDictionaryEntry(key: .string($0.key), value: .variant($0.value))
            })
    }

    /// The entries of an `a{sv}` by key, each value taken out of its
    /// variant: the reading side of ``vardict(_:)``. Nil for any other value.
    public var vardictEntries: [String: DBusValue]? {
        guard case .dictionary(.string, .variant, let entries) = self else { return nil }
        var fields: [String: DBusValue] = [:]
        for entry in entries {
            guard case .string(let key) = entry.key else { continue }
            if case .variant(let inner) = entry.value { fields[key] = inner } else { fields[key] = entry.value }
        }
        return fields
    }

    /// An array of strings, `as`.
    public static func strings(_ values: [String]) -> DBusValue {
        .array(element: .string, values.map { .string($0) })
    }
}

/// One entry of a D-Bus dictionary.
public struct DBusDictionaryEntry: Hashable, Sendable {
    public var key: DBusValue
    public var value: DBusValue

    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}

/// A Unix file descriptor received or to be sent in a message.
///
/// A received descriptor is owned by this object and closed when it is
/// released, so a peer that sends descriptors cannot leak them into the
/// process.
public final class DBusFileDescriptor: Hashable, Sendable {
    /// The descriptor number.
    public let fd: Int32
    private let owned: Bool

    /// Wraps a descriptor; `owned` descriptors are closed on release.
    public init(_ fd: Int32, owned: Bool) {
        self.fd = fd
        self.owned = owned
    }

    deinit {
        if owned { _ = closeDescriptor(fd) }
    }

    public static func == (lhs: DBusFileDescriptor, rhs: DBusFileDescriptor) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

import Glibc

private func closeDescriptor(_ fd: Int32) -> Int32 { Glibc.close(fd) }
