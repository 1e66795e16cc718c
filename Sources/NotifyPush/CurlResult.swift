import CCurl

/// The one funnel for libcurl's result codes (`CURLcode`, `CURLMcode`) and
/// the handles it makes: each call is checked and a failure thrown in words.
enum CurlResult {
    /// Returns normally for `CURLE_OK`, else throws saying `what` failed and why.
    static func check(_ code: CURLcode, _ what: String) throws(NtfyPushError) {
        guard code != CURLE_OK else { return }
        throw NtfyPushError("libcurl failed \(what): \(String(cString: notifyd_curl_easy_strerror(code)))")
    }

    /// Returns normally for `CURLM_OK`, else throws saying `what` failed and why.
    static func check(_ code: CURLMcode, _ what: String) throws(NtfyPushError) {
        guard code != CURLM_OK else { return }
        throw NtfyPushError("libcurl failed \(what): \(String(cString: notifyd_curl_multi_strerror(code)))")
    }

    /// `pointer`, or a thrown error saying `what` could not be made.
    static func made<Pointer>(_ pointer: Pointer?, _ what: String) throws(NtfyPushError) -> Pointer {
        guard let pointer else { throw NtfyPushError("libcurl could not make \(what): out of memory") }
        return pointer
    }

    /// libcurl, loaded (`dlopen`) and its global state set up once before
    /// any handle (CCurl does both under `pthread_once`: 7.88's
    /// `curl_global_init` is not thread-safe).
    static let initialized: Bool = notifyd_curl_global_init() == CURLE_OK

    /// Why libcurl gave no handle: it could not be loaded, or memory ran out.
    static var unavailable: String {
        notifyd_curl_load_error().map { String(cString: $0) } ?? "libcurl could not start (out of memory)"
    }

    /// The number `info` of `handle` (`CURLINFO_RESPONSE_CODE`), checked; 0 when libcurl has none.
    static func info(_ handle: UnsafeMutableRawPointer, _ info: CURLINFO) -> Int {
        var value = 0
        guard (try? check(notifyd_curl_easy_getinfo_long(handle, info, &value), "reading info")) != nil else { return 0 }
        return value
    }

    /// The string `info` of `handle` (`CURLINFO_CAINFO`), checked; nil when libcurl has none.
    static func info(_ handle: UnsafeMutableRawPointer, _ info: CURLINFO) -> String? {
        var value: UnsafePointer<CChar>?
        guard (try? check(notifyd_curl_easy_getinfo_string(handle, info, &value), "reading info")) != nil,
            let value
        else { return nil }
        return String(cString: value)
    }

    /// Sets `option` to `value` on `handle`, checked.
    static func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int) throws(NtfyPushError) {
        try check(notifyd_curl_easy_setopt_long(handle, option, value), "setting option \(option.rawValue)")
    }

    /// Sets the string `option` to `value` on `handle` (libcurl copies it), checked.
    static func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) throws(NtfyPushError) {
        try check(notifyd_curl_easy_setopt_string(handle, option, value), "setting option \(option.rawValue)")
    }
}

/// How one transfer of the stream ended, in the words of a connection state.
struct TransferEnd {
    /// libcurl's result for the transfer.
    let code: CURLcode
    /// libcurl's own message (`CURLOPT_ERRORBUFFER`), when it wrote one.
    let detail: String
    /// The HTTP status, 0 when none came.
    let status: Int
    /// What the server said of a refusal: ntfy's `{"error": ...}`, else the start of its body.
    let serverText: String?
    /// Whether the stream had opened (ntfy's `open` event).
    let wasConnected: Bool

    /// The state this end puts the client in.
    var state: NtfyConnectionState {
        if status != 0 && status != 200 { return .disconnected(reason: refusal) }
        let said = detail.isEmpty ? String(cString: notifyd_curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR:
            return .certificateRejected(reason: "the ntfy server's certificate did not verify: \(said)")
        case _ where wasConnected:
            let why = code == CURLE_OK ? "the server ended the stream" : said
            return .disconnected(reason: "the connection to the ntfy server was lost: \(why)")
        case CURLE_COULDNT_RESOLVE_HOST:
            return .disconnected(reason: "the ntfy server's name could not be resolved: \(said)")
        case CURLE_COULDNT_CONNECT:
            return .disconnected(reason: "the ntfy server could not be reached: \(said)")
        case CURLE_OPERATION_TIMEDOUT:
            return .disconnected(reason: "the ntfy server did not answer in time: \(said)")
        case CURLE_GOT_NOTHING:
            return .disconnected(reason: "the ntfy server closed the connection without answering")
        case CURLE_SSL_CONNECT_ERROR:
            return .disconnected(reason: "TLS could not be set up with the ntfy server: \(said)")
        case CURLE_OK:
            return .disconnected(reason: "the ntfy server ended the stream before opening it")
        default:
            return .disconnected(reason: "the stream from the ntfy server failed: \(said)")
        }
    }

    /// An HTTP refusal, in words.
    private var refusal: String {
        let said = serverText.map { ": \($0)" } ?? ""
        switch status {
        case 401: return "the ntfy server wants a login to follow these topics (HTTP 401\(said))"
        case 403: return "the ntfy server does not let this client follow these topics (HTTP 403\(said))"
        case 404: return "the ntfy server has no such page: is the address an ntfy server's? (HTTP 404\(said))"
        case 429: return "the ntfy server refuses: too many requests or subscriptions from here (HTTP 429\(said))"
        case 300..<400: return "the ntfy server redirects elsewhere: give its final address (HTTP \(status)\(said))"
        case 500..<600: return "the ntfy server failed (HTTP \(status)\(said))"
        default: return "the ntfy server refused the subscription (HTTP \(status)\(said))"
        }
    }
}
