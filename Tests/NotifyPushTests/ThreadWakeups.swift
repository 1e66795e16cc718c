import Glibc
import NotifyTesting
import NotifyTestingCore

/// How often a client's thread was woken: its context switches, voluntary
/// and not, as `/proc/self/task/ID/status` counts them.
struct ThreadWakeups {
    let thread: Int32

    /// The switches so far.
    func count() throws -> Int {
        guard let fields = ProcReader.statusFields("/proc/self/task/\(thread)/status"),
            let voluntary = fields["voluntary_ctxt_switches"].flatMap({ Int($0) }),
            let nonvoluntary = fields["nonvoluntary_ctxt_switches"].flatMap({ Int($0) })
        else { throw TestFailure("cannot read the client thread's context switches") }
        return voluntary + nonvoluntary
    }

    /// The switches within a window of `seconds`: a measurement, not a
    /// wait for a condition (the thread must not run at all within it).
    func during(seconds: Double) throws -> Int {
        let before = try count()
        usleep(UInt32(seconds * 1_000_000))
        return try count() - before
    }
}
