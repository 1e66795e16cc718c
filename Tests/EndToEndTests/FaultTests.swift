import DBus
import Foundation
import Testing
import NotifyTesting

/// The faults, on real processes: `kill -9` of notifyd while calls
/// stream in (this file), the notification server going away and coming
/// back, the bus going away, a full disk and a read-only file system (the
/// `FaultTests+` files). Every wait is bounded, so a hang fails a test
/// instead of stalling CI. Serialized: they load the machine.
@Suite(.serialized) struct FaultTests {
    /// The seed of every random choice (kill points, the mix of calls);
    /// `NOTIFYD_FAULT_SEED` replays a failure.
    static let seed: UInt64 =
        ProcessInfo.processInfo.environment["NOTIFYD_FAULT_SEED"].flatMap { UInt64($0) } ?? 0x5EED_F417

    // MARK: kill -9 while calls stream in

    /// 20 rounds on the same state, as the issue asks: in each, 10,000
    /// events and badge calls stream in (32 in flight) and notifyd is
    /// killed right after a random one of them is sent; the rest of the
    /// round goes to the restarted notifyd. 200,000 calls in all: about
    /// 130 s for a debug build on 2 cores (2026-11-28). Under AddressSanitizer (scripts/test-asan, which
    /// looks for memory errors, not for durability) 5,000 per round, about
    /// 70 s. `NOTIFYD_FAULT_CALLS` sets the calls per round.
    static let killRounds = 20
    static let callsPerRound: Int = {
        let environment = ProcessInfo.processInfo.environment
        if let calls = environment["NOTIFYD_FAULT_CALLS"].flatMap({ Int($0) }) { return calls }
        return environment["NOTIFYD_CHILD_ASAN_OPTIONS"] == nil ? 10_000 : 5_000
    }()
    /// Events are 40 % of the calls, over 10 apps: at most 80,000 handlers
    /// after 20 rounds, 8,000 per app, below the limits (100,000 and 10,000).
    static let eventApps = (0..<10).map { "org.example.Events\($0)" }
    static let badgeApps = (0..<4).map { "org.example.Badge\($0)" }

    @Test(.timeLimit(.minutes(5))) func everyAnsweredCallSurvivesKillNineAndNothingIsDoubled() throws {
        let fixture = try Fixture()
        let client = FaultClient(fixture.client)
        var random = FaultRandom(seed: Self.seed)
        var book = DurabilityBook()
        var healthy = true
        for round in 0..<Self.killRounds where healthy {
            let count = Self.callsPerRound
            let calls = (0..<count).map { index -> StreamedCall in
                if Double.random(in: 0..<1, using: &random) < 0.4 {
                    return .event(session: "r\(round)-e\(index)", app: Self.eventApps.randomElement(using: &random)!)
                }
                return .increment(app: Self.badgeApps.randomElement(using: &random)!)
            }
            let killAt = Int.random(in: 0..<count, using: &random)

            // Up to the kill, which comes from the stream's thread right
            // after call `killAt` is sent, with up to 31 others in flight.
            let pid = fixture.daemon.pid
            let beforeKill = try CallStream(address: fixture.bus.address)
            beforeKill.start(CallStream.Plan(
                count: killAt + 1, window: 32, timeoutMilliseconds: 20_000,
                makeCall: { try calls[$0].message() },
                afterSending: { index in
                    if index == killAt { kill(pid, SIGKILL) }
                    return true
                }))
            let outcomes = try beforeKill.waitUntilDone(seconds: 30)
            fixture.daemon.stop(signal: SIGKILL)
            try fixture.daemon.waitForName(present: false)
            try fixture.daemon.start()
            healthy = book.record(outcomes, of: calls, round: round)
            healthy = try book.verify(client, round: round) && healthy

            // The rest of the round, to the restarted notifyd: all answered.
            let rest = Array(calls[(killAt + 1)...])
            guard healthy, !rest.isEmpty else { continue }
            let afterRestart = try CallStream(address: fixture.bus.address)
            afterRestart.start(CallStream.Plan(
                count: rest.count, window: 32, timeoutMilliseconds: 20_000, makeCall: { try rest[$0].message() }))
            healthy = book.record(try afterRestart.waitUntilDone(seconds: 60), of: rest, round: round, allowing: [])
        }
        #expect(healthy, "replay with NOTIFYD_FAULT_SEED=\(Self.seed)")
        guard healthy else { return }
        // What the last round's rest left, after one more kill -9.
        try fixture.daemon.crashAndRestart()
        try book.verify(client, round: Self.killRounds)
        #expect(book.callsSent == Self.killRounds * Self.callsPerRound)
    }
}
