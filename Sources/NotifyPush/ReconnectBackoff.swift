/// How long to wait before connecting again: 1 second after the first
/// failure, doubling with each failure that follows, at most 5 minutes;
/// back to 1 second once a connection succeeds.
public struct ReconnectBackoff: Sendable, Equatable {
    /// The first wait.
    public static let initialDelay: Duration = .seconds(1)
    /// The longest wait.
    public static let maximumDelay: Duration = .seconds(300)

    /// Failed attempts since the last success.
    public private(set) var failures = 0

    /// A policy with no failure yet.
    public init() {}

    /// The wait before the next attempt, given the failures so far.
    public var nextDelay: Duration {
        // 2^9 s already exceeds the maximum: stop doubling there.
        let doublings = min(max(failures - 1, 0), 9)
        return min(Self.initialDelay * (1 << doublings), Self.maximumDelay)
    }

    /// Counts a failed attempt and returns the wait before the next one.
    public mutating func failed() -> Duration {
        failures += 1
        return nextDelay
    }

    /// Forgets the failures: a connection succeeded, or the settings or
    /// the network changed.
    public mutating func reset() { failures = 0 }
}
