/// At most two progress reports a second: one at once, then one when
/// half a second has passed since the last, carrying the latest count.
struct ProgressThrottle {
    static let interval: UInt64 = 500_000_000
    private var last: UInt64 = 0
    private var held = false

    /// The body started at `now`: the first report waits half a second.
    mutating func started(at now: UInt64) { last = now }

    /// Whether a report may go out at `now` (then it counts as sent); if not, one is held back.
    mutating func mayReport(at now: UInt64) -> Bool {
        guard now >= last + Self.interval else {
            held = true
            return false
        }
        last = now
        held = false
        return true
    }

    /// When the held-back report is due.
    var due: UInt64? { held ? last + Self.interval : nil }
}
