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
public struct AppBook: Sendable, Hashable {
    /// Activations kept per app; recording one more drops the oldest.
    public static let activationsKeptPerApp = 1_000

    /// Apps in a state other than not-running, with the connection that owns it.
    private var reported: [AppID: OwnedState] = [:]
    /// The apps each connection owns; never an empty set.
    private var appsByOwner: [String: Set<AppID>] = [:]
    /// When each app became active, oldest first; never an empty array.
    private var history: [AppID: [Microseconds]] = [:]

    /// A book in which every app is not-running and none was ever active.
    public init() {}

    /// A book with the stored activation history, in any order; only the
    /// newest ``activationsKeptPerApp`` of each app are kept. Every app is
    /// not-running: the connections that owned states before are unknown.
    public init(restoring activations: [Activation]) {
        var times: [AppID: [Microseconds]] = [:]
        for activation in activations { times[activation.app, default: []].append(activation.at) }
        for (app, list) in times {
            history[app] = Array(list.sorted().suffix(Self.activationsKeptPerApp))
        }
    }

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
    public mutating func report(
        _ state: AppState, for app: AppID, by owner: String, at now: Microseconds
    ) -> AppStateReport {
        let old = self.state(of: app)
        release(app)
        if state != .notRunning {
            reported[app] = OwnedState(state: state, owner: owner)
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
            activation: activation, droppedActivations: dropped)
    }

    /// The connection `owner` left the bus: every app whose state it owned
    /// becomes not-running. Returns the changes, ordered by app.
    public mutating func ownerLeft(_ owner: String) -> [AppStateChange] {
        guard let apps = appsByOwner.removeValue(forKey: owner) else { return [] }
        return apps.sorted().compactMap { app in
            guard let old = reported.removeValue(forKey: app)?.state else { return nil }
            return AppStateChange(app: app, old: old, new: .notRunning)
        }
    }

    /// Removes the app's state from its owner, if any.
    private mutating func release(_ app: AppID) {
        guard let previous = reported.removeValue(forKey: app) else { return }
        appsByOwner[previous.owner]?.remove(app)
        if appsByOwner[previous.owner]?.isEmpty == true { appsByOwner[previous.owner] = nil }
    }

    /// Inserts an activation in time order (after any at the same time) and
    /// drops the oldest beyond ``activationsKeptPerApp``; returns how many
    /// were dropped.
    private mutating func recordActivation(of app: AppID, at now: Microseconds) -> Int {
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
