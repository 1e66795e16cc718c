import ArgumentParser
import Glibc

extension BenchCommand {
    /// The options' ranges, checked before anything starts.
    func validate() throws {
        guard calls >= 1, warmUpCalls >= 0 else { throw ValidationError("--calls must be at least 1, --warm-up-calls at least 0.") }
        guard spawns >= 1 else { throw ValidationError("--spawns must be at least 1.") }
        guard idleSeconds > 0, idleSeconds <= 3600 else { throw ValidationError("--idle-seconds must be between 0 and 3600.") }
        guard (1...1_000).contains(loadClients) else { throw ValidationError("--load-clients must be between 1 and 1000.") }
        guard (1...100_000).contains(loadCalls) else { throw ValidationError("--load-calls must be between 1 and 100000.") }
        guard (1...1_000).contains(coldStarts) else { throw ValidationError("--cold-starts must be between 1 and 1000.") }
        guard (1...10_000).contains(events) else { throw ValidationError("--events must be between 1 and 10000.") }
        guard (1...100_000).contains(listSessions) else {
            throw ValidationError("--list-sessions must be between 1 and 100000 (notifyd's limit of pending handlers).")
        }
        guard (1...100).contains(listCalls) else { throw ValidationError("--list-calls must be between 1 and 100.") }
        guard (1...100_000).contains(pushes) else { throw ValidationError("--pushes must be between 1 and 100000.") }
        guard (1...65_536).contains(transferMib) else { throw ValidationError("--transfer-mib must be between 1 and 65536.") }
        guard transferIdleSeconds > 0, transferIdleSeconds <= 3600 else {
            throw ValidationError("--transfer-idle-seconds must be between 0 and 3600.")
        }
        guard (2...10_000).contains(transferQueued) else {
            throw ValidationError("--transfer-queued must be between 2 and 10000 (notifyd's limit of transfers not ended).")
        }
        guard (1...1_000_000).contains(slowDiskCalls) else { throw ValidationError("--slow-disk-calls must be between 1 and 1000000.") }
        if let soak, !(soak > 0 && soak <= 24 * 60) { throw ValidationError("--soak must be more than 0 and at most 1440 minutes.") }
        guard (1...100).contains(soakClients) else { throw ValidationError("--soak-clients must be between 1 and 100.") }
        guard soakRate >= 0, soakRate <= 1_000_000 else { throw ValidationError("--soak-rate must be between 0 and 1000000.") }
        if let soakSampleSeconds, !(soakSampleSeconds >= 1 && soakSampleSeconds <= 3600) {
            throw ValidationError("--soak-sample-seconds must be between 1 and 3600.")
        }
        guard (1...10_000).contains(limitsFetchApps), (1...10_000).contains(limitsActivationApps) else {
            throw ValidationError("--limits-fetch-apps and --limits-activation-apps must be between 1 and 10000.")
        }
        if soak == nil, only.contains(.soak) { throw ValidationError("the soak runs with --soak MINUTES.") }
        if soak != nil, !skip.isEmpty || !only.isEmpty {
            throw ValidationError("--soak runs the soak section alone; leave out --skip and --only.")
        }
    }

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
        /// A reader's GetBadge and Ping while a client writes in a loop, against the same idle, every fsync 20 ms longer.
        case slowDisk = "slow-disk"
        /// Mixed traffic with bounded state for `--soak` minutes, memory and descriptors sampled.
        case soak
        /// From an application server's POST to the app's Message through Prosody, against a bare XMPP client; a burst to 10 apps.
        case push
        /// Background transfers: no engine thread before the first, a download against curl, downloads waiting for a network.
        case transfer
        /// libcurl on the engine's thread against libcurl on an event loop: throughput, CPU, bus stalls, idle wake-ups.
        case transferDrive = "transfer-drive"
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
