/// How a completion handler was invoked.
public enum HandlerResult: String, Sendable, CaseIterable {
    /// The app handled the session's events (`CompleteSession`).
    case completed
    /// The session was cancelled (`CancelSession`).
    case cancelled
    /// Its deadline passed first.
    case expired
}

/// A pending completion handler: stored for one event of a session and
/// invoked exactly once, by completion, cancellation or its deadline.
public struct CompletionHandler: Sendable, Hashable {
    /// Unique for the life of the book, restarts included; ids grow in the
    /// order handlers are stored.
    public let id: UInt64
    /// The session whose event stored it.
    public let session: SessionID
    /// The app the session belongs to.
    public let app: AppID
    /// When the event that stored it arrived.
    public let storedAt: Microseconds
    /// When it is invoked `expired` if nothing invoked it before.
    public let deadline: Microseconds

    /// A handler as stored; ``SessionBook`` makes new ones.
    public init(id: UInt64, session: SessionID, app: AppID, storedAt: Microseconds, deadline: Microseconds) {
        self.id = id
        self.session = session
        self.app = app
        self.storedAt = storedAt
        self.deadline = deadline
    }
}

/// A handler that was just invoked, and how: one `SessionCompleted` signal.
public struct InvokedHandler: Sendable, Hashable {
    /// The handler, no longer pending.
    public let handler: CompletionHandler
    /// What invoked it.
    public let result: HandlerResult

    /// A handler and how it was invoked.
    public init(handler: CompletionHandler, result: HandlerResult) {
        self.handler = handler
        self.result = result
    }
}
