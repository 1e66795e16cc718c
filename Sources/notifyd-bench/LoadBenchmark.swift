import DBus
import NotifyTestingCore
import Synchronization

/// Many clients at once against one notifyd: each client a thread with a
/// private connection of its own, making blocking calls one after another.
///
/// The notifyd is one of its own, on a bus of its own (both started for the
/// section and stopped after it, in a subdirectory of the scratch
/// directory, with a fresh state directory): 100,000 calls leave their mark
/// on a daemon (finished sessions, a larger heap and page cache), which would
/// falsify the memory per pending handler the events section measures next.
///
/// Two phases, every client in step (they meet at a barrier before and
/// after each): first `calls` `Peer.Ping` calls per client, the baseline
/// (libdbus answers Ping before notifyd's dispatch, so it is the floor of a
/// round trip under the same concurrency: the bus, the sockets, the loop's
/// wake-up), then `calls` calls of the mix (``LoadCall``) per client. Every
/// call must be answered, without error and with the answer the client's own
/// calls imply (``LoadExpectation``). Before the first phase each client
/// connects and makes a few untimed calls; after the last it completes what
/// it left pending and clears its badge, untimed.
struct LoadBenchmark {
    let programs: BenchPrograms
    let scratch: ScratchDirectory
    let clients: Int
    /// Calls of each phase per client.
    let calls: Int

    struct Result {
        let clients: Int
        let callsPerClient: Int
        /// The calls of the mix per kind, as scheduled.
        let scheduled: [LoadCall: Int]
        let latencies: [LoadCall: LatencySummary]
        let all: LatencySummary
        let ping: LatencySummary
        /// Wall time of each phase, from the barrier that starts it to the one that ends it.
        let pingNanoseconds: UInt64
        let mixNanoseconds: UInt64
        /// CPU time notifyd and its bus used in each phase.
        let pingCPU: (notifyd: UInt64?, bus: UInt64?)
        let mixCPU: (notifyd: UInt64?, bus: UInt64?)
        /// Every client's outcome, merged.
        let outcome: LoadClientOutcome
        let setUpFailures: [String]
        let pendingBefore: Int
        /// After the clean-up; nil when notifyd did not answer.
        let pendingAfter: Int?
        let before: ProcessMemory
        /// nil when notifyd is gone.
        let after: ProcessMemory?

        var totalCalls: Int { clients * callsPerClient }
        var answered: Int { all.count }
        var errorCount: Int { outcome.errors.values.reduce(0, +) }
        var wrongCount: Int { outcome.wrongAnswers.values.reduce(0, +) }
    }

    /// Starts the bus and notifyd, measures, stops them.
    func run() throws(BenchFailure) -> Result {
        let daemon = try BenchDaemon(programs: programs, scratch: scratch, section: "load", name: "The load's notifyd")
        defer { daemon.stop() }
        return try daemon.measure { daemon throws(BenchFailure) in
            let result = try measure(daemon)
            guard result.pendingAfter != nil, result.after != nil, !daemon.hasEnded else {
                throw BenchFailure(
                    "the load's notifyd did not survive the load: \(result.answered) of \(result.totalCalls) calls "
                        + "answered; errors: \(BenchReport.countsText(result.outcome.errors)); PendingHandlers "
                        + "afterwards: \(result.pendingAfter.map(String.init) ?? "no answer").")
            }
            return result
        }
    }

    private func measure(_ daemon: BenchDaemon) throws(BenchFailure) -> Result {
        let (bus, notifyd, connection) = (daemon.bus, daemon.notifyd, daemon.connection)
        let schedules = (1...clients).map { LoadCall.schedule(count: calls, client: $0) }
        let pendingBefore = try connection.notifydPendingHandlers()
        let memory = IdleBenchmark(pid: notifyd.pid)
        let before = try memory.measureMemory()
        let barrier = ThreadBarrier(parties: clients + 1)
        let slots = OutcomeSlots(count: clients)
        let (address, pings) = (bus.address, calls)
        let threads = try ClientThreads(count: clients, onFailure: { barrier.breakBarrier() }) { index in
            slots.store(
                LoadClient.run(number: index + 1, address: address, mix: schedules[index], pings: pings, barrier: barrier),
                at: index)
        }
        func cpu() -> (UInt64?, UInt64?) {
            (notifyd.process?.cpuNanoseconds, bus.process.cpuNanoseconds)
        }
        barrier.arriveAndWait()  // every client connected and warmed up
        let (pingStart, pingCPUStart) = (MonotonicClock.nanoseconds(), cpu())
        barrier.arriveAndWait()  // every client made its Pings
        let (mixStart, mixCPUStart) = (MonotonicClock.nanoseconds(), cpu())
        barrier.arriveAndWait()  // every client made its calls
        let (mixEnd, mixCPUEnd) = (MonotonicClock.nanoseconds(), cpu())
        threads.join()

        let outcomes = slots.all
        var merged = LoadClientOutcome()
        for outcome in outcomes { merged.merge(outcome) }
        var scheduled: [LoadCall: Int] = [:]
        for call in schedules.joined() { scheduled[call, default: 0] += 1 }
        func used(_ from: (UInt64?, UInt64?), _ to: (UInt64?, UInt64?)) -> (notifyd: UInt64?, bus: UInt64?) {
            func difference(_ a: UInt64?, _ b: UInt64?) -> UInt64? {
                guard let a, let b, b >= a else { return nil }
                return b - a
            }
            return (difference(from.0, to.0), difference(from.1, to.1))
        }
        return Result(
            clients: clients, callsPerClient: calls, scheduled: scheduled,
            latencies: merged.latencies.mapValues { LatencySummary($0) },
            all: LatencySummary(Array(merged.latencies.values.joined())), ping: LatencySummary(merged.pings),
            pingNanoseconds: mixStart - pingStart, mixNanoseconds: mixEnd - mixStart,
            pingCPU: used(pingCPUStart, mixCPUStart), mixCPU: used(mixCPUStart, mixCPUEnd),
            outcome: merged, setUpFailures: outcomes.compactMap(\.setUpFailure),
            pendingBefore: pendingBefore, pendingAfter: try? connection.notifydPendingHandlers(),
            before: before, after: try? memory.measureMemory())
    }
}

/// Each client thread's outcome, stored when the thread ends.
private final class OutcomeSlots: Sendable {
    private let slots: Mutex<[LoadClientOutcome?]>

    init(count: Int) {
        slots = Mutex(Array(repeating: nil, count: count))
    }

    func store(_ outcome: LoadClientOutcome, at index: Int) {
        slots.withLock { $0[index] = outcome }
    }

    /// The outcomes stored (after every thread was joined: all of them).
    var all: [LoadClientOutcome] { slots.withLock { $0.compactMap { $0 } } }
}

extension LoadClientOutcome {
    /// Adds another client's outcome to this one.
    mutating func merge(_ other: LoadClientOutcome) {
        latencies.merge(other.latencies) { $0 + $1 }
        pings += other.pings
        errors.merge(other.errors, uniquingKeysWith: +)
        pingErrors.merge(other.pingErrors, uniquingKeysWith: +)
        errorExamples.merge(other.errorExamples) { mine, _ in mine }
        wrongAnswers.merge(other.wrongAnswers, uniquingKeysWith: +)
        wrongExamples.merge(other.wrongExamples) { mine, _ in mine }
        cleanUpFailures += other.cleanUpFailures
    }
}
