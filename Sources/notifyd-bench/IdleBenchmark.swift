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
    func measureMemory() throws(BenchFailure) -> ProcessMemory {
        guard let memory = ProcReader.memory(ofProcess: pid) else {
            throw BenchFailure("cannot read VmRSS from /proc/\(pid)/status")
        }
        return memory
    }
}

extension ProcReader {
    /// The context switches of every thread of the process, now.
    static func contextSwitches(ofProcess pid: pid_t) -> ContextSwitchSnapshot {
        var threads: [pid_t: ThreadContextSwitches] = [:]
        for name in directoryEntries("/proc/\(pid)/task") {
            guard let tid = pid_t(name), let fields = statusFields("/proc/\(pid)/task/\(name)/status") else {
                continue  // The thread ended meanwhile.
            }
            threads[tid] = ThreadContextSwitches(
                name: fields["Name"] ?? "?",
                voluntary: Int(fields["voluntary_ctxt_switches"] ?? "") ?? 0,
                nonvoluntary: Int(fields["nonvoluntary_ctxt_switches"] ?? "") ?? 0)
        }
        return ContextSwitchSnapshot(threads: threads)
    }
}

/// One thread's context-switch counters.
struct ThreadContextSwitches {
    /// The thread's name (`Name:` in its status), e.g. `notifyd` or `gmain`.
    let name: String
    /// Switches because the thread blocked (waited for I/O, a lock, a timer).
    let voluntary: Int
    /// Switches because the scheduler preempted the thread.
    let nonvoluntary: Int

    var total: Int { voluntary + nonvoluntary }
}

/// The context-switch counters of all threads of a process at one moment.
struct ContextSwitchSnapshot {
    let threads: [pid_t: ThreadContextSwitches]

    var voluntary: Int { threads.values.reduce(0) { $0 + $1.voluntary } }
    var nonvoluntary: Int { threads.values.reduce(0) { $0 + $1.nonvoluntary } }
    var total: Int { voluntary + nonvoluntary }

    /// The threads that switched between `earlier` and this snapshot, with
    /// how often (a thread born meanwhile counts from zero), busiest first.
    func threadsThatSwitched(since earlier: ContextSwitchSnapshot) -> [(tid: pid_t, name: String, switches: Int)] {
        threads.compactMap { tid, now in
            let switches = now.total - (earlier.threads[tid]?.total ?? 0)
            return switches > 0 ? (tid, now.name, switches) : nil
        }
        .sorted { $0.switches > $1.switches }
    }
}
