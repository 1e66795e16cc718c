import CDBus

/// Writes values into one open container of a message (an element of a
/// ``DBusArrayWriter``, the fields of a struct), checking each against the
/// type the container expects.
///
/// Basic values are written from plain Swift values, so writing allocates
/// nothing. Strings may not contain NUL bytes (`InvalidArgs`).
public struct DBusValueWriter {
    var iter: DBusMessageIter
    let slots: Slots
    private var written = 0

    enum Slots {
        /// One value of this type (an array element).
        case one(DBusType)
        /// The fields of a struct, in order.
        case fields([DBusType])
    }

    init(iter: DBusMessageIter, slots: Slots) {
        self.iter = iter
        self.slots = slots
    }

    /// The type of the next value; counts it as written.
    private mutating func take() throws(DBusError) -> DBusType {
        let expected: DBusType
        switch slots {
        case .one(let type):
            guard written == 0 else { throw DBusError.invalidArgs("a second value where one '\(type)' was expected") }
            expected = type
        case .fields(let types):
            guard written < types.count else {
                throw DBusError.invalidArgs("more than the \(types.count) fields of a struct")
            }
            expected = types[written]
        }
        written += 1
        return expected
    }

    func checkComplete() throws(DBusError) {
        let wanted: Int
        switch slots {
        case .one: wanted = 1
        case .fields(let types): wanted = types.count
        }
        guard written == wanted else { throw DBusError.invalidArgs("\(written) value(s) written where \(wanted) were expected") }
    }

    private mutating func basic<T: BitwiseCopyable>(_ type: DBusType, _ code: Int32, _ value: T) throws(DBusError) {
        let expected = try take()
        guard expected == type else { throw DBusError.invalidArgs("a '\(type)' where a '\(expected)' was expected") }
        var copy = value
        try checkMemory(dbus_message_iter_append_basic(&iter, code, &copy))
    }

    /// Writes a `u`.
    public mutating func uint32(_ value: UInt32) throws(DBusError) { try basic(.uint32, CDBusConstant.typeUInt32, value) }
    /// Writes an `x`.
    public mutating func int64(_ value: Int64) throws(DBusError) { try basic(.int64, CDBusConstant.typeInt64, value) }
    /// Writes a `t`.
    public mutating func uint64(_ value: UInt64) throws(DBusError) { try basic(.uint64, CDBusConstant.typeUInt64, value) }
    /// Writes a `d`.
    public mutating func double(_ value: Double) throws(DBusError) { try basic(.double, CDBusConstant.typeDouble, value) }
    /// Writes a `b`.
    public mutating func boolean(_ value: Bool) throws(DBusError) {
        try basic(.boolean, CDBusConstant.typeBoolean, dbus_bool_t(value ? 1 : 0))
    }

    /// Writes an `s`.
    public mutating func string(_ value: String) throws(DBusError) {
        let expected = try take()
        guard expected == .string else { throw DBusError.invalidArgs("a 's' where a '\(expected)' was expected") }
        try DBusValueWriter.appendString(&iter, value)
    }

    /// Writes a struct: `body` writes its fields, all of them, in order.
    public mutating func structure(_ body: (inout DBusValueWriter) throws(DBusError) -> Void) throws(DBusError) {
        let expected = try take()
        guard case .structure(let fields) = expected else {
            throw DBusError.invalidArgs("a struct where a '\(expected)' was expected")
        }
        var sub = DBusMessageIter()
        try checkMemory(dbus_message_iter_open_container(&iter, CDBusConstant.typeStruct, nil, &sub))
        var inner = DBusValueWriter(iter: sub, slots: .fields(fields))
        do {
            try body(&inner)
            try inner.checkComplete()
        } catch {
            dbus_message_iter_abandon_container(&iter, &inner.iter)
            throw error
        }
        try checkMemory(dbus_message_iter_close_container(&iter, &inner.iter))
    }

    /// Writes an `a{sv}`: `body` adds its entries, in the order given.
    public mutating func vardict(_ body: (inout DBusVardictWriter) throws(DBusError) -> Void) throws(DBusError) {
        let expected = try take()
        guard case .dictionary(.string, .variant) = expected else {
            throw DBusError.invalidArgs("an 'a{sv}' where a '\(expected)' was expected")
        }
        var sub = DBusMessageIter()
        let opened = DBusVardictWriter.entrySignature.withUTF8Buffer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count + 1) {
                dbus_message_iter_open_container(&iter, CDBusConstant.typeArray, $0, &sub)
            }
        }
        try checkMemory(opened)
        var inner = DBusVardictWriter(iter: sub)
        do {
            try body(&inner)
        } catch {
            dbus_message_iter_abandon_container(&iter, &inner.iter)
            throw error
        }
        try checkMemory(dbus_message_iter_close_container(&iter, &inner.iter))
    }

    /// Appends a string, refusing NUL bytes (libdbus would abort on them).
    static func appendString(_ iter: inout DBusMessageIter, _ text: String) throws(DBusError) {
        let hasNUL = text.utf8.withContiguousStorageIfAvailable { $0.contains(0) } ?? text.utf8.contains(0)
        guard !hasNUL else { throw DBusError.invalidArgs("string contains a NUL byte") }
        let ok = text.withCString { pointer in
            var cString: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(&iter, CDBusConstant.typeString, &cString)
        }
        try checkMemory(ok)
    }
}
