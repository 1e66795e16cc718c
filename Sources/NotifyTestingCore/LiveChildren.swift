import Glibc
import Synchronization

/// The children ``SpawnedProcess`` started that have not been reaped, in a
/// table a signal handler may read: when the benchmark is stopped by a
/// signal (`timeout`, `kill`, a closed terminal), its `defer`s never run,
/// and its buses, notifyds and Prosody would run on, holding ports and
/// files, with nobody left to stop them. ``terminateAll()`` is what its
/// handler calls.
///
/// A fixed table of atomics: no lock and no allocation after the first
/// use, so reading it in a handler is safe. A child in a process group of
/// its own is listed as its group (a negative number), so that what it
/// started ends with it.
public enum LiveChildren {
    /// How many children can be listed at once; more are not listed (the
    /// benchmark runs a few dozen at most).
    static let capacity = 1_024

    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<Atomic<Int32>> = {
        let slots = UnsafeMutablePointer<Atomic<Int32>>.allocate(capacity: capacity)
        for index in 0..<capacity { (slots + index).initialize(to: Atomic(0)) }
        return slots
    }()

    /// Makes the table, so that a handler installed after this never does.
    public static func prepare() { _ = slots }

    /// Lists `target` (a process ID, or minus a process group's).
    static func add(_ target: Int32) {
        for index in 0..<capacity
        where slots[index].compareExchange(expected: 0, desired: target, ordering: .relaxed).exchanged {
            return
        }
    }

    /// Takes `target` off the list (it ended).
    static func remove(_ target: Int32) {
        for index in 0..<capacity
        where slots[index].compareExchange(expected: target, desired: 0, ordering: .relaxed).exchanged {
            return
        }
    }

    /// Whether `target` is listed (for tests).
    static func contains(_ target: Int32) -> Bool {
        (0..<capacity).contains { slots[$0].load(ordering: .relaxed) == target }
    }

    /// Sends SIGTERM to every child listed. Async-signal-safe: atomic loads
    /// and `kill(2)` only.
    public static func terminateAll() {
        for index in 0..<capacity {
            let target = slots[index].load(ordering: .relaxed)
            if target != 0 { kill(target, SIGTERM) }
        }
    }
}
