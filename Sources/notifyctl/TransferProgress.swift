/// Byte counts for people, in SI units as GNOME and browsers show them:
/// `512 B`, `23.5 MB`, `1.2 GB`.
enum ByteCount {
    static let units = ["kB", "MB", "GB", "TB", "PB", "EB"]

    /// `23.5 MB`: one decimal from a kB up.
    static func text(_ bytes: UInt64) -> String {
        let (number, unit) = scaled(Double(bytes))
        return "\(number) \(unit)"
    }

    /// `23.5MB`: one token, for tables.
    static func compact(_ bytes: UInt64) -> String {
        let (number, unit) = scaled(Double(bytes))
        return number + unit
    }

    /// `4.2 MB/s`.
    static func rate(_ bytesPerSecond: Double) -> String {
        let (number, unit) = scaled(max(0, bytesPerSecond))
        return "\(number) \(unit)/s"
    }

    private static func scaled(_ value: Double) -> (String, String) {
        guard value >= 999.5 else { return (String(Int(value.rounded())), "B") }
        var scaled = value / 1000
        var unit = 0
        // 999.96 kB would read 1000.0 kB: one unit up instead.
        while scaled >= 999.95 && unit < units.count - 1 {
            scaled /= 1000
            unit += 1
        }
        let tenths = Int((scaled * 10).rounded())
        return ("\(tenths / 10).\(tenths % 10)", units[unit])
    }

    /// `6 s`, `4 min`, `2 h 5 min`, rounded up; nil past 99 hours.
    static func duration(seconds: Double) -> String? {
        guard seconds.isFinite, seconds >= 0, seconds < 99 * 3600 else { return nil }
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return "\(whole) s" }
        let minutes = (whole + 59) / 60
        if minutes < 60 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }
}

/// The transfer rate over the last few seconds, from the byte counts seen
/// and when (monotonic nanoseconds, given by the caller: a test's clock
/// is a number).
///
/// The rate at `now` is the bytes since the newest sample that is at
/// least ``window`` old (or the oldest one), over the time since it; a
/// transfer that stalls therefore drops to 0 within the window.
struct TransferRate {
    static let window: UInt64 = 5_000_000_000
    /// Less than this much history gives no rate yet (a first burst says little).
    static let minimumSpan: UInt64 = 1_000_000_000

    private(set) var samples: [(time: UInt64, bytes: UInt64)] = []

    /// Adds a count; one that went back (the transfer started over)
    /// starts the history over.
    mutating func add(bytes: UInt64, at time: UInt64) {
        if let last = samples.last, bytes < last.bytes || time < last.time { samples.removeAll() }
        samples.append((time, bytes))
        // Keep one sample at or before the window's start, and what follows.
        while samples.count > 2, samples[1].time + Self.window <= time { samples.removeFirst() }
    }

    /// Forgets the history (the transfer stopped running).
    mutating func reset() {
        samples.removeAll()
    }

    /// A sample this recent counts as "now": between two counts (notifyd
    /// sends one at most twice a second) the rate does not sag.
    static let freshness: UInt64 = 1_000_000_000

    /// Bytes per second at `now`, or nil while there is too little history.
    func bytesPerSecond(at now: UInt64) -> Double? {
        guard let last = samples.last, let first = samples.first else { return nil }
        let end = now >= last.time && now - last.time <= Self.freshness ? last.time : now
        let anchor = samples.last { $0.time + Self.window <= end } ?? first
        guard end > anchor.time, end >= first.time + Self.minimumSpan else { return nil }
        return Double(last.bytes - anchor.bytes) / (Double(end - anchor.time) / 1e9)
    }
}

/// The progress line of `download --wait` and `upload --wait`.
enum ProgressLine {
    static let barWidth = 20

    /// `[#########...........] 47%  23.5 MB / 50.0 MB  4.2 MB/s  6 s left`
    /// while running; the state and its reason otherwise; cut to `width`
    /// columns (the terminal's, less one so the cursor never wraps).
    static func terminalLine(_ transfer: TransferInfo, rate: Double?, width: Int) -> String {
        var parts: [String] = []
        if let fraction = transfer.fraction {
            let filled = Int((fraction * Double(barWidth)).rounded(.down))
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled)
            parts.append("[\(bar)] \(transfer.percentText)")
        }
        parts += details(transfer, rate: rate)
        return cut(parts.joined(separator: "  "), to: width)
    }

    /// `running  47%  23.5 MB / 50.0 MB  4.2 MB/s  6 s left`: a line of
    /// the plain output (not a terminal), state first.
    static func plainLine(_ transfer: TransferInfo, rate: Double?) -> String {
        var parts = [transfer.state]
        if transfer.state != "running" {
            if !transfer.reason.isEmpty && transfer.reason != transfer.state { parts.append(transfer.reason) }
            return Output.printable(parts.joined(separator: "  "))
        }
        if transfer.fraction != nil { parts.append(transfer.percentText) }
        parts += details(transfer, rate: rate)
        return Output.printable(parts.joined(separator: "  "))
    }

    /// The bytes, rate and time left while running; else the state and reason.
    private static func details(_ transfer: TransferInfo, rate: Double?) -> [String] {
        guard transfer.state == "running" else {
            let reason = transfer.reason == transfer.state ? "" : transfer.reason
            let state = reason.isEmpty ? transfer.state : "\(transfer.state): \(reason)"
            return transfer.state == "completed" ? [ByteCount.text(transfer.bytesDone), state] : [state]
        }
        var parts = [transfer.bytesText]
        guard let rate else { return parts }
        guard rate >= 1 else { return parts + ["stalled"] }
        parts.append(ByteCount.rate(rate))
        if transfer.bytesTotal > transfer.bytesDone,
            let left = ByteCount.duration(seconds: Double(transfer.bytesTotal - transfer.bytesDone) / rate)
        {
            parts.append("\(left) left")
        }
        return parts
    }

    /// `text` in at most `width` characters, control characters made visible.
    static func cut(_ text: String, to width: Int) -> String {
        let printable = Output.printable(text)
        guard printable.count > width else { return printable }
        return width > 1 ? String(printable.prefix(width - 1)) + "…" : String(printable.prefix(max(0, width)))
    }
}
