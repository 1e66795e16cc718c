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

    /// Stages the removal of a held message (delivered, or dropped). No I/O.
    public mutating func stagePushMessageRemoval(id: UInt64) {
        stage(.pushMessageRemoval(id: id))
    }
}
