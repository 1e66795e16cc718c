import NotifyCore
import Testing

/// Background transfers in the core, with a fake clock: the queue of 4, the
/// conditions that hold a transfer (and say so), retries with their waits,
/// Retry-After, the 24-hour rule, suspend, resume and cancel, the session
/// events a transfer makes, the limits, restoring after a restart, and an
/// old attempt's end never taken for a new one's.
@Suite struct TransferStateTests {
    static let second: Microseconds = 1_000_000
    let app = try! AppID("org.example.Reader")
    let online = TransferConditions()

    func download(_ state: inout NotifydState, _ n: Int = 1, options: TransferOptions = TransferOptions(),
                  conditions: TransferConditions = TransferConditions(), at now: Microseconds = 0) throws -> TransferRecord {
        try state.addTransfer(
            .download, app: app, session: try SessionID("s\(n)"), url: "https://user:secret@example.org/f\(n).iso",
            path: "/home/u/Downloads/f\(n).iso", options: options, conditions: conditions, at: now).value
    }

    @Test func atMostFourRunTheRestQueueInOrder() throws {
        var state = NotifydState()
        let records = try (1...6).map { try download(&state, $0) }
        #expect(records.prefix(4).allSatisfy { $0.state == .running && $0.attempts == 1 })
        #expect(records[4].state == .queued && records[4].reason == "queued behind the 4 transfers running")
        let ended = state.transferAttemptEnded(1, .completed(path: "/home/u/Downloads/f1.iso", bytes: 10), conditions: online, at: Self.second)
        #expect(ended.value?.state == .completed)
        #expect(ended.effects.contains(.transferStart(state.transfers.live[5]!)), "the fifth starts")
        #expect(state.transfers.live[6]?.state == .queued)
    }

    @Test func noNetworkHoldsEveryTransferAndSpendsNoAttempt() throws {
        var state = NotifydState()
        let offline = TransferConditions(networkAvailable: false)
        let record = try download(&state, conditions: offline)
        #expect(record.state == .waiting && record.reason == "waiting for a network" && record.attempts == 0)
        let metered = TransferConditions(networkMetered: true)
        let plan = state.planTransfers(conditions: metered, at: Self.second)
        #expect(state.transfers.live[1]?.reason == "waiting for a network that is not metered")
        #expect(!plan.effects.contains { if case .transferStart = $0 { true } else { false } })
        let allowed = try download(&state, 2, options: TransferOptions(allowMetered: true), conditions: metered)
        #expect(allowed.state == .running)
        let back = state.planTransfers(conditions: online, networkReturned: true, at: 2 * Self.second)
        #expect(state.transfers.live[1]?.state == .running)
        #expect(back.effects.contains(.transferStart(state.transfers.live[1]!)))
    }

    @Test func aLostNetworkStopsRunningTransfersKeepingTheirBytes() throws {
        var state = NotifydState()
        _ = try download(&state)
        let lost = state.planTransfers(conditions: TransferConditions(networkAvailable: false), at: Self.second)
        let held = try #require(state.transfers.live[1])
        #expect(held.state == .waiting)
        #expect(lost.effects.contains(.transferStop(held, discardingPartial: false)))
        // The stopped attempt's end comes after the network returned: the
        // transfer waits for it before starting again.
        _ = state.planTransfers(conditions: online, networkReturned: true, at: 2 * Self.second)
        #expect(state.transfers.live[1]?.state == .queued)
        let after = state.transferAttemptEnded(1, .stopped, conditions: online, at: 3 * Self.second)
        #expect(state.transfers.live[1]?.state == .running && state.transfers.live[1]?.attempts == 2)
        #expect(after.effects.contains(.transferStart(state.transfers.live[1]!)))
    }

    @Test func retriesWaitLongerEachTimeAndHonourRetryAfter() throws {
        var state = NotifydState()
        _ = try download(&state)
        var now: Microseconds = 0
        var waits: [Microseconds] = []
        for _ in 1...12 {
            now += Self.second
            let record = try #require(state.transferAttemptEnded(1, .retry(reason: "connection reset by the server", retryAfter: nil), conditions: online, at: now).value)
            waits.append(record.retryAt! - now)
            #expect(record.state == .waiting && record.reason.hasSuffix("after: connection reset by the server"))
            now = record.retryAt!
            _ = state.planTransfers(conditions: online, at: now)
        }
        #expect(Array(waits.prefix(4)) == [1, 2, 4, 8].map { $0 * Self.second })
        #expect(waits.last == 600 * Self.second, "at most 10 minutes")
        #expect(state.transfers.live[1]?.reason.hasPrefix("retrying in 10 min") == false)
        let busy = state.transferAttemptEnded(1, .retry(reason: "Service unavailable (HTTP 503)", retryAfter: 40 * Self.second), conditions: online, at: now)
        #expect(busy.value?.retryAt == now + 40 * Self.second)
        #expect(busy.value?.reason == "retrying in 40 s after: Service unavailable (HTTP 503)")
        #expect(state.transfers.nextWake == now + 40 * Self.second)
    }

    @Test func aDayWithoutProgressFailsForGoodWithTheReason() throws {
        var state = NotifydState()
        _ = try download(&state)
        let day: Microseconds = 86_400 * Self.second
        let ended = state.transferAttemptEnded(1, .retry(reason: "connection refused by the server", retryAfter: nil), conditions: online, at: day)
        #expect(ended.value?.state == .failed)
        #expect(ended.value?.reason == "no progress for 24 hours; the last attempt failed: connection refused by the server")
        #expect(ended.effects.contains(.transferPartialRemoved(ended.value!)))
        let event = ended.effects.compactMap { if case .eventRecorded(let recorded) = $0 { recorded } else { nil } }.first
        #expect(event?.event.kind == .failed && event?.event.error == ended.value?.reason)
        #expect(event?.event.uri == "https://example.org/f1.iso", "no password in the event")
    }

    @Test func completionMakesTheSessionsFinishedEventAndProgressBefore() throws {
        var state = NotifydState()
        _ = try download(&state, options: TransferOptions(title: "The ISO", sound: "bell"))
        _ = state.transferResponded(1, resumedFrom: 0, total: 100, validator: "\"abc\"", at: Self.second)
        let progress = state.transferProgressed(1, done: 50, total: 100, at: 2 * Self.second)
        #expect(state.sessions.session(try SessionID("s1"))?.progress == 0.5)
        #expect(progress.writes.allSatisfy { if case .transfer = $0 { false } else { true } }, "progress writes no transfer row")
        let done = state.transferAttemptEnded(1, .completed(path: "/home/u/Downloads/f1.iso", bytes: 100), conditions: online, at: 3 * Self.second)
        let event = try #require(done.effects.compactMap { if case .eventRecorded(let recorded) = $0 { recorded } else { nil } }.first)
        #expect(event.event.kind == .finished && event.event.title == "The ISO" && event.event.sound == "bell")
        #expect(event.event.path == "/home/u/Downloads/f1.iso" && event.handlerID != 0)
        #expect(state.badges[app] == 1)
        #expect(try state.transfers.transfer(1) == done.value!)
    }

    @Test func cancelEndsItSilentlyAndSuspendKeepsTheBytes() throws {
        var state = NotifydState()
        _ = try download(&state)
        _ = try download(&state, 2)
        _ = try state.suspendTransfer(1, conditions: online, at: Self.second)
        let suspended = try #require(state.transfers.live[1])
        #expect(suspended.state == .suspended)
        #expect(try state.suspendTransfer(1, conditions: online, at: Self.second).isEmpty, "a no-op")
        _ = state.transferAttemptEnded(1, .stopped, conditions: online, at: Self.second)
        #expect(try state.resumeTransfer(1, conditions: online, at: 2 * Self.second).effects.contains(.transferStart(state.transfers.live[1]!)))
        let cancelled = try state.cancelTransfer(2, conditions: online, at: 3 * Self.second)
        let ended = try state.transfers.transfer(2)
        #expect(ended.state == .cancelled)
        #expect(cancelled.effects.contains(.transferStop(ended, discardingPartial: true)))
        let event = cancelled.effects.compactMap { if case .eventRecorded(let recorded) = $0 { recorded } else { nil } }.first
        #expect(event?.event.notify == false && event?.event.badge == 0, "no popup, no badge")
        #expect(state.badges[app] == 0)
        let again = #expect(throws: NotifydError.self) { try state.cancelTransfer(2, conditions: online, at: 4 * Self.second) }
        #expect(again?.code == .unknownTransfer)
        // A late failure of the stopped attempt does not touch the ended transfer.
        #expect(state.transferAttemptEnded(2, .failed(reason: "x"), conditions: online, at: 5 * Self.second).value == nil)
    }

    @Test func anOldAttemptsEndIsNeverTakenForANewOnes() throws {
        var state = NotifydState()
        _ = try download(&state)
        _ = try state.suspendTransfer(1, conditions: online, at: Self.second)
        _ = try state.resumeTransfer(1, conditions: online, at: Self.second)
        #expect(state.transfers.live[1]?.state == .queued, "waits for the stopped attempt's end")
        // The old attempt failed on its own before the stop reached it.
        let late = state.transferAttemptEnded(1, .retry(reason: "reset", retryAfter: nil), conditions: online, at: 2 * Self.second)
        #expect(late.value == nil)
        #expect(state.transfers.live[1]?.state == .running && state.transfers.live[1]?.attempts == 2)
    }

    @Test func theLimitsAndTheSessionsOwner() throws {
        var state = NotifydState()
        let other = try AppID("org.example.Other")
        _ = try state.recordEvent(WorkerEvent(kind: .progress, bytesWritten: 1), session: try SessionID("s1"), app: other, at: 0)
        let taken = #expect(throws: NotifydError.self) { try download(&state) }
        #expect(taken?.code == .invalidArgs)
        for n in 2...(TransferBook.maximumPerApp + 1) { _ = try download(&state, n, conditions: TransferConditions(networkAvailable: false)) }
        let full = #expect(throws: NotifydError.self) { try download(&state, 5000) }
        #expect(full?.code == .limitExceeded)
    }

    @Test func restoringQueuesWhatWasRunningAndKeepsTheEnded() throws {
        var state = NotifydState()
        _ = try download(&state)
        _ = try download(&state, 2)
        _ = try state.cancelTransfer(2, conditions: online, at: Self.second)
        let book = TransferBook.restoring(state.transfers.all)
        #expect(book.live[1]?.state == .queued && book.live[1]?.reason == "queued: notifyd stopped during the last attempt")
        #expect(book.ended.map(\.id) == [2] && book.lastID == 2)
    }

    @Test func theURLShownHasNoCredentials() {
        #expect(TransferRecord.withoutCredentials("https://user:pw@host/a@b") == "https://host/a@b")
        #expect(TransferRecord.withoutCredentials("http://host:80/x") == "http://host:80/x")
        #expect(TransferRecord.withoutCredentials("https://a:b@c@host?q=@") == "https://host?q=@")
    }
}
