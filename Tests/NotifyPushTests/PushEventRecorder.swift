import NotifyPush
import NotifyTesting
import Synchronization

/// An XMPP push client whose events are recorded, for the tests to wait on.
final class RecordedPushClient: Sendable {
    /// The events, in the order the client's thread reported them.
    final class EventLog: Sendable {
        let events = Mutex<[XMPPPushEvent]>([])
    }

    let log = EventLog()
    let client: XMPPPushClient

    init() throws {
        let log = self.log
        client = try XMPPPushClient { event in log.events.withLock { $0.append(event) } }
    }

    deinit { client.stop() }

    var recorded: [XMPPPushEvent] { log.events.withLock { $0 } }

    /// The first event after the first `skipping` that `match` takes, waited for (bounded).
    func wait<T>(
        _ what: String, seconds: Double = 20, after skipping: Int = 0, _ match: (XMPPPushEvent) -> T?
    ) throws -> T {
        var found: T?
        try waitUntil(what, seconds: seconds) {
            found = recorded.dropFirst(skipping).lazy.compactMap(match).first
            return found != nil
        }
        guard let found else { throw TestFailure("no \(what)") }
        return found
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
