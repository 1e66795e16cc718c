import Glibc
import NotifyTestingCore

/// What an idle notifyd costs the machine: wake-ups and resident memory.
///
/// An idle daemon should sleep in `epoll_wait` until a message or a due
/// timer wakes it: every wake-up is a context switch, so the sum of
/// `voluntary_ctxt_switches` and `nonvoluntary_ctxt_switches` over all its
/// threads (`/proc/PID/task/*/status`) should not move while no one calls.
struct IdleBenchmark {
    let pid: pid_t

    struct WakeUps {
        let seconds: Double
        let before: ContextSwitchSnapshot
        let after: ContextSwitchSnapshot

        /// Over the threads alive at the end (one born meanwhile counts from zero).
        var voluntary: Int {
            after.threads.reduce(0) { $0 + $1.value.voluntary - (before.threads[$1.key]?.voluntary ?? 0) }
        }
        var nonvoluntary: Int {
            after.threads.reduce(0) { $0 + $1.value.nonvoluntary - (before.threads[$1.key]?.nonvoluntary ?? 0) }
        }
        /// Threads that ended meanwhile: each woke at least once, to end.
        var threadsEnded: [String] {
            before.threads.filter { after.threads[$0.key] == nil }.map { "\($0.value.name) (\($0.key))" }.sorted()
        }
        var total: Int { voluntary + nonvoluntary + threadsEnded.count }
        /// Which threads woke, e.g. `notifyd (1234): 30`.
        var threadsThatWoke: [(tid: pid_t, name: String, switches: Int)] { after.threadsThatSwitched(since: before) }
    }

    struct Memory {
        /// `VmRSS`: resident now.
        let residentKilobytes: Int
        /// `VmHWM`: the most that was ever resident.
        let peakResidentKilobytes: Int?
        /// `RssAnon`: resident memory not backed by a file (heap, stacks).
        let anonymousKilobytes: Int?
        let threads: Int?
    }

    /// Lets the daemon finish what earlier sections left (e.g. clients that
    /// just left the bus), then counts its context switches over `seconds`.
    func measureWakeUps(seconds: Double, settleSeconds: Double) throws(BenchFailure) -> WakeUps {
        MonotonicClock.sleep(seconds: settleSeconds)
        let before = ProcReader.contextSwitches(ofProcess: pid)
        guard !before.threads.isEmpty else { throw BenchFailure("cannot read /proc/\(pid)/task: is notifyd running?") }
        MonotonicClock.sleep(seconds: seconds)
        let after = ProcReader.contextSwitches(ofProcess: pid)
        guard !after.threads.isEmpty else { throw BenchFailure("notifyd (\(pid)) ended while idle.") }
        return WakeUps(seconds: seconds, before: before, after: after)
    }

    /// Reads the daemon's memory figures now.
    func measureMemory() throws(BenchFailure) -> Memory {
        guard let fields = ProcReader.statusFields("/proc/\(pid)/status"),
            let resident = ProcReader.kilobytes(fields["VmRSS"])
        else { throw BenchFailure("cannot read VmRSS from /proc/\(pid)/status") }
        return Memory(
            residentKilobytes: resident,
            peakResidentKilobytes: ProcReader.kilobytes(fields["VmHWM"]),
            anonymousKilobytes: ProcReader.kilobytes(fields["RssAnon"]),
            threads: fields["Threads"].flatMap { Int($0) })
    }
}
