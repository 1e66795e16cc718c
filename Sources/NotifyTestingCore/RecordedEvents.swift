import Synchronization

/// The events a client reported on a thread of its own (a push client, the
/// transfer engine), in order, for the tests to wait on (bounded).
public final class RecordedEvents<Event: Sendable>: Sendable {
    private let events = Mutex<[Event]>([])

    public init() {}

    /// Adds `event`, from any thread.
    public func append(_ event: Event) { events.withLock { $0.append(event) } }

    /// Every event so far, oldest first.
    public var all: [Event] { events.withLock { $0 } }

    /// The first event after the first `skipping` that `match` takes, waited for.
    public func wait<T>(_ what: String, seconds: Double = 20, after skipping: Int = 0, _ match: (Event) -> T?) throws -> T {
        var found: T?
        try waitUntil(what, seconds: seconds) {
            found = all.dropFirst(skipping).lazy.compactMap(match).first
            return found != nil
        }
        guard let found else { throw TestFailure("no \(what)") }
        return found
    }
}
