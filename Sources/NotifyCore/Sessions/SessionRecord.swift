/// What notifyd knows of one background session, besides its pending
/// handlers: the row of `ListSessions`.
public struct SessionRecord: Sendable, Hashable {
    /// The session's ID, as the worker gave it.
    public let id: SessionID
    /// The app that first used the session; it alone may use it.
    public let app: AppID
    /// Events recorded for the session, of every kind.
    public var events: UInt32
    /// When the last event arrived.
    public var lastEvent: Microseconds
    /// The last `bytes-written` reported.
    public var bytesWritten: UInt64?
    /// The last `bytes-expected` reported.
    public var bytesExpected: UInt64?
    /// The last known fraction done, 0 to 1.
    public var progress: Double?
    /// Progress events arrived and no `finished` or `failed` event since.
    public var inProgress: Bool
    /// The result of the last handler invoked.
    public var lastResult: HandlerResult?

    /// A record as stored, or a new session's (no events yet).
    public init(
        id: SessionID, app: AppID, events: UInt32 = 0, lastEvent: Microseconds, bytesWritten: UInt64? = nil,
        bytesExpected: UInt64? = nil, progress: Double? = nil, inProgress: Bool = false,
        lastResult: HandlerResult? = nil
    ) {
        self.id = id
        self.app = app
        self.events = events
        self.lastEvent = lastEvent
        self.bytesWritten = bytesWritten
        self.bytesExpected = bytesExpected
        self.progress = progress
        self.inProgress = inProgress
        self.lastResult = lastResult
    }

    /// Counts an event and takes its bytes and progress: a `progress` event
    /// starts or continues progress, `finished` ends it at 1 (when the size
    /// is known), `failed` ends it where it was.
    mutating func apply(_ event: WorkerEvent, at now: Microseconds) {
        events = events == .max ? .max : events + 1
        lastEvent = now
        if event.bytesWritten != nil || event.bytesExpected != nil {
            bytesWritten = event.bytesWritten ?? bytesWritten
            bytesExpected = event.bytesExpected ?? bytesExpected
            if let expected = bytesExpected, expected > 0 {
                progress = min(1, Double(bytesWritten ?? 0) / Double(expected))
            }
        }
        switch event.kind {
        case .progress:
            inProgress = true
        case .finished:
            inProgress = false
            if bytesExpected != nil { progress = 1 }
        case .failed:
            inProgress = false
        case .fetch:
            break
        }
    }
}

/// What recording one event did.
public struct RecordedEvent: Sendable, Hashable {
    /// The handler the event stored; `nil` for a `progress` event.
    public let handler: CompletionHandler?
    /// The session after the event.
    public let session: SessionRecord
    /// Finished sessions forgotten to keep the book small (the oldest
    /// first); they are to be deleted from storage.
    public let forgotten: [SessionID]

    /// What ``SessionBook/record(_:session:app:at:)`` returns.
    public init(handler: CompletionHandler?, session: SessionRecord, forgotten: [SessionID]) {
        self.handler = handler
        self.session = session
        self.forgotten = forgotten
    }
}
