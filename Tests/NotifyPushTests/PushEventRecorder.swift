import NotifyPush
import NotifyTesting

/// An XMPP push client whose events are recorded, for the tests to wait on.
final class RecordedPushClient: Sendable {
    let log = RecordedEvents<XMPPPushEvent>()
    let client: XMPPPushClient

    init() throws {
        let log = self.log
        client = try XMPPPushClient { event in log.append(event) }
    }

    deinit { client.stop() }

    var recorded: [XMPPPushEvent] { log.all }

    /// The first event after the first `skipping` that `match` takes, waited for (bounded).
    func wait<T>(
        _ what: String, seconds: Double = 20, after skipping: Int = 0, _ match: (XMPPPushEvent) -> T?
    ) throws -> T {
        try log.wait(what, seconds: seconds, after: skipping, match)
    }

    /// Waits for the state `state`, after the first `skipping` events.
    func waitForState(_ what: String, after skipping: Int = 0, seconds: Double = 20, _ match: @escaping (XMPPConnectionState) -> Bool) throws -> XMPPConnectionState {
        try wait(what, seconds: seconds, after: skipping) { event in
            if case .state(let state) = event, match(state) { return state }
            return nil
        }
    }

    /// Registers and returns the endpoint the server gave.
    func registerEndpoint(application: [UInt8], instance: [UInt8]) throws -> String {
        client.register(application: application, instance: instance)
        return try wait("an endpoint") { event in
            switch event {
            case .registered(application, instance, let endpoint, _): return endpoint
            case .registrationFailed(application, instance, let reason): return "failed: \(reason)"
            default: return nil
            }
        }
    }

    /// The next push, waited for.
    func waitForPush(after skipping: Int = 0) throws -> PushMessage {
        try wait("a push", after: skipping) { event in
            if case .push(let message) = event { return message }
            return nil
        }
    }
}

/// An ntfy push client whose events are recorded, for the tests to wait on.
final class RecordedNtfyClient: Sendable {
    let log = RecordedEvents<NtfyPushEvent>()
    let client: NtfyPushClient

    init() throws {
        let log = self.log
        client = try NtfyPushClient { event in log.append(event) }
    }

    deinit { client.stop() }

    var recorded: [NtfyPushEvent] { log.all }

    /// The messages so far: topic, id and body.
    var messages: [(topic: String, id: String, body: [UInt8])] {
        recorded.compactMap { event in
            if case .message(let topic, let id, _, let body) = event { return (topic, id, body) }
            return nil
        }
    }

    /// The reasons of the dropped events so far.
    var dropped: [String] {
        recorded.compactMap { event in
            if case .dropped(let reason) = event { return reason }
            return nil
        }
    }

    /// Waits for a state `match` takes, after the first `skipping` events.
    @discardableResult
    func waitForState(
        _ what: String, after skipping: Int = 0, seconds: Double = 20, _ match: (NtfyConnectionState) -> Bool
    ) throws -> NtfyConnectionState {
        try log.wait(what, seconds: seconds, after: skipping) { event in
            if case .state(let state) = event, match(state) { return state }
            return nil
        }
    }

    /// Waits for `connected`, after the first `skipping` events.
    func waitUntilConnected(after skipping: Int = 0, seconds: Double = 20) throws {
        try waitForState("connected", after: skipping, seconds: seconds) { $0 == .connected }
    }

    /// Waits for a disconnection whose reason holds `words` (any, when
    /// empty); returns its reason.
    func waitForDisconnection(after skipping: Int = 0, seconds: Double = 20, saying words: String = "") throws -> String {
        let state = try waitForState("disconnected, saying \"\(words)\"", after: skipping, seconds: seconds) {
            if case .disconnected(let reason) = $0 { return words.isEmpty || reason.contains(words) }
            return false
        }
        guard case .disconnected(let reason) = state else { return "" }
        return reason
    }

    /// Waits for the message `id`, after the first `skipping` events;
    /// returns its topic and body.
    func waitForMessage(id: String, after skipping: Int = 0, seconds: Double = 20) throws -> (topic: String, body: [UInt8]) {
        try log.wait("the message \(id)", seconds: seconds, after: skipping) { event in
            if case .message(let topic, id, _, let body) = event { return (topic, body) }
            return nil
        }
    }
}
