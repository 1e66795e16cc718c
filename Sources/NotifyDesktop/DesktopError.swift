import CCanberra
import CLibnotify

/// An error of the desktop adapter: which library failed (the code) and a
/// message a person can act on.
///
/// Codes are static lets over a private enum, so the set can grow without
/// breaking callers.
public struct DesktopError: Error, Hashable, CustomStringConvertible {
    /// Where the failure came from.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String, Hashable, Sendable {
            case glib = "GLib"
            case canberra = "Canberra"
            case thread = "Thread"
            case busy = "Busy"
            case shutDown = "ShutDown"
            case invalidRequest = "InvalidRequest"
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        public var description: String { value.rawValue }

        /// GLib, GIO or libnotify reported a `GError`.
        public static let glib = Code(.glib)
        /// libcanberra returned an error code.
        public static let canberra = Code(.canberra)
        /// The GLib thread could not be started.
        public static let thread = Code(.thread)
        /// Another ``GLibDesktop`` is running: libnotify is per process.
        public static let busy = Code(.busy)
        /// The notifier or player was shut down.
        public static let shutDown = Code(.shutDown)
        /// A request libnotify would refuse (an empty summary).
        public static let invalidRequest = Code(.invalidRequest)
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// The one funnel for GLib calls that report through a `GError **`.
///
/// Runs `body` with a cleared error location; if the callee set it, the
/// `GError` is freed and rethrown as a ``DesktopError`` whose message is
/// `what: <GError message>`. A callee that fails without setting the error
/// (a programming error in GLib terms) is reported by `failed`.
@discardableResult
func withGError<Result>(
    _ what: @autoclosure () -> String,
    failed: (Result) -> Bool = { _ in false },
    _ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> Result
) throws(DesktopError) -> Result {
    var error: UnsafeMutablePointer<GError>?
    let result = body(&error)
    if let error {
        defer { g_error_free(error) }
        let detail = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        throw DesktopError(.glib, "\(what()): \(detail)")
    }
    if failed(result) { throw DesktopError(.glib, "\(what()): failed without a reason") }
    return result
}

/// The one funnel for libcanberra return codes: anything but `CA_SUCCESS`
/// becomes a ``DesktopError`` with `ca_strerror`'s text.
func checkCanberra(_ code: Int32, _ what: @autoclosure () -> String) throws(DesktopError) {
    guard code != Int32(CA_SUCCESS) else { return }
    let detail = ca_strerror(code).map { String(cString: $0) } ?? "error \(code)"
    throw DesktopError(.canberra, "\(what()): \(detail)")
}

/// GLib's `TRUE` and `FALSE` (macros Swift does not import).
let gTrue: gboolean = 1
let gFalse: gboolean = 0
