/// An app's state, as the Apps interface reports it (`GetState`, `StateChanged`).
public enum AppState: String, Sendable, CaseIterable {
    /// In the foreground (`DidBecomeActive`).
    case active
    /// In the foreground, about to lose it (`WillResignActive`).
    case inactive
    /// Running in the background (`DidEnterBackground`).
    case background
    /// Never reported, or the connection that reported its state left the bus.
    case notRunning = "not-running"
}

/// A change of one app's state: one `StateChanged` signal.
public struct AppStateChange: Sendable, Hashable {
    public let app: AppID
    public let old: AppState
    public let new: AppState

    public init(app: AppID, old: AppState, new: AppState) {
        self.app = app
        self.old = old
        self.new = new
    }
}

/// One time an app became active, for storing and for learning when an app
/// is used.
public struct Activation: Sendable, Hashable {
    public let app: AppID
    /// When it became active, in Unix µs.
    public let at: Microseconds

    public init(app: AppID, at: Microseconds) {
        self.app = app
        self.at = at
    }
}

/// What reporting one state did.
public struct AppStateReport: Sendable, Hashable {
    /// The change of state; `nil` when the app was already in that state.
    public let change: AppStateChange?
    /// The activation recorded: every report of `active` is one, even when
    /// the app was already active.
    public let activation: Activation?
    /// How many of the app's oldest activations were dropped to keep its
    /// history at ``AppBook/activationsKeptPerApp`` (this one itself when
    /// it is older than all those kept, after the clock was set back); the
    /// store is to be trimmed the same way.
    public let droppedActivations: Int
    /// The app whose whole history was forgotten to make room for this one
    /// (``AppBook/maximumApps``); the store is to drop its rows too.
    public let forgotten: AppID?

    /// What ``AppBook/report(_:for:by:at:)`` returns.
    public init(change: AppStateChange?, activation: Activation?, droppedActivations: Int, forgotten: AppID? = nil) {
        self.change = change
        self.activation = activation
        self.droppedActivations = droppedActivations
        self.forgotten = forgotten
    }
}
