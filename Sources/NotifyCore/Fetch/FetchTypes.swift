/// What a background fetch came to (iOS's `UIBackgroundFetchResult`, plus
/// `expired` for a completion handler not called within its time).
public enum FetchCompletion: String, Sendable, Hashable, CaseIterable {
    case newData = "new-data"
    case noData = "no-data"
    case failed = "failed"
    /// The app did not call `CompleteFetch` within ``FetchBook/handlerTimeout``.
    case expired = "expired"

    /// A result an app may report with `CompleteFetch` (not `expired`), or
    /// `InvalidArgs` naming the three.
    public init(reported text: String) throws(NotifydError) {
        guard let result = FetchCompletion(rawValue: text), result != .expired else {
            throw NotifydError(
                .invalidArgs,
                "unknown fetch result '\(AppID.printable(text))': use new-data, no-data or failed")
        }
        self = result
    }

    /// Whether the result counts towards the backoff after failures.
    var isFailure: Bool { self == .failed || self == .expired }
}

/// What started a fetch.
public enum FetchTrigger: String, Sendable, Hashable {
    /// The schedule (interval, results, usage, conditions).
    case scheduled
    /// `FetchNow` (notifyctl fetch now): outside the schedule.
    case manual
}

/// The state of the system that holds scheduled fetches (GLib's
/// `GNetworkMonitor` and `GPowerProfileMonitor`). A fetch started by
/// `FetchNow` ignores them.
public struct FetchConditions: Sendable, Hashable {
    /// `network-available`: a default route exists.
    public var networkAvailable: Bool
    /// `network-metered`: the network is billed by the byte.
    public var networkMetered: Bool
    /// `power-saver-enabled`.
    public var powerSaver: Bool
    /// UPower's `OnBattery`: fetches ignore it; `discretionary` transfers wait for AC power.
    public var onBattery: Bool

    public init(networkAvailable: Bool = true, networkMetered: Bool = false, powerSaver: Bool = false, onBattery: Bool = false) {
        self.networkAvailable = networkAvailable
        self.networkMetered = networkMetered
        self.powerSaver = powerSaver
        self.onBattery = onBattery
    }

    /// What holds scheduled fetches now, as the end of a sentence
    /// ("waiting for …"); nil when nothing does.
    public var hold: String? {
        if !networkAvailable { return "a network connection" }
        if networkMetered { return "a network that is not metered" }
        if powerSaver { return "power-saver mode to end" }
        return nil
    }
}

/// How wall-clock instants map to the local time of day, which the usage
/// rule and the times in reasons follow: the offset from UTC, in seconds,
/// at an instant (it changes with daylight saving time).
public struct LocalTimeZone: Sendable {
    public let offsetSeconds: @Sendable (Microseconds) -> Int64

    public init(offsetSeconds: @escaping @Sendable (Microseconds) -> Int64) {
        self.offsetSeconds = offsetSeconds
    }

    /// UTC: the tests' zone.
    public static let utc = LocalTimeZone { _ in 0 }

    /// A zone with a fixed offset.
    public static func fixed(hours: Int64) -> LocalTimeZone { LocalTimeZone { _ in hours * 3600 } }

    /// Local seconds since the epoch at `instant` (µs).
    func localSeconds(_ instant: Microseconds) -> Int64 {
        floorDivide(instant, 1_000_000) + offsetSeconds(instant)
    }

    /// The instant (µs) of local seconds `local`, using the offset near `hint`.
    func instant(ofLocal local: Int64, near hint: Microseconds) -> Microseconds {
        (local - offsetSeconds(hint)) * 1_000_000
    }

    /// `HH:MM` of `instant`, local time.
    public func clockTime(_ instant: Microseconds) -> String {
        let ofDay = floorModulo(localSeconds(instant), 86_400)
        return twoDigits(ofDay / 3600) + ":" + twoDigits(ofDay % 3600 / 60)
    }
}

func twoDigits(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
func floorModulo(_ a: Int64, _ b: Int64) -> Int64 { a - floorDivide(a, b) * b }

/// A duration as a person says it: "45 seconds", "15 minutes", "2 hours 30 minutes", "3 days".
public func spokenDuration(_ span: Microseconds) -> String {
    let seconds = max(0, (span + 500_000) / 1_000_000)
    func unit(_ n: Int64, _ name: String) -> String { "\(n) \(name)\(n == 1 ? "" : "s")" }
    if seconds < 60 { return unit(seconds, "second") }
    if seconds < 3600 {
        let minutes = seconds / 60, rest = seconds % 60
        return rest == 0 ? unit(minutes, "minute") : unit(minutes, "minute") + " " + unit(rest, "second")
    }
    if seconds < 86_400 * 2 {
        let hours = seconds / 3600, minutes = seconds % 3600 / 60
        return minutes == 0 ? unit(hours, "hour") : unit(hours, "hour") + " " + unit(minutes, "minute")
    }
    let days = seconds / 86_400, hours = seconds % 86_400 / 3600
    return hours == 0 ? unit(days, "day") : unit(days, "day") + " " + unit(hours, "hour")
}
