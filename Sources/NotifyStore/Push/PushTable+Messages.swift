/// A push message held for its registration, as stored, without its body:
/// what notifyd keeps in memory (bodies are read back one at a time, when
/// a message is delivered again).
public struct StoredHeldPushMessage: Sendable, Hashable {
    public var id: UInt64
    public var token: String
    public var serverID: String
    /// The body's length in bytes.
    public var size: Int
    /// Unix µs; moved when the wall clock is set.
    public var received: Int64

    public init(id: UInt64, token: String, serverID: String, size: Int, received: Int64) {
        self.id = id
        self.token = token
        self.serverID = serverID
        self.size = size
        self.received = received
    }
}

extension StateStore {
    /// Every push message held, by ID (oldest first), without its body.
    public func loadHeldPushMessages() throws -> [StoredHeldPushMessage] {
        let select = try database.prepare(
            "SELECT id, token, server_id, length(body), received_us FROM push_messages ORDER BY id")
        var rows: [StoredHeldPushMessage] = []
        while try select.step() {
            guard let id = select.uint64(bitPatternAt: 0), id > 0, let token = select.string(at: 1),
                let serverID = select.string(at: 2), let size = Int(exactly: select.int64(at: 3))
            else { continue }
            rows.append(
                StoredHeldPushMessage(id: id, token: token, serverID: serverID, size: size, received: select.int64(at: 4)))
        }
        return rows
    }

    /// The body of held message `id`, exactly as stored; nil when no
    /// message of that ID is held (delivered or dropped meanwhile).
    public func loadPushMessageBody(id: UInt64) throws -> [UInt8]? {
        let select = try database.prepare("SELECT body FROM push_messages WHERE id = ?1")
        try select.bind(bitPattern: id, at: 1)
        guard try select.step() else { return nil }
        return select.bytes(at: 0)
    }
}
