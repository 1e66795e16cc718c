import Glibc

/// The one funnel for the system calls of this module (as SwiftNIO's
/// `System.swift`): each call's result is checked, `EINTR` is retried, and
/// any other failure becomes a ``DBusError`` that names the call and the
/// error, with the `errno` kept for callers that expect some (`EAGAIN`).
enum SystemCall {
    /// A failed call's `errno` and what was called.
    struct Failure: Error {
        let call: String
        let errno: Int32

        /// As a ``DBusError`` (`org.freedesktop.DBus.Error.Failed`).
        var error: DBusError { DBusError(DBusError.Name.failed, "\(call) failed: \(String(cString: strerror(errno)))") }
    }

    /// Runs `body` until it does not fail with `EINTR`; a negative result
    /// throws with `errno`.
    @discardableResult
    static func checked<Result: BinaryInteger>(_ call: @autoclosure () -> String, _ body: () -> Result) throws(Failure)
        -> Result
    {
        while true {
            let result = body()
            guard result < 0 else { return result }
            let error = Glibc.errno
            guard error == EINTR else { throw Failure(call: call(), errno: error) }
        }
    }

    /// Like ``checked(_:_:)``, throwing the ``DBusError``.
    @discardableResult
    static func run<Result: BinaryInteger>(_ call: @autoclosure () -> String, _ body: () -> Result) throws(DBusError)
        -> Result
    {
        do {
            return try checked(call(), body)
        } catch {
            throw error.error
        }
    }

    /// Reads one 8-byte counter (eventfd, timerfd); nil when there is
    /// nothing to read (`EAGAIN`) or the timer was cancelled (`ECANCELED`,
    /// a `CLOCK_REALTIME` timerfd after the clock was set).
    static func readCounter(_ fd: Int32, _ call: String) throws(DBusError) -> UInt64? {
        var value: UInt64 = 0
        do {
            try checked(call) { read(fd, &value, 8) }
            return value
        } catch let failure where failure.errno == EAGAIN || failure.errno == ECANCELED {
            return nil
        } catch {
            throw error.error
        }
    }
}
