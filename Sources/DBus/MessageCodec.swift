import CDBus

/// Writes and reads ``DBusValue``s through libdbus's message iterators.
///
/// Values are checked before anything is appended, because libdbus aborts
/// the process on an invalid object path, signature or string instead of
/// returning an error.
enum MessageCodec {
    /// Most values one message may decode into; guards memory against a
    /// peer sending a huge array inside a variant.
    static let maxDecodedValues = 2_000_000

    // MARK: Writing

    static func append(_ values: [DBusValue], to message: OpaquePointer) throws(DBusError) {
        for value in values { try validate(value, depth: 0) }
        let signature = DBusType.signature(of: values.map(\.type))
        _ = try DBusType.parse(signature)  // total length and nesting limits
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for value in values { try write(value, into: &iter) }
    }

    /// Checks that containers hold what their types say and that strings
    /// are acceptable to libdbus.
    static func validate(_ value: DBusValue, depth: Int) throws(DBusError) {
        guard depth <= 64 else { throw .invalidArgs("value nested deeper than 64 containers") }
        switch value {
        case .string(let s):
            guard !s.utf8.contains(0) else { throw .invalidArgs("string contains a NUL byte") }
        case .objectPath(let path):
            guard DBusNames.isValidObjectPath(path) else { throw .invalidArgs("invalid object path '\(path)'") }
        case .signature(let signature):
            _ = try DBusType.parse(signature)
        case .variant(let inner):
            try validate(inner, depth: depth + 1)
        case .array(let element, let values):
            for item in values {
                guard item.type == element else {
                    throw .invalidArgs("array of '\(element)' holds a '\(item.signature)'")
                }
                try validate(item, depth: depth + 1)
            }
        case .dictionary(let key, let valueType, let entries):
            guard key.isBasic else { throw .invalidArgs("dictionary key type '\(key)' is not basic") }
            for entry in entries {
                guard entry.key.type == key, entry.value.type == valueType else {
                    throw .invalidArgs(
                        "dictionary of '{\(key)\(valueType)}' holds '{\(entry.key.signature)\(entry.value.signature)}'")
                }
                try validate(entry.key, depth: depth + 1)
                try validate(entry.value, depth: depth + 1)
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw .invalidArgs("empty struct") }
            for field in fields { try validate(field, depth: depth + 1) }
        default:
            break
        }
    }

    private static func appendBasic<T: BitwiseCopyable>(_ iter: inout DBusMessageIter, _ type: Int32, _ value: T) throws(DBusError) {
        var copy = value
        try checkMemory(dbus_message_iter_append_basic(&iter, type, &copy))
    }

    private static func appendString(_ iter: inout DBusMessageIter, _ type: Int32, _ text: String) throws(DBusError) {
        let ok = text.withCString { pointer -> dbus_bool_t in
            var cString: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(&iter, type, &cString)
        }
        try checkMemory(ok)
    }

    private static func write(_ value: DBusValue, into iter: inout DBusMessageIter) throws(DBusError) {
        switch value {
        case .byte(let v): try appendBasic(&iter, CDBusConstant.typeByte, v)
        case .boolean(let v): try appendBasic(&iter, CDBusConstant.typeBoolean, dbus_bool_t(v ? 1 : 0))
        case .int16(let v): try appendBasic(&iter, CDBusConstant.typeInt16, v)
        case .uint16(let v): try appendBasic(&iter, CDBusConstant.typeUInt16, v)
        case .int32(let v): try appendBasic(&iter, CDBusConstant.typeInt32, v)
        case .uint32(let v): try appendBasic(&iter, CDBusConstant.typeUInt32, v)
        case .int64(let v): try appendBasic(&iter, CDBusConstant.typeInt64, v)
        case .uint64(let v): try appendBasic(&iter, CDBusConstant.typeUInt64, v)
        case .double(let v): try appendBasic(&iter, CDBusConstant.typeDouble, v)
        case .unixFD(let descriptor): try appendBasic(&iter, CDBusConstant.typeUnixFD, descriptor.fd)
        case .string(let v): try appendString(&iter, CDBusConstant.typeString, v)
        case .objectPath(let v): try appendString(&iter, CDBusConstant.typeObjectPath, v)
        case .signature(let v): try appendString(&iter, CDBusConstant.typeSignature, v)
        case .variant(let inner):
            try container(&iter, CDBusConstant.typeVariant, inner.signature) { (sub) throws(DBusError) in
                try write(inner, into: &sub)
            }
        case .array(let element, let values):
            try container(&iter, CDBusConstant.typeArray, element.signature) { (sub) throws(DBusError) in
                for item in values { try write(item, into: &sub) }
            }
        case .dictionary(let key, let valueType, let entries):
            let entrySignature = "{" + key.signature + valueType.signature + "}"
            try container(&iter, CDBusConstant.typeArray, entrySignature) { (sub) throws(DBusError) in
                for entry in entries {
                    try container(&sub, CDBusConstant.typeDictEntry, nil) { (pair) throws(DBusError) in
                        try write(entry.key, into: &pair)
                        try write(entry.value, into: &pair)
                    }
                }
            }
        case .structure(let fields):
            try container(&iter, CDBusConstant.typeStruct, nil) { (sub) throws(DBusError) in
                for field in fields { try write(field, into: &sub) }
            }
        }
    }

    private static func container(
        _ iter: inout DBusMessageIter, _ type: Int32, _ signature: String?,
        _ body: (inout DBusMessageIter) throws(DBusError) -> Void
    ) throws(DBusError) {
        var sub = DBusMessageIter()
        let opened: dbus_bool_t
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) }
        } else {
            opened = dbus_message_iter_open_container(&iter, type, nil, &sub)
        }
        try checkMemory(opened)
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        try checkMemory(dbus_message_iter_close_container(&iter, &sub))
    }

    // MARK: Reading

    /// Decodes every argument of a message libdbus has already validated.
    static func read(from message: OpaquePointer) throws(DBusError) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        var budget = maxDecodedValues
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != CDBusConstant.typeInvalid {
            values.append(try readValue(&iter, budget: &budget))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    private static func readValue(_ iter: inout DBusMessageIter, budget: inout Int) throws(DBusError) -> DBusValue {
        budget -= 1
        guard budget >= 0 else {
            throw .invalidArgs("message holds more than \(maxDecodedValues) values")
        }
        let type = dbus_message_iter_get_arg_type(&iter)
        var basic = DBusBasicValue()
        switch type {
        case CDBusConstant.typeArray:
            return try readArray(&iter, budget: &budget)
        case CDBusConstant.typeVariant:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(try readValue(&sub, budget: &budget))
        case CDBusConstant.typeStruct:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            var fields: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != CDBusConstant.typeInvalid {
                fields.append(try readValue(&sub, budget: &budget))
                dbus_message_iter_next(&sub)
            }
            return .structure(fields)
        default:
            dbus_message_iter_get_basic(&iter, &basic)
        }
        switch type {
        case CDBusConstant.typeByte: return .byte(basic.byt)
        case CDBusConstant.typeBoolean: return .boolean(basic.bool_val != 0)
        case CDBusConstant.typeInt16: return .int16(basic.i16)
        case CDBusConstant.typeUInt16: return .uint16(basic.u16)
        case CDBusConstant.typeInt32: return .int32(basic.i32)
        case CDBusConstant.typeUInt32: return .uint32(basic.u32)
        case CDBusConstant.typeInt64: return .int64(Int64(basic.i64))
        case CDBusConstant.typeUInt64: return .uint64(UInt64(basic.u64))
        case CDBusConstant.typeDouble: return .double(basic.dbl)
        case CDBusConstant.typeString: return .string(String(cString: basic.str))
        case CDBusConstant.typeObjectPath: return .objectPath(String(cString: basic.str))
        case CDBusConstant.typeSignature: return .signature(String(cString: basic.str))
        case CDBusConstant.typeUnixFD:
            // libdbus gives -1 for an index past the descriptors the message
            // carries (its validation does not check them): refused, not
            // passed on as a descriptor that cannot be sent again.
            guard basic.fd >= 0 else { throw .invalidArgs("a Unix FD argument refers to no descriptor of the message") }
            return .unixFD(DBusFileDescriptor(basic.fd, owned: true))
        default: throw .invalidArgs("unsupported D-Bus type code \(type)")
        }
    }

    private static func readArray(_ iter: inout DBusMessageIter, budget: inout Int) throws(DBusError) -> DBusValue {
        let arrayType = try currentType(&iter)
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        switch arrayType {
        case .dictionary(let key, let valueType):
            var entries: [DBusDictionaryEntry] = []
            while dbus_message_iter_get_arg_type(&sub) != CDBusConstant.typeInvalid {
                var pair = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &pair)
                let k = try readValue(&pair, budget: &budget)
                dbus_message_iter_next(&pair)
                let v = try readValue(&pair, budget: &budget)
                entries.append(DBusDictionaryEntry(key: k, value: v))
                dbus_message_iter_next(&sub)
            }
            return .dictionary(key: key, value: valueType, entries)
        case .array(let element):
            var items: [DBusValue] = []
            while dbus_message_iter_get_arg_type(&sub) != CDBusConstant.typeInvalid {
                items.append(try readValue(&sub, budget: &budget))
                dbus_message_iter_next(&sub)
            }
            return .array(element: element, items)
        default:
            throw .invalidArgs("array iterator has type '\(arrayType)'")
        }
    }

    private static func currentType(_ iter: inout DBusMessageIter) throws(DBusError) -> DBusType {
        guard let raw = dbus_message_iter_get_signature(&iter) else { throw DBusError.noMemory }
        defer { dbus_free(raw) }
        return try DBusType.parseSingle(String(cString: raw))
    }
}
