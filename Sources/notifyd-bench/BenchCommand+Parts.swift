import ArgumentParser
import Glibc

extension BenchCommand {
    /// The parts of the benchmark, for `--skip`.
    enum Section: String, CaseIterable, ExpressibleByArgument {
        /// GetBadge against Ping.
        case calls
        /// notifyctl against busctl (and gdbus).
        case clients
        /// Context switches while idle.
        case idle
        /// Resident memory.
        case memory
        /// Many clients at once, mixed calls, against Ping under the same concurrency.
        case load
        /// The first reply of a notifyd started by D-Bus activation, against a running daemon.
        case coldStart = "cold-start"
        /// A burst of worker events against a bare receiver and an emitting one; memory per pending handler; popups.
        case events
        /// ListSessions with many sessions: the longest wait of another call, memory before and after.
        case listSessions = "list-sessions"
        /// A fetch's bookkeeping against Pings, and idling with 100 apps scheduled.
        case fetch
        /// BeginBackgroundTask to the sleep lock asked of logind, against a Ping (a stand-in logind).
        case tasks
        /// Mixed traffic with bounded state for `--soak` minutes, memory and descriptors sampled.
        case soak
        /// Memory per item of each kind and at the documented limits, then cleared (long: only with `--only limits`).
        case limits

        /// Sections that run only when asked for (`--soak MINUTES`, `--only limits`): they take many minutes.
        static let optIn: Set<Section> = [.soak, .limits]
    }
}

/// Progress lines on standard error, so that standard output holds only the report.
enum Progress {
    static func say(_ line: String) {
        let bytes = Array("notifyd-bench: \(line)\n".utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
