/// Where the next subscription stream starts: the `since=` that makes
/// ntfy send again what this client has not emitted, and nothing it has.
///
/// ntfy's `since=<id>` selects the messages stored after that one, in any
/// of the topics (all it has, when it no longer knows the id); a Unix time
/// selects those at or after it. So the cursor is the id of the last
/// message emitted; before any, the server's time when the last stream
/// opened, so that what is published while no stream is open is not
/// missed; before either, nothing (only new messages).
struct NtfyCursor: Equatable {
    /// How many ids are remembered, so that a message the server sends
    /// twice (ntfy's replay of its cache can race a live delivery) is
    /// emitted once.
    static let rememberedIDs = 512

    /// The id of the last message emitted, or given by the caller.
    private(set) var lastID: String?
    /// The server's clock when the last stream opened.
    private var openTime: Int64?
    /// Everything the server keeps is asked for (a rewind with no message
    /// stored to start after).
    private var fromAll = false
    private var recentIDs: [String] = []

    /// The query of the next stream's URL: `?since=...`, or empty.
    var query: String {
        if let lastID { return "?since=\(lastID)" }
        if fromAll { return "?since=all" }
        if let openTime { return "?since=\(openTime)" }
        return ""
    }

    /// Starts from `id`, the caller's stored cursor.
    mutating func start(after id: String) { lastID = id }

    /// Starts again after `id`, the last message the caller stored (nil:
    /// none, so from everything the server keeps), and emits again the
    /// messages `forgotten` (the caller could not store them), but no
    /// other it emitted already.
    mutating func rewind(to id: String?, forgetting forgotten: Set<String>) {
        recentIDs.removeAll { forgotten.contains($0) }
        lastID = id
        fromAll = id == nil
    }

    /// A stream opened at the server's `time`.
    mutating func opened(at time: Int64) { openTime = time }

    /// Whether the message `id` is new; if so, the cursor moves past it.
    mutating func advance(to id: String) -> Bool {
        guard !recentIDs.contains(id) else { return false }
        recentIDs.append(id)
        if recentIDs.count > Self.rememberedIDs { recentIDs.removeFirst(recentIDs.count - Self.rememberedIDs) }
        lastID = id
        return true
    }
}
