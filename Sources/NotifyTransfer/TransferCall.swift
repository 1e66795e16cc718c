import CCrypto
import CCurl
import Glibc

/// Why a step of an attempt could not be carried out: the end the attempt
/// gets, and the `errno` behind it when a system call failed.
public struct TransferFault: Error {
    /// ``TransferAttemptEnd/failed(reason:)`` or ``TransferAttemptEnd/retry(reason:retryAfter:)``.
    public let end: TransferAttemptEnd
    /// The system call's `errno`, when one failed.
    public internal(set) var errno: Int32? = nil

    /// Not worth retrying, saying `reason`.
    static func failed(_ reason: String) -> TransferFault { TransferFault(end: .failed(reason: reason)) }

    /// Worth another attempt, saying `reason`.
    static func retry(_ reason: String, after: Duration? = nil) -> TransferFault {
        TransferFault(end: .retry(reason: reason, retryAfter: after))
    }
}

/// The one funnel for the engine's C calls: libcurl's result codes and
/// handles, the file system's `-1` and `errno`, OpenSSL's `1` for success.
/// Each call is checked and a failure thrown as a ``TransferFault`` in words.
enum TransferCall {
    /// libcurl, loaded (`dlopen`) and its global state set up once before
    /// any handle (CCurl does both under `pthread_once`: 7.88's
    /// `curl_global_init` is not thread-safe).
    static let curlReady: Bool = notifyd_curl_global_init() == CURLE_OK

    /// How an attempt ends when libcurl gave no handle: failed, saying why
    /// libcurl could not be loaded (not installed); else worth a retry.
    static var curlUnavailable: TransferAttemptEnd {
        if let error = notifyd_curl_load_error() { return .failed(reason: String(cString: error)) }
        return .retry(reason: "libcurl could not start: out of memory", retryAfter: nil)
    }

    /// Returns normally for `CURLE_OK`, else throws saying `what` failed and why.
    static func check(_ code: CURLcode, _ what: String) throws(TransferFault) {
        guard code != CURLE_OK else { return }
        throw .failed("libcurl failed \(what): \(String(cString: notifyd_curl_easy_strerror(code)))")
    }

    /// Returns normally for `CURLM_OK`, else throws (worth a retry) saying `what` failed and why.
    static func check(_ code: CURLMcode, _ what: String) throws(TransferFault) {
        guard code != CURLM_OK else { return }
        throw .retry("libcurl failed \(what): \(String(cString: notifyd_curl_multi_strerror(code)))")
    }

    /// `pointer`, or a thrown fault (worth a retry) saying `what` could not be made.
    static func made<Pointer>(_ pointer: Pointer?, _ what: String) throws(TransferFault) -> Pointer {
        guard let pointer else { throw .retry("\(what) could not be made: out of memory") }
        return pointer
    }

    /// Sets `option` to `value` on `handle`, checked.
    static func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int) throws(TransferFault) {
        try check(notifyd_curl_easy_setopt_long(handle, option, value), "setting option \(option.rawValue)")
    }

    /// Sets the string `option` to `value` on `handle` (libcurl copies it), checked.
    static func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) throws(TransferFault) {
        try check(notifyd_curl_easy_setopt_string(handle, option, value), "setting option \(option.rawValue)")
    }

    /// Sets the `curl_off_t` `option` to `value` on `handle`, checked.
    static func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, offset value: UInt64) throws(TransferFault) {
        try check(
            notifyd_curl_easy_setopt_offset(handle, option, curl_off_t(clamping: value)),
            "setting option \(option.rawValue)")
    }

    /// The number `info` of `handle` (`CURLINFO_RESPONSE_CODE`); 0 when libcurl has none.
    static func info(_ handle: UnsafeMutableRawPointer, _ info: CURLINFO) -> Int {
        var value = 0
        return notifyd_curl_easy_getinfo_long(handle, info, &value) == CURLE_OK ? value : 0
    }

    /// The string `info` of `handle` (`CURLINFO_EFFECTIVE_URL`); nil when libcurl has none.
    static func info(_ handle: UnsafeMutableRawPointer, _ info: CURLINFO) -> String? {
        var value: UnsafePointer<CChar>?
        guard notifyd_curl_easy_getinfo_string(handle, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    /// The size `info` of `handle` (`CURLINFO_CONTENT_LENGTH_DOWNLOAD_T`); nil when unknown.
    static func info(_ handle: UnsafeMutableRawPointer, size info: CURLINFO) -> UInt64? {
        var value: curl_off_t = -1
        guard notifyd_curl_easy_getinfo_offset(handle, info, &value) == CURLE_OK, value >= 0 else { return nil }
        return UInt64(value)
    }

    /// Runs the system call `call` (again while it is interrupted) and
    /// returns its result; throws for `-1`, saying `what` failed and why.
    @discardableResult
    static func system<Result: BinaryInteger>(_ what: String, _ call: () -> Result) throws(TransferFault) -> Result {
        while true {
            let result = call()
            guard result == -1 else { return result }
            let error = Glibc.errno
            if error == EINTR { continue }
            throw fault(errno: error, what)
        }
    }

    /// The fault for the system error `error` while doing `what`: the
    /// disk's state in plain words, a shortage of memory or descriptors
    /// worth a retry, anything else not.
    static func fault(errno error: Int32, _ what: String) -> TransferFault {
        switch error {
        case ENOSPC: return TransferFault(end: .failed(reason: "the disk is full"), errno: error)
        case EDQUOT: return TransferFault(end: .failed(reason: "the disk quota is used up"), errno: error)
        case EROFS: return TransferFault(end: .failed(reason: "the disk is read-only"), errno: error)
        case ENOMEM, EMFILE, ENFILE, EAGAIN:
            return TransferFault(end: .retry(reason: "\(what): \(words(errno: error))", retryAfter: nil), errno: error)
        default: return TransferFault(end: .failed(reason: "\(what): \(words(errno: error))"), errno: error)
        }
    }

    /// `strerror` of `error`, starting in lowercase ("permission denied").
    static func words(errno error: Int32) -> String {
        let text = String(cString: strerror(error))
        guard let first = text.first else { return text }
        return first.lowercased() + text.dropFirst()
    }

    /// Returns normally for OpenSSL's `1`, else throws (worth a retry) saying `what` failed.
    static func crypto(_ result: Int32, _ what: String) throws(TransferFault) {
        guard result != 1 else { return }
        throw .retry("OpenSSL failed \(what)")
    }
}
