import DBus
import Glibc
import NotifyTestingCore
import Synchronization

/// One run: prepare, look, flood, settle, look again, judge.
struct FuzzRun {
    struct Options {
        var address: String
        var seed: UInt64
        var calls: Int
        var seconds: Double
        var connections: Int
        var window: Int
        var deserters: Int
        var replyTimeoutMilliseconds: Int32
        var families: Set<Family>
        var prepare: Bool
        var peerSignatures: Bool
        var only: [UInt64]?
    }

    let options: Options

    func run() throws -> Summary {
        let connection = try DBusConnection.connect(to: .address(options.address))
        let before = try DaemonWatch.look(connection)
        if options.prepare { try Preparation.run(connection, address: options.address) }
        try Preparation.settleLeftovers(connection)
        let snapshotBefore = try StateSnapshot.take(connection)
        let resourcesBefore = before.resources
        var configured = CaseGenerator(seed: options.seed, families: options.families, prepared: options.prepare)
        configured.peerSignatures = options.peerSignatures
        let transfers = try Preparation.transfers(connection)
        configured.busyIDs = try Preparation.runningIDs(connection).union(transfers.map(\.id))
        configured.highestTransferID = transfers.map(\.id).max() ?? 0
        let legit = try Preparation.legitTransfers(connection)
        if let waiting = legit.waiting, let suspended = legit.suspended { configured.legitTransfers = (waiting, suspended) }
        let generator = configured
        let tally = Tally()

        let start = MonotonicClock.nanoseconds()
        let deadline = start + UInt64(options.seconds * 1e9)
        let deserterShare = options.only == nil && options.deserters > 0 && options.calls >= 1000 ? options.calls / 20 : 0
        let floodSource = options.only.map { CaseSource(indices: $0) }
            ?? CaseSource(base: 0, count: UInt64(options.calls - deserterShare), deadline: deadline)
        let deserterSource = CaseSource(base: CaseGenerator.deserterBase, count: UInt64(deserterShare), deadline: deadline)
        let settings = FloodWorker.Settings(
            address: options.address, window: options.window, replyTimeoutMilliseconds: options.replyTimeoutMilliseconds,
            notifydUniqueName: before.uniqueName)
        let finished = Atomic<Int>(0)
        var threads: [PosixThread] = []
        for _ in 0..<(options.only == nil ? options.connections : 1) {
            threads.append(try PosixThread {
                FloodWorker.run(settings: settings, generator: generator, source: floodSource, tally: tally)
                finished.add(1, ordering: .releasing)
            })
        }
        for _ in 0..<(deserterShare > 0 ? options.deserters : 0) {
            let address = options.address
            let prepared = options.prepare
            threads.append(try PosixThread {
                Deserter.run(address: address, generator: generator, source: deserterSource, tally: tally, prepared: prepared)
                finished.add(1, ordering: .releasing)
            })
        }
        var failures: [String] = []
        // A call that is never answered must not hang the run: give up a while after the last reply could come.
        let giveUp = deadline + UInt64(options.replyTimeoutMilliseconds) * 1_000_000 + 30_000_000_000
        while finished.load(ordering: .acquiring) < threads.count, MonotonicClock.nanoseconds() < giveUp { usleep(20_000) }
        if finished.load(ordering: .acquiring) < threads.count {
            failures.append("\(threads.count - finished.load(ordering: .acquiring)) connections were still waiting for answers when the run gave up")
        } else {
            for thread in threads { thread.join() }
        }
        let floodSeconds = Double(MonotonicClock.nanoseconds() - start) / 1e9

        let after = try? DaemonWatch.look(connection)
        if after != before {
            failures.append("notifyd changed: was \(before.uniqueName) pid \(before.pid), now \(after.map { "\($0.uniqueName) pid \($0.pid)" } ?? "gone")")
        }
        if resourcesBefore != nil, !before.processAlive { failures.append("notifyd's process \(before.pid) is gone") }
        var accounting = tally.acceptedHandlers
        do {
            accounting = try settleAccepted(connection, tally: tally, failures: &failures)
            let leftTransfers = try Preparation.settleTransfers(connection)
            // A follow-up that went wrong (counted already) leaves its transfer; otherwise none may be left.
            if leftTransfers > 0, tally.mismatchCount == 0, tally.sendFailures.count == 0 {
                failures.append("\(leftTransfers) accepted transfers were not ended, though every CancelTransfer was answered")
            }
            let difference = snapshotBefore.difference(to: try StateSnapshot.take(connection))
            if !difference.isEmpty { failures.append("notifyd's state changed:\n    " + difference.joined(separator: "\n    ")) }
        } catch {
            failures.append("after the flood notifyd did not answer: \(error)")
        }
        if tally.mismatchCount > 0 { failures.append("\(tally.mismatchCount) replies were not the expected ones") }
        let sendFailures = tally.sendFailures
        failures += sendFailures.first
        if sendFailures.count > sendFailures.first.count {
            failures.append("... and \(sendFailures.count - sendFailures.first.count) more problems sending")
        }

        return Summary(
            seed: options.seed, families: tally.families, coverage: tally.coverage, total: tally.total, seconds: floodSeconds,
            stoppedByTime: floodSource.stoppedByTime || deserterSource.stoppedByTime,
            acceptedHandlers: accounting, mismatches: tally.mismatches, failures: failures,
            snapshotLines: snapshotBefore.lines.count, notifyd: before,
            resourcesBefore: resourcesBefore, resourcesAfter: before.resources)
    }

    /// Ends each accepted session the run used (a last `failed` event,
    /// then `CancelSession`) and checks that exactly the handlers the run
    /// stored there are invoked.
    private func settleAccepted(_ connection: DBusConnection, tally: Tally, failures: inout [String]) throws -> Int {
        let stored = tally.acceptedHandlers
        var invoked = 0
        for bucket in tally.acceptedBuckets.sorted() {
            let target = Legit.accepted(UInt64(bucket) * Legit.acceptedBucketSize)
            let quiet = DBusValue.vardict(["kind": .string("failed"), "notify": .boolean(false), "badge": .int32(0), "timeout": .uint32(86400)])
            _ = try connection.call(
                destination: Contract.busName, path: Contract.path, interface: Contract.sessions, member: "HandleEventsForBackgroundSession",
                [.string(target.session), .string(target.app), quiet])
            let reply = try connection.call(
                destination: Contract.busName, path: Contract.path, interface: Contract.sessions, member: "CancelSession",
                [.string(target.session)])
            guard case .uint32(let count)? = reply.first else {
                failures.append("CancelSession of \(target.session) answered \(reply)")
                continue
            }
            invoked += Int(count) - 1
        }
        if invoked != stored {
            failures.append("the accepted sessions had \(invoked) pending handlers from accepted events, expected \(stored)")
        }
        return stored
    }
}
