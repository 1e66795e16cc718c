import CDBus

extension MessageCodec {
    /// Copies one value from a reading iterator to a writing one, type by
    /// type, without building a ``DBusValue``: forwarding what a peer sent
    /// (libdbus has already validated it) costs no Swift allocations.
    static func copy(from source: inout DBusMessageIter, to target: inout DBusMessageIter) throws(DBusError) {
        let type = dbus_message_iter_get_arg_type(&source)
        switch type {
        case CDBusConstant.typeArray, CDBusConstant.typeVariant:
            let signature: String
            if type == CDBusConstant.typeVariant {
                var inner = DBusMessageIter()
                dbus_message_iter_recurse(&source, &inner)
                signature = try currentSignature(&inner)
            } else {
                let whole = try currentSignature(&source)
                signature = String(whole.dropFirst())  // the element type, after 'a'
            }
            try copyContainer(type, signature: signature, from: &source, to: &target)
        case CDBusConstant.typeStruct, CDBusConstant.typeDictEntry:
            try copyContainer(type, signature: nil, from: &source, to: &target)
        case CDBusConstant.typeString, CDBusConstant.typeObjectPath, CDBusConstant.typeSignature,
            CDBusConstant.typeUnixFD:
            var basic = DBusBasicValue()
            dbus_message_iter_get_basic(&source, &basic)
            try checkMemory(dbus_message_iter_append_basic(&target, type, &basic))
            if type == CDBusConstant.typeUnixFD { _ = closeDuplicated(basic.fd) }
        default:
            var basic = DBusBasicValue()
            dbus_message_iter_get_basic(&source, &basic)
            try checkMemory(dbus_message_iter_append_basic(&target, type, &basic))
        }
    }

    private static func copyContainer(
        _ type: Int32, signature: String?, from source: inout DBusMessageIter, to target: inout DBusMessageIter
    ) throws(DBusError) {
        var inner = DBusMessageIter()
        dbus_message_iter_recurse(&source, &inner)
        var sub = DBusMessageIter()
        let opened: dbus_bool_t
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&target, type, $0, &sub) }
        } else {
            opened = dbus_message_iter_open_container(&target, type, nil, &sub)
        }
        try checkMemory(opened)
        while dbus_message_iter_get_arg_type(&inner) != CDBusConstant.typeInvalid {
            do {
                try copy(from: &inner, to: &sub)
            } catch {
                dbus_message_iter_abandon_container(&target, &sub)
                throw error
            }
            dbus_message_iter_next(&inner)
        }
        try checkMemory(dbus_message_iter_close_container(&target, &sub))
    }

    private static func currentSignature(_ iter: inout DBusMessageIter) throws(DBusError) -> String {
        guard let raw = dbus_message_iter_get_signature(&iter) else { throw DBusError.noMemory }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }
}

extension DBusMessage {
    /// Appends argument `index` of `source` to this message as it is.
    public func appendArgument(_ index: Int, of source: DBusMessage) throws(DBusError) {
        var reader = DBusMessageIter()
        guard dbus_message_iter_init(source.raw, &reader) != 0 else {
            throw .invalidArgs("argument \(index) is missing")
        }
        for _ in 0..<index {
            guard dbus_message_iter_next(&reader) != 0 else { throw .invalidArgs("argument \(index) is missing") }
        }
        var writer = DBusMessageIter()
        dbus_message_iter_init_append(raw, &writer)
        try MessageCodec.copy(from: &reader, to: &writer)
    }
}

import Glibc

/// get_basic duplicates a Unix FD; the copy appended its own duplicate.
private func closeDuplicated(_ fd: Int32) -> Int32 { Glibc.close(fd) }
