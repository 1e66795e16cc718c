import CStrophe
import Glibc
import Synchronization

// libstrophe's callbacks, as C function pointers. Each gets the
// StropheSession through its userdata, passed unretained: the session
// outlives its context and every connection (it frees them before it
// returns from `run`), so no callback can see it gone.

/// The push-server protocol's namespace.
let unifiedPushNamespace = "http://gultsch.de/xmpp/drafts/unified-push"

/// The session that `userdata` points to.
private func session(_ userdata: UnsafeMutableRawPointer?) -> StropheSession? {
    userdata.map { Unmanaged<StropheSession>.fromOpaque($0).takeUnretainedValue() }
}

/// Every log line of libstrophe's: the only place failures are told apart.
/// The stanzas it logs ("SENT: ...", "RECV: ...") are skipped unread: they
/// are the server's and others' words, not libstrophe's.
let stropheLogHandler: xmpp_log_handler = { userdata, level, area, message in
    guard let session = session(userdata), let area, let message,
        strncmp(message, "SENT", 4) != 0, strncmp(message, "RECV", 4) != 0
    else { return }
    session.noteLog(area: String(cString: area), isError: level == XMPP_LEVEL_ERROR, message: String(cString: message))
}

/// Connected, or the connection ended (libstrophe 0.12 says every failure so).
let stropheConnectionHandler: xmpp_conn_handler = { _, event, error, streamError, userdata in
    guard let session = session(userdata) else { return }
    let text = streamError?.pointee.text.map { String(cString: $0) }
    session.connectionEvent(event, error: error, streamErrorText: text)
}

/// A `<push/>` from the server.
let stropheHandlerForPush: xmpp_handler = { _, stanza, userdata in
    if let stanza { session(userdata)?.receivedPush(stanza) }
    return 1  // keep the handler
}

/// The answer to one `<register/>`.
let stropheHandlerForRegistration: xmpp_handler = { _, stanza, userdata in
    if let stanza { session(userdata)?.receivedRegistrationAnswer(stanza) }
    return 0  // one answer per request
}

/// The reasons certificates were rejected, by context, until the session
/// reads its own: the certfail callback has no userdata, only the
/// certificate, whose context says whose it was.
let certificateRejections = Mutex<[UInt: String]>([:])

/// Called only when OpenSSL did not verify the server's certificate:
/// notes why and refuses it (0).
let stropheCertificateFailureHandler: xmpp_certfail_handler = { certificate, message in
    guard let certificate else { return 0 }
    let key = UInt(bitPattern: xmpp_tlscert_get_ctx(certificate))
    let reason = message.map { String(cString: $0) } ?? "no reason given"
    certificateRejections.withLock { $0[key] = reason }
    return 0
}

/// The socket of each context's connection, by context: libstrophe has no
/// getter for it, so the socket-options callback notes it as it is made.
let connectionSockets = Mutex<[UInt: Int32]>([:])

/// Notes the new socket (the client polls it while connected), then sets
/// TCP keepalive on it as libstrophe's own callback does: a dead peer is
/// found by the kernel, with no timer in notifyd.
let stropheSocketOptions: xmpp_sockopt_callback = { connection, socket in
    guard let connection, let socket else { return -1 }
    let key = UInt(bitPattern: xmpp_conn_get_context(connection))
    let descriptor = socket.load(as: Int32.self)
    connectionSockets.withLock { $0[key] = descriptor }
    return xmpp_sockopt_cb_keepalive(connection, socket)
}

/// The one funnel for libstrophe's result codes.
enum StropheResult {
    /// Returns normally for `XMPP_EOK`, else throws saying `what` failed and why.
    static func check(_ code: Int32, _ what: String) throws(XMPPPushError) {
        guard code != XMPP_EOK else { return }
        let why: String
        switch code {
        case XMPP_EMEM: why = "out of memory"
        case XMPP_EINVOP: why = "an invalid operation"
        case XMPP_EINT: why = "an internal error"
        default: why = "error \(code)"
        }
        throw XMPPPushError("libstrophe failed \(what): \(why)")
    }

    /// `pointer`, or a thrown error saying `what` could not be made.
    static func made<Pointer>(_ pointer: Pointer?, _ what: String) throws(XMPPPushError) -> Pointer {
        guard let pointer else { throw XMPPPushError("libstrophe could not make \(what): out of memory") }
        return pointer
    }
}
