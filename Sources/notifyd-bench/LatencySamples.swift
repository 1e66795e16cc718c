/// Durations collected by one side of a comparison.
struct LatencySamples {
    /// The durations, in nanoseconds, in the order they were taken.
    private(set) var nanoseconds: [UInt64] = []

    init(reservingCapacity capacity: Int = 0) {
        nanoseconds.reserveCapacity(capacity)
    }

    /// Adds one duration.
    mutating func append(_ duration: UInt64) {
        nanoseconds.append(duration)
    }

    /// The figures the report uses (sorts the samples once).
    func summary() -> LatencySummary {
        LatencySummary(nanoseconds)
    }
}

/// The figures taken from a set of durations, in nanoseconds.
///
/// Percentiles are by nearest rank on the sorted samples: p50 of 10,000
/// samples is the 5,000th smallest, p99 the 9,900th.
struct LatencySummary {
    let count: Int
    let p50: Double
    let p99: Double
    let mean: Double
    let minimum: Double
    let maximum: Double

    init(_ samples: [UInt64]) {
        let sorted = samples.sorted()
        count = sorted.count
        p50 = Self.percentile(0.50, ofSorted: sorted)
        p99 = Self.percentile(0.99, ofSorted: sorted)
        mean = sorted.isEmpty ? .nan : Double(sorted.reduce(0, +)) / Double(sorted.count)
        minimum = sorted.first.map { Double($0) } ?? .nan
        maximum = sorted.last.map { Double($0) } ?? .nan
    }

    /// The smallest sample with at least `fraction` (0...1) of all samples at or below it.
    static func percentile(_ fraction: Double, ofSorted sorted: [UInt64]) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return Double(sorted[min(max(rank, 1), sorted.count) - 1])
    }
}

extension ReportRow {
    /// A figure of a set of durations.
    enum Statistic: String {
        case p50, p99, mean

        /// The figure of `summary`, in nanoseconds.
        func of(_ summary: LatencySummary) -> Double {
            switch self {
            case .p50: summary.p50
            case .p99: summary.p99
            case .mean: summary.mean
            }
        }
    }

    /// One row for each of `statistics`: a set of durations against the same
    /// figure of its baseline, e.g. `fetch_p50`, `FetchNow + CompleteFetch,
    /// p50` against `two Peer.Pings, p50`; `targets` for those that have one.
    static func latencies(
        _ id: String, _ figure: String, _ summary: LatencySummary, against baseline: String,
        _ baselineSummary: LatencySummary, _ statistics: [Statistic], unit: Unit = .microseconds,
        targets: [Statistic: Target] = [:]
    ) -> [ReportRow] {
        let scale = unit == .milliseconds ? 1e6 : 1e3
        return statistics.map { statistic in
            ReportRow(
                id: "\(id)_\(statistic.rawValue)", figure: "\(figure), \(statistic.rawValue)",
                value: statistic.of(summary) / scale, unit: unit, baseline: "\(baseline), \(statistic.rawValue)",
                baselineValue: statistic.of(baselineSummary) / scale, target: targets[statistic] ?? .none)
        }
    }
}
