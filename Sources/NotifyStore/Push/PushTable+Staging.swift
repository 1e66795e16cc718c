extension StateStore {
    /// Every stored push registration, by token.
    public func loadPushRegistrations() throws -> [StoredPushRegistration] {
        try PushTable.loadRegistrations(from: database)
    }

    /// The push server set, if any.
    public func loadPushServer() throws -> StoredPushServer? {
        try PushTable.loadServer(from: database)
    }

}

extension StateWrites {
    // MARK: UnifiedPush

    /// Stages a registration as it is now (a later one of the same token
    /// replaces it). No I/O.
    public mutating func stagePushRegistration(_ registration: StoredPushRegistration) {
        stage(.pushRegistration(registration))
    }

    /// Stages the removal of a registration and of every message held for
    /// it, applied after what was staged before it. No I/O.
    public mutating func stagePushRegistrationRemoval(token: String) {
        stage(.pushRegistrationRemoval(token: token))
    }

    /// Stages the insert of a message held for its registration. No I/O.
    public mutating func stagePushMessage(_ message: StoredPushMessage) {
        stage(.pushMessage(message))
    }

    /// Stages the push server's cursor. No I/O.
    public mutating func stagePushServerCursor(_ cursor: String) {
        stage(.pushServerCursor(cursor))
    }

    /// Stages the push server (nil: none). No I/O.
    public mutating func stagePushServer(_ server: StoredPushServer?) {
        stage(.pushServer(server))
    }

    /// Stages the removal of a held message (delivered, or dropped). No I/O.
    public mutating func stagePushMessageRemoval(id: UInt64) {
        stage(.pushMessageRemoval(id: id))
    }
}
