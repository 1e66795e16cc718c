/// An app's background-fetch settings and what its fetches came to: the
/// stored part of its schedule. When its next fetch is due is not stored
/// but planned from this (``FetchPlanner``).
public struct FetchSchedule: Sendable, Hashable {
    /// Seconds, as the app set them: 0 never (the default), 1 minimum, any
    /// other value at most ``FetchSchedule/longestInterval``; raised to the
    /// floor when planned, so a lower floor later applies at once.
    public var requestedInterval: UInt32
    /// The user's switch (iOS's Background App Refresh).
    public var enabled: Bool
    /// When the last fetch started (wall clock, µs); nil before the first.
    public var lastRun: Microseconds?
    /// What the last fetch came to.
    public var lastResult: FetchCompletion?
    /// Fetches run so far.
    public var runs: UInt32
    /// `failed` or `expired` results in a row (the backoff).
    public var failuresInARow: UInt32
    /// `no-data` results in a row (the growth).
    public var noDataInARow: UInt32

    /// The longest interval an app may ask for: a week.
    public static let longestInterval: UInt32 = 604_800

    public init(
        requestedInterval: UInt32 = 0, enabled: Bool = true, lastRun: Microseconds? = nil,
        lastResult: FetchCompletion? = nil, runs: UInt32 = 0, failuresInARow: UInt32 = 0, noDataInARow: UInt32 = 0
    ) {
        self.requestedInterval = requestedInterval
        self.enabled = enabled
        self.lastRun = lastRun
        self.lastResult = lastResult
        self.runs = runs
        self.failuresInARow = failuresInARow
        self.noDataInARow = noDataInARow
    }

    /// Whether the app asked to be fetched at all.
    public var wantsFetches: Bool { requestedInterval > 0 }

    /// The schedule after a fetch that started at `started` came to `result`.
    mutating func learn(_ result: FetchCompletion, startedAt started: Microseconds) {
        lastRun = max(lastRun ?? started, started)
        lastResult = result
        runs &+= 1
        switch result {
        case .newData:
            failuresInARow = 0
            noDataInARow = 0
        case .noData:
            failuresInARow = 0
            noDataInARow &+= 1
        case .failed, .expired:
            noDataInARow = 0
            failuresInARow &+= 1
        }
    }
}

/// A fetch whose completion handler is pending.
public struct RunningFetch: Sendable, Hashable, Identifiable {
    /// The `fetch_id` of `PerformFetch` and `CompleteFetch`.
    public let id: UInt64
    public let app: AppID
    /// When it started (wall clock, µs).
    public let started: Microseconds
    /// When its handler expires (wall clock, µs; moved when the clock is set).
    public let deadline: Microseconds
    public let trigger: FetchTrigger

    public init(id: UInt64, app: AppID, started: Microseconds, deadline: Microseconds, trigger: FetchTrigger) {
        self.id = id
        self.app = app
        self.started = started
        self.deadline = deadline
        self.trigger = trigger
    }

    /// The same fetch with its times moved by `delta` µs.
    func shifted(by delta: Microseconds) -> RunningFetch {
        RunningFetch(id: id, app: app, started: started &+ delta, deadline: deadline &+ delta, trigger: trigger)
    }
}

/// A fetch that ended, for the history.
public struct FetchRecord: Sendable, Hashable, Identifiable {
    public let id: UInt64
    public let app: AppID
    public let started: Microseconds
    public let ended: Microseconds
    public let result: FetchCompletion
    public let trigger: FetchTrigger

    public init(
        id: UInt64, app: AppID, started: Microseconds, ended: Microseconds, result: FetchCompletion,
        trigger: FetchTrigger
    ) {
        self.id = id
        self.app = app
        self.started = started
        self.ended = ended
        self.result = result
        self.trigger = trigger
    }
}

/// A fetch that ended and the app's schedule after it: the rows to store.
public struct EndedFetch: Sendable, Hashable {
    public let record: FetchRecord
    public let schedule: FetchSchedule
    /// Whether older records of the app were dropped from the history.
    public let trimmedHistory: Bool
}
