import CDBus

/// Writes the entries of an `a{sv}` opened by
/// ``DBusValueWriter/vardict(_:)``: each entry a string key and a basic
/// value in a variant, in the order written (sort the keys first when the
/// wire form must be stable, as ``DBusValue/vardict(_:)`` does).
///
/// Values are plain Swift values, so an entry allocates nothing. Keys and
/// string values may not contain NUL bytes (`InvalidArgs`).
public struct DBusVardictWriter {
    /// The signature of one entry, for opening the array.
    static let entrySignature: StaticString = "{sv}"

    var iter: DBusMessageIter

    init(iter: DBusMessageIter) {
        self.iter = iter
    }

    /// Adds `key` → `<u value>`.
    public mutating func entry(_ key: String, _ value: UInt32) throws(DBusError) {
        try basic(key, "u", CDBusConstant.typeUInt32, value)
    }

    /// Adds `key` → `<i value>`.
    public mutating func entry(_ key: String, _ value: Int32) throws(DBusError) {
        try basic(key, "i", CDBusConstant.typeInt32, value)
    }

    /// Adds `key` → `<x value>`.
    public mutating func entry(_ key: String, _ value: Int64) throws(DBusError) {
        try basic(key, "x", CDBusConstant.typeInt64, value)
    }

    /// Adds `key` → `<t value>`.
    public mutating func entry(_ key: String, _ value: UInt64) throws(DBusError) {
        try basic(key, "t", CDBusConstant.typeUInt64, value)
    }

    /// Adds `key` → `<d value>`.
    public mutating func entry(_ key: String, _ value: Double) throws(DBusError) {
        try basic(key, "d", CDBusConstant.typeDouble, value)
    }

    /// Adds `key` → `<b value>`.
    public mutating func entry(_ key: String, _ value: Bool) throws(DBusError) {
        try basic(key, "b", CDBusConstant.typeBoolean, dbus_bool_t(value ? 1 : 0))
    }

    /// Adds `key` → `<s value>`.
    public mutating func entry(_ key: String, _ value: String) throws(DBusError) {
        try withEntry(key, "s") { (variant) throws(DBusError) in try DBusValueWriter.appendString(&variant, value) }
    }

    private mutating func basic<T: BitwiseCopyable>(
        _ key: String, _ signature: StaticString, _ code: Int32, _ value: T
    ) throws(DBusError) {
        try withEntry(key, signature) { (variant) throws(DBusError) in
            var copy = value
            try checkMemory(dbus_message_iter_append_basic(&variant, code, &copy))
        }
    }

    /// Opens the entry, writes the key, opens the variant of `signature`,
    /// lets `body` write the value, and closes both (abandons both on error).
    private mutating func withEntry(
        _ key: String, _ signature: StaticString, _ body: (inout DBusMessageIter) throws(DBusError) -> Void
    ) throws(DBusError) {
        var pair = DBusMessageIter()
        try checkMemory(dbus_message_iter_open_container(&iter, CDBusConstant.typeDictEntry, nil, &pair))
        do throws(DBusError) {
            try DBusValueWriter.appendString(&pair, key)
            var variant = DBusMessageIter()
            let opened = signature.withUTF8Buffer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count + 1) {
                    dbus_message_iter_open_container(&pair, CDBusConstant.typeVariant, $0, &variant)
                }
            }
            try checkMemory(opened)
            do {
                try body(&variant)
            } catch {
                dbus_message_iter_abandon_container(&pair, &variant)
                throw error
            }
            try checkMemory(dbus_message_iter_close_container(&pair, &variant))
        } catch {
            dbus_message_iter_abandon_container(&iter, &pair)
            throw error
        }
        try checkMemory(dbus_message_iter_close_container(&iter, &pair))
    }
}
