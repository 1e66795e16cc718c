/// What a batch can hold, staged with no I/O (``StateStore/commit(_:)``
/// writes them).
extension StateWrites {
    /// Stages the badge of `appID` for the commit; 0 removes it. No I/O;
    /// a later call for the same app replaces this one.
    public mutating func stageBadge(_ appID: String, count: UInt32) {
        stage(.badge(appID: appID, count: count))
    }

    /// Stages `session` for the commit, inserting or replacing the row
    /// with its ID. No I/O; a later write for the same session replaces this one.
    public mutating func stageSession(_ session: StoredSession) {
        stage(.session(session))
    }

    /// Stages the removal of session `id`. No I/O; a later write for the same
    /// session replaces this one.
    public mutating func stageSessionRemoval(_ id: String) {
        stage(.sessionRemoval(id: id))
    }

    /// Stages the insert of `handler` and raises the last handler ID to its
    /// ID. No I/O. An ID already stored, or staged twice, makes the commit
    /// fail with `.constraint`.
    public mutating func stageHandler(_ handler: StoredHandler) {
        stage(.handler(handler))
    }

    /// Stages the removal of handler `id` (it was invoked). No I/O. A
    /// handler staged in the same batch is inserted and deleted in order,
    /// so that a reused ID still fails the commit; no row is left, and the
    /// last handler ID counts it.
    public mutating func stageHandlerRemoval(_ id: UInt64) {
        stage(.handlerRemoval(id: id))
    }

    /// Stages moving every handler's deadline, every running fetch's times
    /// and every app's last fetch by `microseconds`, those staged before it
    /// included. No I/O.
    public mutating func stageDeadlineShift(by microseconds: Int64) {
        stage(.deadlineShift(microseconds: microseconds))
    }

    /// Stages the insert of `activation` as a row of its own (the same app
    /// and time twice are two rows). No I/O.
    public mutating func stageActivation(_ activation: StoredActivation) {
        stage(.activation(activation))
    }

    /// Stages the deletion of all but the newest `keepNewest` activations of
    /// `app` (of all of them for 0 or less), applied after the activations
    /// staged before it. No I/O; a later trim of the same app replaces this one.
    public mutating func stageActivationTrim(app: String, keepNewest: Int) {
        stage(.activationTrim(appID: app, keepNewest: keepNewest))
    }

    // MARK: Fetches

    /// Stages an app's schedule (a later one of the same app replaces it). No I/O.
    public mutating func stageFetchSchedule(_ schedule: StoredFetchSchedule) {
        stage(.fetchSchedule(schedule))
    }

    /// Stages the insert of a fetch that started. No I/O.
    public mutating func stageFetchStart(_ fetch: StoredFetch) {
        stage(.fetchStart(fetch))
    }

    /// Stages a fetch's end. No I/O.
    public mutating func stageFetchEnd(id: UInt64, at ended: Int64, result: String) {
        stage(.fetchEnd(id: id, at: ended, result: result))
    }

    /// Stages the deletion of all but the newest `keepNewest` ended fetches of `app`. No I/O.
    public mutating func stageFetchHistoryTrim(app: String, keepNewest: Int) {
        stage(.fetchHistoryTrim(appID: app, keepNewest: keepNewest))
    }
}
