/// App states and activation history: the rules of the Apps interface,
/// without I/O or a clock.
///
/// The connection that last reported an app's state owns it; when that
/// connection leaves the bus (``ownerLeft(_:)``), the app becomes
/// not-running. States are not stored: after a restart the owning
/// connections are unknown, so every app is not-running. Activations are
/// stored, the newest ``activationsKeptPerApp`` of each app, so that a
/// scheduler can learn when each app is used.
///
/// Every mutation returns what it did, and no change for a no-op, so callers
/// store and announce exactly the real changes.
///
/// Cost: reporting a state is O(1) plus, for `active`, O(1) amortised to
/// append an activation in time order (an activation older than the newest
/// one is inserted in place); dropping the oldest moves the app's history,
/// at most ``activationsKeptPerApp`` entries of 8 bytes.
///
/// At most ``maximumApps`` apps have a state or an activation history: any
/// string of the right shape is an app ID, and each one's history is up to
/// ``activationsKeptPerApp`` rows, so the number of apps must be bounded.
/// No client can clear a history, so a new app is not refused for the
/// histories of others: the app not running whose last activation is the
/// oldest is forgotten to make room. Only when every app known has a
/// state (each owned by a connection still on the bus) is one more refused.
public struct AppBook: Sendable, Hashable {
    /// Activations kept per app; recording one more drops the oldest.
    public static let activationsKeptPerApp = 1_000
    /// Apps with a state other than not-running or an activation history at
    /// most: reporting a state of one more app forgets the history of the
    /// app not running used longest ago, or, when every app has a state, is
    /// `LimitExceeded` and changes nothing.
    public static let maximumApps = 10_000

    /// Apps in a state other than not-running, with the connection that owns it.
    private var reported: [AppID: OwnedState] = [:]
    /// The apps each connection owns; never an empty set.
    private var appsByOwner: [String: Set<AppID>] = [:]
    /// When each app became active, oldest first; never an empty array.
    /// (Internal: the restoring initialisers, in `AppBook+Restoring.swift`, fill it.)
    var history: [AppID: [Microseconds]] = [:]
    /// Apps with a state and no history: with `history.count`, the apps known.
    private var statesOnly = 0

    /// A book in which every app is not-running and none was ever active.
    public init() {}

    /// The app's state; `notRunning` for an app never reported.
    public func state(of app: AppID) -> AppState {
        reported[app]?.state ?? .notRunning
    }

    /// The unique bus name of the connection that owns the app's state;
    /// `nil` when the app is not-running.
    public func owner(of app: AppID) -> String? {
        reported[app]?.owner
    }

    /// The connections that own at least one state: the names the daemon
    /// follows to learn when they leave the bus.
    public var owners: Set<String> { Set(appsByOwner.keys) }

    /// The apps with a state other than not-running or with activations.
    public var knownApps: Set<AppID> { Set(reported.keys).union(history.keys) }

    /// Apps in a state other than not-running, in O(1).
    public var reportedCount: Int { reported.count }

    /// When the app became active, oldest first; at most ``activationsKeptPerApp``.
    public func activations(of app: AppID) -> [Activation] {
        (history[app] ?? []).map { Activation(app: app, at: $0) }
    }

    /// Records that connection `owner` (its unique bus name) reported
    /// `state` for `app` at `now`; the connection becomes the owner, even
    /// when the state does not change. Reporting `active` records an
    /// activation every time (an app brought to the front again counts
    /// again).
    ///
    /// `notRunning` is not something the Apps interface lets a caller
    /// report, but it is accepted with a plain meaning: the app stopped,
    /// and no connection owns its state any more (as if its owner had left
    /// the bus, for this app alone).
    ///
    /// A new app when ``maximumApps`` are known forgets the history of the
    /// app without a state whose last activation is the oldest
    /// (``AppStateReport/forgotten``); when every app known has a state,
    /// throws `LimitExceeded` and changes nothing.
    public mutating func report(
        _ state: AppState, for app: AppID, by owner: String, at now: Microseconds
    ) throws(NotifydError) -> AppStateReport {
        let forgotten = state == .notRunning ? nil : try makeRoom(for: app)
        let old = self.state(of: app)
        release(app)
        if state != .notRunning {
            reported[app] = OwnedState(state: state, owner: owner)
            if history[app] == nil { statesOnly += 1 }
            appsByOwner[owner, default: []].insert(app)
        }
        var activation: Activation?
        var dropped = 0
        if state == .active {
            activation = Activation(app: app, at: now)
            dropped = recordActivation(of: app, at: now)
        }
        return AppStateReport(
            change: old == state ? nil : AppStateChange(app: app, old: old, new: state),
            activation: activation, droppedActivations: dropped, forgotten: forgotten)
    }

    /// The connection `owner` left the bus: every app whose state it owned
    /// becomes not-running. Returns the changes, ordered by app.
    public mutating func ownerLeft(_ owner: String) -> [AppStateChange] {
        guard let apps = appsByOwner.removeValue(forKey: owner) else { return [] }
        let changes = apps.sorted().compactMap { app -> AppStateChange? in
            guard let old = reported.removeValue(forKey: app)?.state else { return nil }
            if history[app] == nil { statesOnly -= 1 }
            return AppStateChange(app: app, old: old, new: .notRunning)
        }
        shrinkIfSparse()
        return changes
    }

    /// Gives back the room of the tables of states once most have ended
    /// (``Swift/Dictionary/shrinkIfSparse()``).
    private mutating func shrinkIfSparse() {
        reported.shrinkIfSparse()
        appsByOwner.shrinkIfSparse()
    }

    /// How many apps have a state other than not-running or a history.
    public var knownAppCount: Int { history.count + statesOnly }

    /// Room for `app` when it is not known and ``maximumApps`` are: forgets
    /// the history of the app without a state used longest ago and returns
    /// it; `LimitExceeded` when every app known has a state.
    private mutating func makeRoom(for app: AppID) throws(NotifydError) -> AppID? {
        guard reported[app] == nil, history[app] == nil, knownAppCount >= Self.maximumApps else { return nil }
        var oldest: (app: AppID, last: Microseconds)?
        for (candidate, times) in history where reported[candidate] == nil {
            let last = times.last ?? 0
            if oldest == nil || (last, candidate) < (oldest!.last, oldest!.app) { oldest = (candidate, last) }
        }
        guard let oldest else {
            throw NotifydError(
                .limitExceeded,
                "\(Self.maximumApps) apps have a state, each reported by a connection still on the bus, the most notifyd keeps, and \(app) would be one more"
            )
        }
        history[oldest.app] = nil
        return oldest.app
    }

    /// Removes the app's state from its owner, if any.
    private mutating func release(_ app: AppID) {
        guard let previous = reported.removeValue(forKey: app) else { return }
        if history[app] == nil { statesOnly -= 1 }
        appsByOwner[previous.owner]?.remove(app)
        if appsByOwner[previous.owner]?.isEmpty == true { appsByOwner[previous.owner] = nil }
        shrinkIfSparse()
    }

    /// Inserts an activation in time order (after any at the same time) and
    /// drops the oldest beyond ``activationsKeptPerApp``; returns how many
    /// were dropped.
    private mutating func recordActivation(of app: AppID, at now: Microseconds) -> Int {
        if history[app] == nil, reported[app] != nil { statesOnly -= 1 }
        var times = history.removeValue(forKey: app) ?? []
        var index = times.endIndex
        while index > times.startIndex && times[index - 1] > now { index -= 1 }
        times.insert(now, at: index)
        let dropped = max(0, times.count - Self.activationsKeptPerApp)
        times.removeFirst(dropped)
        history[app] = times
        return dropped
    }
}

/// An app's reported state and the connection that owns it.
private struct OwnedState: Sendable, Hashable {
    var state: AppState
    var owner: String
}
