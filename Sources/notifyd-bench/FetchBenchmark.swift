import DBus
import Glibc
import NotifyCore
import NotifyTestingCore

/// Background fetch's cost: the bookkeeping of one fetch (`FetchNow`, whose
/// batch stores the fetch, emits `PerformFetch` and plans again, then
/// `CompleteFetch`, which stores the result and the history and plans
/// again) against two `Peer.Ping`s on the same connection, with
/// ``apps`` apps scheduled; then whether an idle daemon with those apps
/// scheduled wakes before the first is due (it must not: one timer, for an
/// hour from now).
struct FetchBenchmark {
    let connection: DBusConnection
    let pid: pid_t
    /// Apps with an interval of ``interval`` seconds, each fetched once.
    static let apps = 100
    static let interval: UInt32 = 3600
    /// The pause before the idle window: GLib retires an idle worker of its
    /// thread pool 15 s after its last job (GIO's start-up work, the first
    /// desktop-file lookups), a one-time exit, not a timer; the window
    /// measures the steady state after it.
    static let settleSeconds = 16.0

    struct Result {
        let pingPairs: LatencySummary
        let fetches: LatencySummary
        let wakeUps: IdleBenchmark.WakeUps
        let warmUpCalls: Int
    }

    static func app(_ index: Int) -> String { "org.notifyd.bench.Fetch\(index)" }

    /// Fetches every app once (so none is due), then gives each its interval.
    func prepare() throws(BenchFailure) {
        for index in 0..<Self.apps {
            _ = try fetchOnce(Self.app(index))
            _ = try call("SetFetchInterval", [.string(Self.app(index)), .uint32(Self.interval)], signature: "")
        }
    }

    /// Times `calls` fetches and `calls` pairs of Pings, alternating, then
    /// counts the daemon's wake-ups over `idleSeconds`.
    func run(calls: Int, warmUpCalls: Int, idleSeconds: Double, settleSeconds: Double) throws(BenchFailure) -> Result {
        for index in 0..<warmUpCalls {
            _ = try pingPair()
            _ = try fetchOnce(Self.app(index % Self.apps))
        }
        var pings = LatencySamples(reservingCapacity: calls)
        var fetches = LatencySamples(reservingCapacity: calls)
        for index in 0..<calls {
            if index % 2 == 0 {
                pings.append(try pingPair())
                fetches.append(try fetchOnce(Self.app(index % Self.apps)))
            } else {
                fetches.append(try fetchOnce(Self.app(index % Self.apps)))
                pings.append(try pingPair())
            }
        }
        let wakeUps = try IdleBenchmark(pid: pid).measureWakeUps(seconds: idleSeconds, settleSeconds: settleSeconds)
        return Result(pingPairs: pings.summary(), fetches: fetches.summary(), wakeUps: wakeUps, warmUpCalls: warmUpCalls)
    }

    /// `FetchNow` then `CompleteFetch(new-data)`: nanoseconds for both.
    private func fetchOnce(_ app: String) throws(BenchFailure) -> UInt64 {
        let start = MonotonicClock.nanoseconds()
        let reply = try call("FetchNow", [.string(app)], signature: "t")
        guard case .uint64(let id)? = reply.first else { throw BenchFailure("FetchNow(\(app)) answered \(reply)") }
        _ = try call("CompleteFetch", [.uint64(id), .string("new-data")], signature: "")
        return MonotonicClock.nanoseconds() - start
    }

    private func pingPair() throws(BenchFailure) -> UInt64 {
        let start = MonotonicClock.nanoseconds()
        for _ in 0..<2 { _ = try call("Ping", [], signature: "", interface: "org.freedesktop.DBus.Peer") }
        return MonotonicClock.nanoseconds() - start
    }

    private func call(
        _ member: String, _ arguments: [DBusValue], signature: String,
        interface: String = NotifydNames.fetchInterface
    ) throws(BenchFailure) -> [DBusValue] {
        do {
            let message = try DBusMessage.methodCall(
                destination: NotifydNames.busName, path: NotifydNames.objectPath, interface: interface,
                member: member, arguments: arguments)
            let reply = try connection.call(message)
            guard reply.signature == signature else {
                throw BenchFailure("\(member) answered '\(reply.signature)', not '\(signature)'.")
            }
            return try reply.arguments()
        } catch let error as BenchFailure {
            throw error
        } catch {
            throw BenchFailure("\(member) failed: \(error)")
        }
    }
}

extension BenchReport {
    mutating func addFetch(_ result: FetchBenchmark.Result) {
        let (fetches, pings) = (result.fetches, result.pingPairs)
        rows += ReportRow.latencies("fetch", "FetchNow + CompleteFetch", fetches, against: "two Peer.Pings", pings, [.p50, .p99])
        let wakeUps = result.wakeUps
        rows.append(
            ReportRow(
                id: "fetch_idle_wakeups",
                figure: "context switches idle with \(FetchBenchmark.apps) apps scheduled, \(NumberText.compact(wakeUps.seconds)) s",
                value: Double(wakeUps.total), unit: .count, target: .atMost(0)))
        notes.append(
            "Fetch: \(fetches.count) fetches (FetchNow, then CompleteFetch new-data) and as many pairs of Pings, "
                + "alternating, after \(result.warmUpCalls) of each, with \(FetchBenchmark.apps) apps on an interval of "
                + "\(FetchBenchmark.interval) s; then idle: \(wakeUps.voluntary) voluntary and \(wakeUps.nonvoluntary) "
                + "involuntary context switches"
                + (wakeUps.threadsEnded.isEmpty ? "" : ", threads ended: \(wakeUps.threadsEnded.joined(separator: ", "))")
                + (wakeUps.threadsThatWoke.isEmpty
                    ? "." : " (\(wakeUps.threadsThatWoke.map { "\($0.name) (\($0.tid)): \($0.switches)" }.joined(separator: ", "))).")
        )
    }
}
