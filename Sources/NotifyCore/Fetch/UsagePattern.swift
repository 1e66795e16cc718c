/// When the user usually opens an app: the half hours of the day (local
/// time) in which the activation history shows it opened on at least
/// ``daysNeeded`` of the last ``daysLooked`` days. The usage rule plans a
/// fetch ``leadTime`` before such a half hour.
public struct UsagePattern: Sendable, Hashable {
    public static let daysLooked: Int64 = 7
    public static let daysNeeded = 3
    /// A fetch is planned this long before the habitual half hour.
    public static let leadTime: Microseconds = 600_000_000
    static let slotSeconds: Int64 = 1800

    /// A habitual half hour: its start, in seconds after local midnight,
    /// and on how many of the days looked at the app was opened in it.
    public struct Habit: Sendable, Hashable {
        public let slotStart: Int64
        public let days: Int
        /// `HH:MM`.
        public var clockTime: String { twoDigits(slotStart / 3600) + ":" + twoDigits(slotStart % 3600 / 60) }
    }

    /// The habits, earliest half hour first.
    public let habits: [Habit]

    /// The pattern of `activations` (wall clock, µs, any order) in the
    /// ``daysLooked`` days before `now`.
    public init(activations: [Microseconds], now: Microseconds, timeZone: LocalTimeZone) {
        let since = now - Self.daysLooked * 86_400 * 1_000_000
        var daysBySlot: [Int64: Set<Int64>] = [:]
        for instant in activations where instant > since && instant <= now {
            let local = timeZone.localSeconds(instant)
            let day = floorDivide(local, 86_400)
            let slot = floorModulo(local, 86_400) / Self.slotSeconds
            daysBySlot[slot, default: []].insert(day)
        }
        habits = daysBySlot.filter { $0.value.count >= Self.daysNeeded }
            .map { Habit(slotStart: $0.key * Self.slotSeconds, days: $0.value.count) }
            .sorted { $0.slotStart < $1.slotStart }
    }

    /// The earliest instant at or after `earliest` that is ``leadTime``
    /// before one of the habitual half hours, with that habit; nil without habits.
    public func firstFetch(notBefore earliest: Microseconds, timeZone: LocalTimeZone) -> (Microseconds, Habit)? {
        var best: (Microseconds, Habit)?
        let localEarliest = timeZone.localSeconds(earliest)
        let midnight = floorDivide(localEarliest, 86_400) * 86_400
        for habit in habits {
            // Today's occurrence, else tomorrow's (the lead time may cross midnight).
            for dayOffset in Int64(-1)...2 {
                let local = midnight + dayOffset * 86_400 + habit.slotStart - Self.leadTime / 1_000_000
                let instant = timeZone.instant(ofLocal: local, near: earliest)
                guard instant >= earliest else { continue }
                if best == nil || instant < best!.0 { best = (instant, habit) }
                break
            }
        }
        return best
    }
}
