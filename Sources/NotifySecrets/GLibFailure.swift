import CLibsecret

/// The one funnel for GLib's errors in this module: every `GError` a call
/// returns comes here, is freed, and leaves a sentence a person can read.
/// libsecret's and GIO's messages never carry the secret itself.
enum GLibFailure {
    /// Frees `error` and says what went wrong while `doing` (e.g. "storing
    /// the password"), in plain words for the common cases.
    ///
    /// - Parameters:
    ///   - timedOut: whether the keeper's own deadline cancelled the call.
    ///   - timeoutSeconds: that deadline, for the message.
    static func take(
        _ error: UnsafeMutablePointer<GError>?, doing: String, timedOut: Bool, timeoutSeconds: Int
    ) -> String {
        defer { g_error_free(error) }
        if timedOut {
            return "the Secret Service did not finish \(doing) within \(timeoutSeconds) s "
                + "(a prompt left unanswered, or a service that does not answer)"
        }
        guard let error else { return "\(doing) failed for no reason given" }
        let message = error.pointee.message.map { String(cString: $0) } ?? "no message"
        let domain = error.pointee.domain
        let code = error.pointee.code
        if domain == g_dbus_error_quark() {
            switch GDBusError(rawValue: UInt32(code)) {
            case G_DBUS_ERROR_SERVICE_UNKNOWN, G_DBUS_ERROR_NAME_HAS_NO_OWNER:
                return "no Secret Service answers on the bus (nothing owns org.freedesktop.secrets): \(message)"
            case G_DBUS_ERROR_NO_REPLY, G_DBUS_ERROR_TIMEOUT, G_DBUS_ERROR_TIMED_OUT:
                return "the Secret Service did not answer while \(doing): \(message)"
            default: break
            }
        }
        // SECRET_ERROR by its name: libsecret may not be loaded (dlopen) when
        // this funnel runs, and its quark exists only once it is.
        if domain == g_quark_try_string("secret-error"), code == Int32(SECRET_ERROR_IS_LOCKED.rawValue) {
            return "the keyring is locked and was not unlocked: \(message)"
        }
        if domain == g_io_error_quark(), code == Int32(G_IO_ERROR_CANCELLED.rawValue) {
            return "\(doing) was cancelled (the keyring stayed locked, or its prompt was dismissed)"
        }
        return "\(doing) failed: \(message)"
    }
}
