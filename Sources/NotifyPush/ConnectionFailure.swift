import Glibc

/// Why one connection attempt ended, worked out from what libstrophe logs.
///
/// libstrophe 0.12 reports every failure as a plain disconnect, with no
/// error code for a refused password, a certificate that does not verify
/// or a refused TCP connection; only its log lines tell them apart
/// (docs/notes/unifiedpush/xmpp-prosody-libstrophe.md, section 3). Only the
/// lines below are read: the debug log also carries the stanzas, which are
/// never kept or forwarded.
struct ConnectionFailure: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// Nothing known: the connection closed.
        case unknown
        /// The server could not be reached, or the connection dropped.
        case network
        /// The certificate did not verify, or TLS could not be set up.
        case certificate
        /// The server refused the account or the password.
        case authentication
    }

    private(set) var kind = Kind.unknown
    private(set) var detail: String?

    /// Takes the evidence of one log line of libstrophe's.
    mutating func noteLog(area: String, isError: Bool, message: String) {
        if message.hasPrefix("connection failed, error ") {
            let code = Int32(message.dropFirst("connection failed, error ".count).prefix { $0.isNumber }) ?? 0
            note(.network, code > 0 ? String(cString: strerror(code)).lowercased() : "the connection failed")
        } else if message.hasPrefix("Connection attempt timed out") {
            note(.network, "the connection attempt timed out")
        } else if message.contains(" auth failed") {
            // "SASL SCRAM-SHA-1 auth failed"
            note(.authentication, "the server refused the password (\(message))")
        } else if message.hasPrefix("Cannot authenticate") {
            note(.authentication, "the server offers no way to log in that notifyd knows")
        } else if message.hasPrefix("TLS is not supported") {
            note(.certificate, "TLS could not be set up with the server (the CA file may be unreadable)")
        } else if area == "tls" && isError {
            note(.certificate, "TLS failed: \(message.prefix(200))")
        }
    }

    /// Takes the reason the certificate failed verification (the certfail callback).
    mutating func noteCertificateRejected(_ reason: String) {
        kind = .certificate
        detail = "the server's certificate did not verify: \(reason)"
    }

    /// The first evidence wins, except that a certificate's rejection
    /// (said by its own callback) outranks a TLS error logged after it.
    private mutating func note(_ newKind: Kind, _ newDetail: String) {
        guard kind == .unknown || (kind == .network && newKind != .network) else { return }
        kind = newKind
        detail = newDetail
    }

    /// The state this failure puts the connection in. Once a session was
    /// up, its end is a lost connection whatever was logged on the way
    /// (a TLS read error on a dropped socket is not a certificate's fault).
    func state(afterSession wasConnected: Bool) -> XMPPConnectionState {
        if wasConnected {
            let why = kind == .network || kind == .unknown ? detail : nil
            return .disconnected(reason: "the connection to the push server was lost: \(why ?? "it was closed")")
        }
        switch kind {
        case .authentication: return .authenticationFailed(reason: detail ?? "the server refused the password")
        case .certificate: return .certificateRejected(reason: detail ?? "the server's certificate did not verify")
        case .network: return .disconnected(reason: "the push server could not be reached: \(detail ?? "network error")")
        case .unknown: return .disconnected(reason: detail ?? "the push server closed the connection")
        }
    }

    /// A failure known only by libstrophe's error code and the stream
    /// error the server sent, when no log line said more.
    mutating func noteDisconnect(error: Int32, streamErrorText: String?) {
        if let streamErrorText, !streamErrorText.isEmpty {
            note(.unknown, "the push server closed the stream: \(streamErrorText.prefix(200))")
        } else if error != 0 {
            note(.network, String(cString: strerror(error)).lowercased())
        }
    }
}
