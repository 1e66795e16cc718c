import CStrophe
import Glibc
import NotifyTestingCore
import Synchronization

/// The push section's baseline: a bare XMPP client in a few lines of
/// libstrophe, the library notifyd's own client uses, on a thread of its
/// own. It logs in to the same Prosody account with another resource
/// (STARTTLS, the test CA), registers one endpoint with
/// `mod_unified_push`, and for each `<push/>` notes the moment it arrived
/// (`CLOCK_MONOTONIC`), decodes the body and answers the `iq`: what any
/// receiver must do, without storing, a bus or an app.
final class BareXMPPReceiver: @unchecked Sendable {
    // Unchecked: `context`, `connection` and `endpointAsked` are touched on
    // the client's thread only (between start and the end of `run`); the
    // rest is behind the mutex or immutable.

    private struct State {
        var connected = false
        var failed: String?
        var endpoint: String?
        var arrivals: [UInt64] = []
        var bodies: [[UInt8]] = []
    }

    private let state = Mutex(State())
    private let running = Atomic<Bool>(true)
    private var context: OpaquePointer?
    private var connection: OpaquePointer?
    private var thread: pthread_t?
    private let domain: String

    /// Connects as `jid`/`bench` to `host`:`port`, trusting `caFile`, and
    /// registers an endpoint; waits (bounded) until it has one.
    init(jid: String, password: String, host: String, port: UInt16, caFile: String) throws(BenchFailure) {
        domain = String(jid.split(separator: "@").last ?? "localhost")
        guard notifyd_strophe_load() == 1 else {
            throw BenchFailure(notifyd_strophe_load_error().map { String(cString: $0) } ?? "libstrophe could not be loaded")
        }
        guard let context = xmpp_ctx_new(nil, nil) else { throw BenchFailure("libstrophe cannot make a context") }
        self.context = context
        connection = xmpp_conn_new(context)
        guard let connection else {
            releaseUnstarted()
            throw BenchFailure("libstrophe cannot make a connection")
        }
        xmpp_conn_set_flags(connection, notifyd_strophe_flag_disable_sm())
        xmpp_conn_set_cafile(connection, caFile)
        xmpp_conn_set_jid(connection, "\(jid)/bench")
        xmpp_conn_set_pass(connection, password)
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        guard xmpp_connect_client(connection, host, port, bareConnectionHandler, userdata) == XMPP_EOK else {
            releaseUnstarted()
            throw BenchFailure("the bare XMPP client cannot connect to \(host):\(port)")
        }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(self)
        guard pthread_create(&thread, nil, { argument in
            let receiver = Unmanaged<BareXMPPReceiver>.fromOpaque(argument!).takeRetainedValue()
            receiver.run()
            return nil
        }, box.toOpaque()) == 0 else {
            box.release()
            releaseUnstarted()
            throw BenchFailure("cannot start the bare XMPP client's thread")
        }
        self.thread = thread
        do {
            try waitUntil("the bare XMPP client's endpoint", seconds: 20, intervalMicroseconds: 1_000) {
                try state.withLock { state in
                    if let failed = state.failed { throw TestFailure(failed) }
                    return state.endpoint != nil
                }
            }
        } catch {
            stop()
            throw BenchFailure("the bare XMPP client: \(error)")
        }
    }

    deinit { stop() }

    /// Ends the client's thread, its connection and context. Idempotent.
    func stop() {
        guard running.exchange(false, ordering: .relaxed), let thread else { return }
        pthread_join(thread, nil)
        self.thread = nil
    }

    /// The endpoint Prosody gave.
    var endpoint: String { state.withLock { $0.endpoint ?? "" } }

    /// When each push arrived, in order.
    var arrivals: [UInt64] { state.withLock { $0.arrivals } }

    /// The pushes' bodies, in order.
    var bodies: [[UInt8]] { state.withLock { $0.bodies } }

    private func run() {
        while running.load(ordering: .relaxed) { xmpp_run_once(context, 1) }
        if let connection { xmpp_disconnect(connection) }
        for _ in 0..<50 { xmpp_run_once(context, 1) }
        if let connection { xmpp_conn_release(connection) }
        xmpp_ctx_free(context)
        connection = nil
        context = nil
    }

    /// Frees the connection and context when no thread was started to
    /// end them (``run()`` does otherwise); nothing stops then.
    private func releaseUnstarted() {
        running.store(false, ordering: .relaxed)
        if let connection { xmpp_conn_release(connection) }
        if let context { xmpp_ctx_free(context) }
        connection = nil
        context = nil
    }

    fileprivate func connected(_ event: xmpp_conn_event_t) {
        guard event == XMPP_CONN_CONNECT, let connection else {
            state.withLock { $0.failed = $0.failed ?? "the connection to Prosody ended (\(event.rawValue))" }
            return
        }
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        xmpp_handler_add(connection, barePushHandler, benchUnifiedPushNamespace, "iq", "set", userdata)
        xmpp_id_handler_add(connection, bareRegisteredHandler, "bench-register", userdata)
        let iq = xmpp_iq_new(context, "set", "bench-register")
        let register = xmpp_stanza_new(context)
        xmpp_stanza_set_name(register, "register")
        xmpp_stanza_set_ns(register, benchUnifiedPushNamespace)
        // Random-looking, fixed: 32 bytes each, base64.
        xmpp_stanza_set_attribute(register, "application", "YmVuY2gtYXBwbGljYXRpb24tMDEyMzQ1Njc4OWFiY2Q=")
        xmpp_stanza_set_attribute(register, "instance", "YmVuY2gtaW5zdGFuY2UtMDEyMzQ1Njc4OWFiY2RlZmc=")
        xmpp_stanza_set_to(iq, domain)
        xmpp_stanza_add_child(iq, register)
        xmpp_send(connection, iq)
        xmpp_stanza_release(register)
        xmpp_stanza_release(iq)
    }

    fileprivate func registered(_ stanza: OpaquePointer) {
        let child = xmpp_stanza_get_child_by_name_and_ns(stanza, "registered", benchUnifiedPushNamespace)
        let endpoint = child.flatMap { xmpp_stanza_get_attribute($0, "endpoint") }.map { String(cString: $0) }
        state.withLock { state in
            if let endpoint { state.endpoint = endpoint } else { state.failed = "Prosody did not register the bare client" }
        }
    }

    fileprivate func pushed(_ stanza: OpaquePointer) {
        let arrived = MonotonicClock.nanoseconds()
        var body: [UInt8] = []
        if let push = xmpp_stanza_get_child_by_name_and_ns(stanza, "push", benchUnifiedPushNamespace),
            let text = xmpp_stanza_get_text(push)
        {
            var decoded: UnsafeMutablePointer<UInt8>?
            var length = 0
            xmpp_base64_decode_bin(context, text, strlen(text), &decoded, &length)
            if let decoded {
                body = Array(UnsafeBufferPointer(start: decoded, count: length))
                xmpp_free(context, decoded)
            }
            xmpp_free(context, text)
        }
        state.withLock { state in
            state.arrivals.append(arrived)
            state.bodies.append(body)
        }
        guard let id = xmpp_stanza_get_id(stanza) else { return }
        let answer = xmpp_iq_new(context, "result", id)
        if let from = xmpp_stanza_get_from(stanza) { xmpp_stanza_set_to(answer, from) }
        xmpp_send(connection, answer)
        xmpp_stanza_release(answer)
    }
}

private let benchUnifiedPushNamespace = "http://gultsch.de/xmpp/drafts/unified-push"

private func bareReceiver(_ userdata: UnsafeMutableRawPointer?) -> BareXMPPReceiver? {
    userdata.map { Unmanaged<BareXMPPReceiver>.fromOpaque($0).takeUnretainedValue() }
}

private let bareConnectionHandler: xmpp_conn_handler = { _, event, _, _, userdata in
    bareReceiver(userdata)?.connected(event)
}

private let bareRegisteredHandler: xmpp_handler = { _, stanza, userdata in
    if let stanza { bareReceiver(userdata)?.registered(stanza) }
    return 0
}

private let barePushHandler: xmpp_handler = { _, stanza, userdata in
    if let stanza { bareReceiver(userdata)?.pushed(stanza) }
    return 1
}
