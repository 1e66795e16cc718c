import NotifyTestingCore

/// One line of the report: a measured figure, the baseline it is compared
/// with (measured in the same run), the ratio, the target and the verdict.
struct ReportRow {
    /// A stable key for machines, e.g. `getbadge_p50`.
    let id: String
    /// What was measured, e.g. `GetBadge round trip, p50`.
    let figure: String
    /// The figure in ``unit``, or nil when it could not be measured.
    let value: Double?
    let unit: Unit
    /// What the figure is compared with, e.g. `Peer.Ping, p50`.
    var baseline: String? = nil
    var baselineValue: Double? = nil
    var target: Target = .none
    /// Why the figure is missing, or what to know when reading it.
    var note: String? = nil

    enum Unit: String {
        case microseconds = "us"
        case milliseconds = "ms"
        case count
        case kilobytes = "kB"
        case bytes = "B"
        /// Events (or other things) per second.
        case perSecond = "1/s"

        /// Digits after the point in JSON: whole counts, sizes and rates have none.
        var jsonDecimals: Int {
            switch self {
            case .microseconds, .milliseconds: 3
            case .count, .kilobytes, .bytes, .perSecond: 0
            }
        }
    }

    /// What counts as meeting the goal.
    enum Target {
        /// No target: the row is for information.
        case none
        /// value / baseline at most this (for times: lower is better).
        case ratioAtMost(Double)
        /// value / baseline at least this (for rates: higher is better).
        case ratioAtLeast(Double)
        /// The value itself exactly this (e.g. nothing lost, nothing added).
        case exactly(Double)
        /// The value itself at most this.
        case atMost(Double)
        /// The value itself below this.
        case below(Double)
    }

    enum Verdict: String {
        case pass = "PASS"
        case miss = "MISS"
        /// A row with no target.
        case information = "-"
        /// The figure could not be measured.
        case unavailable = "N/A"
    }

    /// value / baseline, when both exist and the baseline is not zero.
    var ratio: Double? {
        guard let value, let baselineValue, baselineValue != 0 else { return nil }
        return value / baselineValue
    }

    var verdict: Verdict {
        guard let value else { return .unavailable }
        switch target {
        case .none: return .information
        case .ratioAtMost(let limit):
            guard let ratio else { return .unavailable }
            return ratio <= limit ? .pass : .miss
        case .ratioAtLeast(let limit):
            guard let ratio else { return .unavailable }
            return ratio >= limit ? .pass : .miss
        case .exactly(let expected): return value == expected ? .pass : .miss
        case .atMost(let limit): return value <= limit ? .pass : .miss
        case .below(let limit): return value < limit ? .pass : .miss
        }
    }

    /// The target as the table shows it, e.g. `<= 1.30x`.
    var targetText: String {
        switch target {
        case .none: ""
        case .ratioAtMost(let limit): "<= \(NumberText.fixed(limit, decimals: 2))x"
        case .ratioAtLeast(let limit): ">= \(NumberText.fixed(limit, decimals: 2))x"
        case .exactly(let expected): "= \(ReportRow.text(expected, unit))"
        case .atMost(let limit): "<= \(ReportRow.text(limit, unit))"
        case .below(let limit): "< \(ReportRow.text(limit, unit))"
        }
    }

    var valueText: String { value.map { ReportRow.text($0, unit) } ?? "n/a" }
    var baselineValueText: String { baselineValue.map { ReportRow.text($0, unit) } ?? "" }
    var ratioText: String { ratio.map { NumberText.fixed($0, decimals: 2) + "x" } ?? "" }

    /// A figure with its unit, as a person reads it.
    static func text(_ value: Double, _ unit: Unit) -> String {
        switch unit {
        case .microseconds: "\(NumberText.fixed(value, decimals: 1)) µs"
        case .milliseconds: "\(NumberText.fixed(value, decimals: value < 1 ? 3 : 2)) ms"
        case .count: NumberText.fixed(value, decimals: 0)
        case .kilobytes: "\(NumberText.fixed(value / 1024, decimals: 1)) MB"
        case .bytes: "\(NumberText.fixed(value, decimals: 0)) B"
        case .perSecond: "\(NumberText.fixed(value, decimals: 0))/s"
        }
    }
}

extension ReportRow {
    /// The row of a resident-memory figure (`VmRSS`), against another
    /// reading if given; none when the reading was not taken.
    static func resident(
        _ id: String, _ figure: String, _ memory: ProcessMemory?, against baseline: String? = nil,
        _ baselineMemory: ProcessMemory? = nil, target: Target = .none, note: String? = nil
    ) -> [ReportRow] {
        guard let memory else { return [] }
        return [
            ReportRow(
                id: id, figure: figure, value: Double(memory.residentKilobytes), unit: .kilobytes, baseline: baseline,
                baselineValue: baselineMemory.map { Double($0.residentKilobytes) }, target: target, note: note)
        ]
    }

    /// `RssAnon` as the notes give it: `1234`, or `?` when it was not read.
    static func anonymousText(_ memory: ProcessMemory) -> String {
        memory.anonymousKilobytes.map { String($0) } ?? "?"
    }

    /// The median of `values` (the mean of the middle two for an even count); nil for none.
    static func median(_ values: [Double]) -> Double? {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return nil }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// A download's size as the report names it: `1 GiB`, `300 MiB`.
    static func sizeText(mebibytes: Int) -> String {
        mebibytes % 1024 == 0 ? "\(mebibytes / 1024) GiB" : "\(mebibytes) MiB"
    }

    /// The median rate, in MiB a second, of runs of `mebibytes` MiB that
    /// took `nanoseconds` each.
    static func medianRate(mebibytes: Double, nanoseconds: [UInt64]) -> Double? {
        median(nanoseconds.map { mebibytes / (Double(max(1, $0)) / 1e9) })
    }

    /// The median CPU time per GiB, in ms, of runs of `mebibytes` MiB that
    /// took `cpuNanoseconds` each.
    static func medianCPUPerGiB(mebibytes: Double, cpuNanoseconds: [UInt64]) -> Double? {
        median(cpuNanoseconds.map { Double($0) / 1e6 * 1024 / mebibytes })
    }
}
