import DBus
import Glibc
import NotifyCore
import NotifyTesting
import NotifyTestingCore

extension TransferBenchmark {
    /// What a daemon with downloads waiting for a network came to.
    struct Queued {
        let count: Int
        /// Transfers `waiting` "for a network" right after the last was queued, and after the window.
        let waitingBefore: Int
        let waitingAfter: Int
        /// Seconds the `count - 1` pipelined `Download` calls took to be answered (each stored).
        let queueSeconds: Double
        let wakeUps: IdleBenchmark.WakeUps
        /// With the first transfer queued (the network monitor started), and with all of them.
        let before: ProcessMemory
        let after: ProcessMemory
    }
}

/// The queued part of ``TransferBenchmark``: a notifyd (on a bus of its
/// own) started under `unshare -n` (`unshare -c -n` when not root: a user
/// namespace mapping the user to itself, so that notifyd's user is the
/// callers'), a network namespace with only a loopback that is down: GIO's
/// netlink monitor sees no default route. The bus socket is a path in the
/// scratch directory, so both sides reach it across namespaces.
///
/// One download is queued first (it starts the system's monitors), the
/// daemon's memory is read, the rest are sent pipelined on one connection
/// (``AsyncCaller``) and all answered; then, after ``settleSeconds``, the
/// daemon's context switches are counted over the window, and its memory
/// read again. The destinations are under `$HOME/.var/app/APP/` of a home
/// in the scratch directory (notifyd's `HOME`), which a caller notifyd
/// cannot look at across namespaces may name too; the URLs are never tried.
struct QueuedTransfers {
    let programs: BenchPrograms
    let scratch: ScratchDirectory
    let settings: TransferBenchmark.Settings

    /// As the fetch section's: GLib retires an idle thread-pool worker 15 s after its last job.
    static let settleSeconds = FetchBenchmark.settleSeconds
    /// notifyd keeps at most 1,000 transfers not ended per app.
    static let perApp = 1_000

    func run() throws(BenchFailure) -> TransferBenchmark.Queued {
        let unshare = "/usr/bin/unshare"
        guard access(unshare, X_OK) == 0 else { throw BenchFailure("\(unshare) is missing (apt install util-linux).") }
        let directory = try scratch.subdirectory("transfer-queued")
        let home = try directory.makeSubdirectory("home")
        let bus = try programs.bus(in: directory)
        defer { bus.stop(graceSeconds: 2) }
        let connection: DBusConnection
        do {
            connection = try DBusConnection.connect(to: .address(bus.address), private: true)
        } catch {
            throw BenchFailure("cannot connect to the private bus in \(directory.path): \(error)")
        }
        let notifyd = try DaemonProcess(
            bus: bus, executable: programs.notifyd, stateDirectoryPath: try directory.makeSubdirectory("state"),
            extraEnvironment: ["HOME": home], commandPrefix: [unshare] + (getuid() == 0 ? ["-n"] : ["-c", "-n"]) + ["--"],
            verbose: false, processGroup: .parents, connection: connection)
        defer { _ = notifyd.process?.terminate(graceSeconds: 5) }
        do {
            return try measure(notifyd, connection: connection, home: home)
        } catch {
            guard let ended = notifyd.process?.poll() else { throw error }
            throw BenchFailure("\(error)\nThe queued transfers' notifyd ended with \(ended). \(notifyd.logTail())")
        }
    }

    private func measure(_ notifyd: DaemonProcess, connection: DBusConnection, home: String) throws(BenchFailure) -> TransferBenchmark.Queued {
        let pid = notifyd.pid
        guard let own = ProcReader.readLink("/proc/self/ns/net"), let its = ProcReader.readLink("/proc/\(pid)/ns/net"), own != its else {
            throw BenchFailure("notifyd (\(pid)) is not in a network namespace of its own")
        }
        let count = settings.queued
        var caller: AsyncCaller?
        do {
            caller = try AsyncCaller(address: notifyd.bus.address)
            _ = try caller?.call(NotifydNames.transfersInterface, "Download", try arguments(0, home: home))
        } catch {
            throw BenchFailure("the first queued Download failed: \(error)")
        }
        MonotonicClock.sleep(seconds: TransferBenchmark.freshSettleSeconds)
        let idle = IdleBenchmark(pid: pid)
        let before = try idle.measureMemory()
        let start = MonotonicClock.nanoseconds()
        do {
            var pending: [PendingReply] = []
            for index in 1..<count {
                guard let caller else { break }
                pending.append(try caller.start(NotifydNames.transfersInterface, "Download", try arguments(index, home: home)))
            }
            for reply in pending { _ = try reply.values(seconds: 120) }
        } catch {
            throw BenchFailure("queueing \(count) downloads failed: \(error)")
        }
        let queueSeconds = Double(MonotonicClock.nanoseconds() - start) / 1e9
        let waitingBefore = try waiting(connection)
        caller = nil  // leaves the bus here, before the settling
        let wakeUps = try idle.measureWakeUps(seconds: settings.idleSeconds, settleSeconds: Self.settleSeconds)
        let after = try idle.measureMemory()
        return .init(
            count: count, waitingBefore: waitingBefore, waitingAfter: try waiting(connection), queueSeconds: queueSeconds,
            wakeUps: wakeUps, before: before, after: after)
    }

    /// `Download`'s arguments for transfer `index`: its app (1,000 a app), a
    /// URL on the discard port of loopback, a path in the app's own directory.
    private func arguments(_ index: Int, home: String) throws(BenchFailure) -> [DBusValue] {
        let app = "org.notifyd.bench.Queued\(index / Self.perApp)"
        let own = "\(home)/.var/app/\(app)"
        if index % Self.perApp == 0 {
            for part in [".var", ".var/app", ".var/app/\(app)"] { mkdir("\(home)/\(part)", 0o755) }
        }
        return [
            .string(app), .string("queued-\(index)"), .string("http://127.0.0.1:9/queued-\(index).bin"),
            .string("\(own)/queued-\(index).bin"), .vardict([:]),
        ]
    }

    /// Transfers `ListTransfers` shows `waiting` for a network.
    private func waiting(_ connection: DBusConnection) throws(BenchFailure) -> Int {
        let rows: [DBusValue]
        do {
            let reply = try connection.call(
                destination: NotifydNames.busName, path: NotifydNames.objectPath, interface: NotifydNames.transfersInterface,
                member: "ListTransfers", [])
            guard case .array(_, let values)? = reply.first else { throw BenchFailure("ListTransfers answered \(reply)") }
            rows = values
        } catch {
            throw BenchFailure("ListTransfers failed: \(error)")
        }
        return rows.filter { row in
            guard case .structure(let fields) = row, fields.count == 4, let details = fields[3].vardictEntries,
                details["state"] == .string("waiting"), case .string(let reason)? = details["reason"]
            else { return false }
            return reason.contains("waiting for a network")
        }.count
    }
}

extension ProcReader {
    /// Where the symbolic link at `path` points (`/proc/PID/ns/net`: `net:[4026531840]`).
    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
