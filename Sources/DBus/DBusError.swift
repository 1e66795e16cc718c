import CDBus

/// An error that knows its D-Bus wire form: an error name and a message a
/// person can act on.
///
/// Method handlers throw these; the object layer sends them as the error
/// reply. Any other error becomes `org.freedesktop.DBus.Error.Failed` and is
/// logged.
public protocol DBusErrorConvertible: Error {
    /// The D-Bus error name, e.g. `org.freedesktop.DBus.Error.InvalidArgs`.
    var dbusErrorName: String { get }
    /// A message for the person reading the error.
    var dbusErrorMessage: String { get }
}

/// A D-Bus error: a name and a message.
///
/// Errors received from peers, errors raised by libdbus and errors raised by
/// this module are all of this one type.
public struct DBusError: DBusErrorConvertible, Hashable, CustomStringConvertible {
    /// The D-Bus error name.
    public var name: String
    /// The human-readable message.
    public var message: String

    /// Creates an error with a name and a message.
    public init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    public var dbusErrorName: String { name }
    public var dbusErrorMessage: String { message }
    public var description: String { "\(name): \(message)" }

    /// `org.freedesktop.DBus.Error.Failed`
    public static func failed(_ message: String) -> DBusError {
        DBusError(Name.failed, message)
    }

    /// `org.freedesktop.DBus.Error.InvalidArgs`
    public static func invalidArgs(_ message: String) -> DBusError {
        DBusError(Name.invalidArgs, message)
    }

    /// `org.freedesktop.DBus.Error.UnknownMethod`
    public static func unknownMethod(_ message: String) -> DBusError {
        DBusError(Name.unknownMethod, message)
    }

    /// `org.freedesktop.DBus.Error.NoMemory`
    public static let noMemory = DBusError(Name.noMemory, "libdbus ran out of memory")

    /// Well-known error names of the D-Bus specification.
    public enum Name {
        public static let failed = "org.freedesktop.DBus.Error.Failed"
        public static let noMemory = "org.freedesktop.DBus.Error.NoMemory"
        public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
        public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
        public static let noReply = "org.freedesktop.DBus.Error.NoReply"
        public static let ioError = "org.freedesktop.DBus.Error.IOError"
        public static let badAddress = "org.freedesktop.DBus.Error.BadAddress"
        public static let noServer = "org.freedesktop.DBus.Error.NoServer"
        public static let timeout = "org.freedesktop.DBus.Error.Timeout"
        public static let timedOut = "org.freedesktop.DBus.Error.TimedOut"
        public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
        public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
        public static let fileNotFound = "org.freedesktop.DBus.Error.FileNotFound"
        public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
        public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
        public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
        public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
        public static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
        public static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
        public static let invalidSignature = "org.freedesktop.DBus.Error.InvalidSignature"
        public static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"
        public static let spawnServiceNotFound = "org.freedesktop.DBus.Error.Spawn.ServiceNotFound"
    }
}

/// The one funnel for libdbus calls that report through a `DBusError*`.
///
/// Runs `body` with an initialised C error; if libdbus set it (or `body`
/// reports failure by returning false), the error is freed and rethrown as
/// a Swift ``DBusError``.
@discardableResult
func withCDBusError<Result>(
    _ what: @autoclosure () -> String?,
    _ body: (UnsafeMutablePointer<CDBus.DBusError>) -> Result
) throws(DBusError) -> Result {
    var cError = CDBus.DBusError()
    dbus_error_init(&cError)
    defer { dbus_error_free(&cError) }
    let result = body(&cError)
    if dbus_error_is_set(&cError) != 0 {
        let name = cError.name.map { String(cString: $0) } ?? DBusError.Name.failed
        let detail = cError.message.map { String(cString: $0) } ?? "unknown error"
        throw DBusError(name, what().map { "\($0): \(detail)" } ?? detail)
    }
    return result
}

/// Checks a libdbus boolean result that only fails when memory runs out.
func checkMemory(_ ok: dbus_bool_t) throws(DBusError) {
    if ok == 0 { throw DBusError.noMemory }
}
