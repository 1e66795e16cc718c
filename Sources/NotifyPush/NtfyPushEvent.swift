/// Where the subscription stream to the ntfy server stands.
public enum NtfyConnectionState: Sendable, Equatable {
    /// A stream is being opened (TCP, TLS, the HTTP request).
    case connecting
    /// The server opened the stream (its `open` event): messages can arrive.
    case connected
    /// There is no stream: it was lost, could not be opened, or there is
    /// nothing to follow; `reason` says which, in words. A lost stream is
    /// tried again after a wait (or at once when the network returns).
    case disconnected(reason: String)
    /// The server's certificate did not verify against the CAs trusted
    /// (the system's, and the CA file's): tried again after a wait.
    case certificateRejected(reason: String)
}

/// What an ``NtfyPushClient`` reports, on its own thread.
public enum NtfyPushEvent: Sendable, Equatable {
    /// The stream's state changed.
    case state(NtfyConnectionState)
    /// A message published to a followed topic; `id` is ntfy's (the
    /// cursor to store, for ``NtfyPushClient/follow(topics:since:)`` after
    /// a restart), `time` the server's Unix seconds, `body` the bytes as
    /// the application server sent them (1 to 4096; ntfy's `"triggered"`
    /// for an empty one).
    case message(topic: String, id: String, time: Int64, body: [UInt8])
    /// Something the server sent was left out (a malformed or overlong
    /// line, a message for a topic not followed, a body over 4096 bytes),
    /// or a topic given was no ntfy topic: `reason` says what, in words.
    case dropped(reason: String)
}

/// What other threads ask of the ntfy client's thread.
enum NtfyPushCommand: Sendable, Equatable {
    case configure(NtfySettings?)
    case follow(topics: Set<String>, since: String?)
    case catchUp(since: String?, forgetting: Set<String>)
    case networkReturned
    case stop
}

/// Why the ntfy push client could not do what it was asked, in words.
public struct NtfyPushError: Error, Equatable, CustomStringConvertible {
    /// One sentence a person can act on.
    public let description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
