import Glibc

/// How often a thread of this process was woken: its context switches,
/// voluntary and not, as `/proc/self/task/ID/status` counts them. For the
/// idle checks of the threads that sleep in a poll of their own (the push
/// clients', the transfer engine's).
public struct ThreadWakeups: Sendable {
    /// The kernel's id of the thread (`/proc/self/task/ID`).
    public let thread: Int32

    public init(thread: Int32) {
        self.thread = thread
    }

    /// The switches so far.
    public func count() throws -> Int {
        guard let fields = ProcReader.statusFields("/proc/self/task/\(thread)/status"),
            let voluntary = fields["voluntary_ctxt_switches"].flatMap({ Int($0) }),
            let nonvoluntary = fields["nonvoluntary_ctxt_switches"].flatMap({ Int($0) })
        else { throw TestFailure("cannot read the context switches of thread \(thread)") }
        return voluntary + nonvoluntary
    }

    /// The switches within a window of `seconds`: a measurement, not a
    /// wait for a condition (the thread must not run at all within it).
    public func during(seconds: Double) throws -> Int {
        let before = try count()
        usleep(UInt32(seconds * 1_000_000))
        return try count() - before
    }
}
