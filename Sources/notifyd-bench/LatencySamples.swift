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
