import Glibc

/// Readings of `CLOCK_MONOTONIC`, the clock every timing of the benchmark
/// and the fuzzer uses (the whole machine's, so readings taken in
/// different processes can be subtracted).
///
/// The monotonic clock never jumps with the wall clock, so a difference of
/// two readings is always a true elapsed time.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (boot, on Linux).
    public static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Nanoseconds that `body` took.
    public static func measure<Failure: Error>(_ body: () throws(Failure) -> Void) throws(Failure) -> UInt64 {
        let start = nanoseconds()
        try body()
        return nanoseconds() - start
    }

    /// Sleeps the whole `seconds`, resuming after interrupting signals.
    public static func sleep(seconds: Double) {
        let whole = seconds.rounded(.down)
        var request = timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR {
            request = remaining
        }
    }
}
