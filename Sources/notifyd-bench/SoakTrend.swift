/// The trend of a reading over the soak's window: the least-squares line
/// through every sample in it, read at the window's first and last
/// moment.
///
/// Growth is judged on the line, not on the two end samples: resident
/// memory moves by a few hundred kilobytes from one reading to the next
/// (a reply being built, a batch being committed, the allocator's
/// arenas), which at 27 MB is as much as the 2 % target itself, so two
/// single readings could pass a real creep or fail a flat curve. A line
/// through 11 to 37 readings keeps a steady rise and averages the
/// noise out.
struct SoakTrend {
    /// The line's value at the window's first sample.
    let start: Double
    /// The line's value at the window's last sample.
    let end: Double
    /// How many samples the line was drawn through.
    let samples: Int

    /// `end / start`: 1.02 is a rise of 2 % across the window.
    var ratio: Double { start > 0 ? end / start : .infinity }

    /// The line through `points` (seconds, value); nil for fewer than two
    /// points or points all at one moment.
    init?(_ points: [(seconds: Double, value: Double)]) {
        guard points.count >= 2, let first = points.first, let last = points.last else { return nil }
        let count = Double(points.count)
        let meanSeconds = points.reduce(0) { $0 + $1.seconds } / count
        let meanValue = points.reduce(0) { $0 + $1.value } / count
        var covariance = 0.0
        var variance = 0.0
        for point in points {
            covariance += (point.seconds - meanSeconds) * (point.value - meanValue)
            variance += (point.seconds - meanSeconds) * (point.seconds - meanSeconds)
        }
        guard variance > 0 else { return nil }
        let slope = covariance / variance
        start = meanValue + slope * (first.seconds - meanSeconds)
        end = meanValue + slope * (last.seconds - meanSeconds)
        samples = points.count
    }
}
