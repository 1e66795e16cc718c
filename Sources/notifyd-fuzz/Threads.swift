import NotifyTestingCore
import Synchronization

/// Why the fuzzer could not run (not a finding about notifyd).
struct FuzzFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Hands out case indices to the threads of a run until the count or the
/// time is used up. Which thread sends a case does not change the case.
final class CaseSource: Sendable {
    private let next = Atomic<UInt64>(0)
    private let base: UInt64
    private let count: UInt64
    private let deadline: UInt64
    private let only: [UInt64]?
    private let timedOut = Atomic<Bool>(false)

    /// Indices `base ..< base + count`, until `deadline` (monotonic ns).
    init(base: UInt64, count: UInt64, deadline: UInt64) {
        self.base = base
        self.count = count
        self.deadline = deadline
        only = nil
    }

    /// Exactly these indices (replaying cases).
    init(indices: [UInt64]) {
        base = 0
        count = UInt64(indices.count)
        deadline = .max
        only = indices
    }

    /// The next index, or nil when the run is over.
    func take() -> UInt64? {
        if MonotonicClock.nanoseconds() >= deadline {
            timedOut.store(true, ordering: .relaxed)
            return nil
        }
        let n = next.wrappingAdd(1, ordering: .relaxed).oldValue
        guard n < count else { return nil }
        return only?[Int(n)] ?? base + n
    }

    /// Whether the time ran out before the count.
    var stoppedByTime: Bool { timedOut.load(ordering: .relaxed) }
}
