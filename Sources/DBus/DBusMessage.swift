import CDBus

/// A D-Bus message: a method call, a method return, an error or a signal.
///
/// Owns exactly one reference to the libdbus message: ``init(taking:)``
/// adopts a reference the caller owned (a message just created or stolen
/// from a pending call), ``init(retaining:)`` takes a new one on a message
/// libdbus lends to a callback. The reference is dropped in `deinit`.
public final class DBusMessage: @unchecked Sendable {
    // Sendable: libdbus messages are reference counted atomically, and a
    // DBusMessage is not mutated after it is handed to a connection.

    /// The libdbus message.
    let raw: OpaquePointer

    /// Adopts a reference the caller owns.
    init(taking raw: OpaquePointer) {
        self.raw = raw
    }

    /// Takes a new reference on a message lent by libdbus.
    init(retaining raw: OpaquePointer) {
        self.raw = dbus_message_ref(raw)
    }

    deinit {
        dbus_message_unref(raw)
    }

    /// The kind of message.
    public enum Kind: Sendable, Equatable {
        case methodCall, methodReturn, error, signal, invalid
    }

    // MARK: Constructing

    /// A method call. Names are validated first: libdbus aborts on bad ones.
    public static func methodCall(
        destination: String?, path: String, interface: String?, member: String,
        arguments: [DBusValue] = []
    ) throws(DBusError) -> DBusMessage {
        try checkHeader(destination: destination, path: path, interface: interface, member: member)
        guard let raw = dbus_message_new_method_call(destination, path, interface, member) else {
            throw DBusError.noMemory
        }
        let message = DBusMessage(taking: raw)
        try message.append(arguments)
        return message
    }

    /// A signal, optionally addressed to one destination.
    public static func signal(
        path: String, interface: String, member: String,
        arguments: [DBusValue] = [], destination: String? = nil
    ) throws(DBusError) -> DBusMessage {
        try checkHeader(destination: destination, path: path, interface: interface, member: member)
        guard let raw = dbus_message_new_signal(path, interface, member) else { throw DBusError.noMemory }
        let message = DBusMessage(taking: raw)
        if let destination {
            try checkMemory(dbus_message_set_destination(raw, destination))
        }
        try message.append(arguments)
        return message
    }

    /// The successful reply to this method call.
    public func methodReturn(_ arguments: [DBusValue] = []) throws(DBusError) -> DBusMessage {
        guard let reply = dbus_message_new_method_return(raw) else { throw DBusError.noMemory }
        let message = DBusMessage(taking: reply)
        try message.append(arguments)
        return message
    }

    /// An error reply to this method call. An invalid error name becomes
    /// `org.freedesktop.DBus.Error.Failed` rather than aborting in libdbus.
    public func errorReply(_ error: DBusError) throws(DBusError) -> DBusMessage {
        let name = DBusNames.isValidErrorName(error.name) ? error.name : DBusError.Name.failed
        let text = String(error.message.unicodeScalars.filter { $0 != "\0" })
        guard let reply = dbus_message_new_error(raw, name, text) else { throw DBusError.noMemory }
        return DBusMessage(taking: reply)
    }

    private static func checkHeader(
        destination: String?, path: String, interface: String?, member: String
    ) throws(DBusError) {
        if let destination, !DBusNames.isValidBusName(destination) {
            throw .invalidArgs("invalid bus name '\(destination)'")
        }
        guard DBusNames.isValidObjectPath(path) else { throw .invalidArgs("invalid object path '\(path)'") }
        if let interface, !DBusNames.isValidInterface(interface) {
            throw .invalidArgs("invalid interface name '\(interface)'")
        }
        guard DBusNames.isValidMember(member) else { throw .invalidArgs("invalid member name '\(member)'") }
    }

    /// Appends arguments to the message body.
    public func append(_ arguments: [DBusValue]) throws(DBusError) {
        guard !arguments.isEmpty else { return }
        try MessageCodec.append(arguments, to: raw)
    }

    // MARK: Reading

    /// The message body, decoded.
    public func arguments() throws(DBusError) -> [DBusValue] {
        try MessageCodec.read(from: raw)
    }

    public var kind: Kind {
        switch dbus_message_get_type(raw) {
        case CDBusConstant.messageTypeMethodCall: .methodCall
        case CDBusConstant.messageTypeMethodReturn: .methodReturn
        case CDBusConstant.messageTypeError: .error
        case CDBusConstant.messageTypeSignal: .signal
        default: .invalid
        }
    }

    public var path: String? { dbus_message_get_path(raw).map { String(cString: $0) } }
    public var interface: String? { dbus_message_get_interface(raw).map { String(cString: $0) } }
    public var member: String? { dbus_message_get_member(raw).map { String(cString: $0) } }
    public var sender: String? { dbus_message_get_sender(raw).map { String(cString: $0) } }
    public var destination: String? { dbus_message_get_destination(raw).map { String(cString: $0) } }
    public var errorName: String? { dbus_message_get_error_name(raw).map { String(cString: $0) } }
    /// The body's signature (`""` for no arguments).
    public var signature: String { dbus_message_get_signature(raw).map { String(cString: $0) } ?? "" }
    public var serial: UInt32 { dbus_message_get_serial(raw) }
    public var replySerial: UInt32 { dbus_message_get_reply_serial(raw) }
    /// Whether the caller asked for no reply.
    public var noReplyExpected: Bool { dbus_message_get_no_reply(raw) != 0 }

    /// Whether this is the signal `interface.member`.
    public func isSignal(_ interface: String, _ member: String) -> Bool {
        dbus_message_is_signal(raw, interface, member) != 0
    }

    /// Says that the caller wants no reply (a method the interface declares
    /// `NoReply`): the callee sends none.
    public func setNoReply(_ noReply: Bool) {
        dbus_message_set_no_reply(raw, noReply ? 1 : 0)
    }

    /// Asks the bus not to start the destination if it is not running.
    public func setAutoStart(_ autoStart: Bool) {
        dbus_message_set_auto_start(raw, autoStart ? 1 : 0)
    }

    /// For an error message: the error it carries (name and first string argument).
    public func asError() -> DBusError? {
        guard kind == .error else { return nil }
        let text: String
        if case .string(let s)? = (try? arguments())?.first { text = s } else { text = "" }
        return DBusError(errorName ?? DBusError.Name.failed, text)
    }
}

extension DBusMessage {
    /// The message after a trip through the wire format (marshal, then
    /// demarshal), as a peer would receive it.
    func throughWireFormat() throws(DBusError) -> DBusMessage {
        try DBusMessage(wireBytes: wireBytes())
    }

    /// The message as libdbus puts it on the wire (marshalled).
    func wireBytes() throws(DBusError) -> [UInt8] {
        var bytes: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        if serial == 0 { dbus_message_set_serial(raw, 1) }
        try checkMemory(dbus_message_marshal(raw, &bytes, &length))
        defer { dbus_free(bytes) }
        guard let bytes else { throw DBusError.noMemory }
        return bytes.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
            Array(UnsafeBufferPointer(start: $0, count: Int(length)))
        }
    }

    /// A message from its wire bytes, validated by libdbus as one read from
    /// a connection (demarshalled).
    convenience init(wireBytes bytes: [UInt8]) throws(DBusError) {
        guard bytes.count <= Int(Int32.max) else { throw DBusError.invalidArgs("a message of \(bytes.count) bytes") }
        var cError = CDBus.DBusError()
        dbus_error_init(&cError)
        defer { dbus_error_free(&cError) }
        let raw = bytes.withUnsafeBytes { buffer in
            dbus_message_demarshal(buffer.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(buffer.count), &cError)
        }
        if dbus_error_is_set(&cError) != 0 {
            let detail = cError.message.map { String(cString: $0) } ?? "unknown error"
            throw DBusError(cError.name.map { String(cString: $0) } ?? DBusError.Name.failed, "cannot demarshal: \(detail)")
        }
        guard let raw else { throw DBusError.failed("cannot demarshal") }
        self.init(taking: raw)
    }
}
