import CCurl
import Glibc

/// How an attempt ends for what the server answered or libcurl reported,
/// in one sentence for a person. Never the URL (which may hold a user name
/// and password) nor a header's value.
enum EndReason {
    /// The end for the final HTTP status `status` (not 2xx): a retry for
    /// 408, 429 and 5xx (after `retryAfter` when the server gave one),
    /// failed for the rest ("Not found (HTTP 404)").
    static func http(status: Int, retryAfter: Duration?) -> TransferAttemptEnd {
        let reason = "\(phrase(status)) (HTTP \(status))"
        switch status {
        case 408, 429, 500..<600: return .retry(reason: reason, retryAfter: retryAfter)
        default: return .failed(reason: reason)
        }
    }

    /// The status's name, as a sentence starts.
    static func phrase(_ status: Int) -> String {
        switch status {
        case 300..<400: return "The server answered with a redirection that cannot be followed"
        case 400: return "Bad request"
        case 401: return "Unauthorized: the server wants a login"
        case 402: return "Payment required"
        case 403: return "Forbidden"
        case 404: return "Not found"
        case 405: return "Method not allowed"
        case 406: return "Not acceptable"
        case 407: return "Proxy authentication required"
        case 408: return "Request timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length required"
        case 412: return "Precondition failed"
        case 413: return "Content too large"
        case 414: return "URI too long"
        case 415: return "Unsupported media type"
        case 416: return "Range not satisfiable"
        case 417: return "Expectation failed"
        case 421: return "Misdirected request"
        case 422: return "Unprocessable content"
        case 423: return "Locked"
        case 425: return "Too early"
        case 426: return "Upgrade required"
        case 428: return "Precondition required"
        case 429: return "Too many requests"
        case 431: return "Request header fields too large"
        case 451: return "Unavailable for legal reasons"
        case 500: return "Internal server error"
        case 501: return "Not implemented"
        case 502: return "Bad gateway"
        case 503: return "Service unavailable"
        case 504: return "Gateway timeout"
        case 505: return "HTTP version not supported"
        case 507: return "Insufficient storage"
        case 508: return "Loop detected"
        case 400..<500: return "The server refused the request"
        case 500..<600: return "Server error"
        default: return "Unexpected answer from the server"
        }
    }

    /// What libcurl reported, as seen from a transfer.
    struct CurlReport {
        /// libcurl's result.
        var code: CURLcode
        /// The system error behind it (`CURLINFO_OS_ERRNO`), 0 when none.
        var osErrno: Int32 = 0
        /// libcurl's own message (`CURLOPT_ERRORBUFFER`); used only where it
        /// names nothing secret (certificate problems).
        var detail: String = ""
        /// Whether the body had started.
        var bodyStarted = false
    }

    /// The end for a transfer libcurl ended with something other than `CURLE_OK`.
    static func curl(_ report: CurlReport) -> TransferAttemptEnd {
        let code = report.code
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST: return retry("the server's name could not be resolved")
        case CURLE_COULDNT_RESOLVE_PROXY: return retry("the proxy's name could not be resolved")
        case CURLE_COULDNT_CONNECT: return retry(connectionFailure(report.osErrno))
        case CURLE_OPERATION_TIMEDOUT:
            return retry(report.bodyStarted ? "no data came from the server for 60 seconds" : "the server did not answer in time")
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR:
            return retry(report.osErrno == ECONNRESET ? "connection reset by the server" : "the connection to the server was lost")
        case CURLE_PARTIAL_FILE: return retry("the connection was lost before the whole file came")
        case CURLE_GOT_NOTHING: return retry("the server closed the connection without answering")
        case CURLE_HTTP2, CURLE_HTTP2_STREAM: return retry("the HTTP/2 connection to the server failed")
        case CURLE_SSL_CONNECT_ERROR: return retry("a secure connection to the server could not be set up")
        case CURLE_OUT_OF_MEMORY: return retry("notifyd ran out of memory")
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS:
            let said = report.detail.isEmpty ? String(cString: notifyd_curl_easy_strerror(code)) : report.detail
            return .failed(reason: "the server's certificate is not trusted: \(said)")
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .failed(reason: "the server redirected to an address that is neither http nor https")
        case CURLE_TOO_MANY_REDIRECTS: return .failed(reason: "the server redirected more than 10 times")
        case CURLE_URL_MALFORMAT: return .failed(reason: "the address is not a valid URL")
        case CURLE_WEIRD_SERVER_REPLY: return .failed(reason: "the server's answer is not valid HTTP")
        case CURLE_BAD_CONTENT_ENCODING: return .failed(reason: "the server's answer could not be decoded")
        case CURLE_WRITE_ERROR: return .failed(reason: "the file could not be written")
        case CURLE_READ_ERROR, CURLE_SEND_FAIL_REWIND: return .failed(reason: "the file to upload could not be read")
        case CURLE_FILESIZE_EXCEEDED: return .failed(reason: "the file is larger than allowed")
        case CURLE_LOGIN_DENIED, CURLE_AUTH_ERROR: return .failed(reason: "the server refused the login")
        default: return retry("the transfer failed: \(String(cString: notifyd_curl_easy_strerror(code)))")
        }
    }

    /// Why a connection could not be made, from its system error.
    private static func connectionFailure(_ error: Int32) -> String {
        switch error {
        case ECONNREFUSED: return "connection refused by the server"
        case ENETUNREACH: return "the network is unreachable"
        case EHOSTUNREACH: return "the server's host is unreachable"
        case ETIMEDOUT: return "the connection to the server timed out"
        default: return "the server could not be reached"
        }
    }

    private static func retry(_ reason: String) -> TransferAttemptEnd { .retry(reason: reason, retryAfter: nil) }

    /// `bytes` for a person: "512 bytes", "1.5 MB", "4.2 GB" (decimal units, as GNOME's Files shows them).
    static func size(_ bytes: UInt64) -> String {
        let units = ["kB", "MB", "GB", "TB", "PB"]
        guard bytes >= 1_000 else { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        var scale: UInt64 = 1_000
        var unit = 0
        while unit < units.count - 1, bytes / scale >= 1_000 {
            scale *= 1_000
            unit += 1
        }
        let tenth = scale / 10
        let tenths = bytes / tenth + (bytes % tenth >= tenth / 2 ? 1 : 0)
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
