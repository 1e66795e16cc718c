import DBus
import Foundation
import NotifyCore
import NotifyTesting
import Testing

/// The Fetch interface against the daemon in the test's process, with a
/// clock moved by hand: scheduled fetches, the 30-second handler, the
/// switch, the limits, bad input, a restart and a clock step.
@Suite struct FetchInterfaceTests {
    static let fetch = "org.notifyd.Notifyd1.Fetch"
    static let second: Microseconds = 1_000_000
    static let hour: Microseconds = 3_600 * second
    let app = "org.example.Feeds"

    let daemon: InProcessDaemon
    let recorder: SignalRecorder

    init() throws {
        let bus = try TestBus()
        recorder = try SignalRecorder(address: bus.address, rules: [DBusMatchRule(interface: Self.fetch)])
        daemon = try InProcessDaemon(bus: bus)
    }

    func call(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try daemon.call(Self.fetch, member, arguments)
    }

    func schedule(_ app: String? = nil) throws -> [String: DBusValue] {
        guard case .dictionary(_, _, let entries) = try #require(try call("GetFetchSchedule", [.string(app ?? self.app)]).first) else {
            throw TestFailure("GetFetchSchedule returned no dictionary")
        }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard case .string(let key) = entry.key, case .variant(let value) = entry.value else { continue }
            result[key] = value
        }
        return result
    }

    /// Waits for the `occurrence`-th signal `member`; returns its arguments.
    func signal(_ member: String, occurrence: Int = 1) throws -> [DBusValue] {
        let signals = recorder.wait(seconds: 10, forCount: occurrence) { $0.member == member }
        return try #require(signals?.last).arguments
    }

    func expectError(_ name: String, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("no error; expected \(name)")
        } catch let error as DBusError {
            #expect(error.name == name, "\(error)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test func anIntervalMakesAFirstFetchAtOnceThenOneAnIntervalLater() throws {
        let start = daemon.clock.now()
        _ = try call("SetFetchInterval", [.string(app), .uint32(3600)])
        let perform = try signal("PerformFetch")
        #expect(perform.first == .string(app))
        guard case .uint64(let id) = perform[1] else { throw TestFailure("\(perform)") }
        #expect(perform[2] == .int64(start + 30 * Self.second), "30 s to complete")
        #expect(try schedule()["running"] == .uint64(id))
        _ = try call("CompleteFetch", [.uint64(id), .string("new-data")])
        #expect(try signal("FetchCompleted") == [.string(app), .uint64(id), .string("new-data")])
        let after = try schedule()
        #expect(after["interval"] == .uint32(3600))
        #expect(after["next"] == .int64(start + Self.hour))
        #expect(after["last-result"] == .string("new-data"))
        #expect(after["runs"] == .uint32(1))
        guard case .string(let reason) = after["reason"] else { throw TestFailure("no reason") }
        #expect(reason.hasPrefix("1 hour after the last fetch at "))
        daemon.clock.advance(by: Self.hour - Self.second)
        try daemon.sync()
        #expect(recorder.received.filter { $0.member == "PerformFetch" }.count == 1, "not early")
        daemon.clock.advance(by: Self.second)
        #expect(try signal("PerformFetch", occurrence: 2)[0] == .string(app))
    }

    @Test func aFetchNotCompletedInThirtySecondsExpiresOnce() throws {
        let id: UInt64 = try call("FetchNow", [.string(app)]).decode(0)
        daemon.clock.advance(by: 29 * Self.second)
        try daemon.sync()
        #expect(!recorder.received.contains { $0.member == "FetchCompleted" })
        daemon.clock.advance(by: 2 * Self.second)
        #expect(try signal("FetchCompleted") == [.string(app), .uint64(id), .string("expired")])
        expectError("org.notifyd.Notifyd1.Error.UnknownFetch") { _ = try call("CompleteFetch", [.uint64(id), .string("new-data")]) }
        #expect(try schedule()["last-result"] == .string("expired"))
        #expect(daemon.clock.armedWakes == 0, "interval never, nothing running: nothing armed")
    }

    @Test func oneFetchPerAppAtATime() throws {
        let id: UInt64 = try call("FetchNow", [.string(app)]).decode(0)
        expectError("org.notifyd.Notifyd1.Error.LimitExceeded") { _ = try call("FetchNow", [.string(app)]) }
        let other: UInt64 = try call("FetchNow", [.string("org.example.Other")]).decode(0)
        #expect(other == id + 1)
        _ = try call("CompleteFetch", [.uint64(id), .string("no-data")])
        let again: UInt64 = try call("FetchNow", [.string(app)]).decode(0)
        #expect(again == other + 1)
    }

    @Test func badInputIsRefusedAndStoresNothing() throws {
        expectError("org.notifyd.Notifyd1.Error.OutOfRange") { _ = try call("SetFetchInterval", [.string(app), .uint32(604_801)]) }
        expectError("org.notifyd.Notifyd1.Error.InvalidAppId") { _ = try call("SetFetchInterval", [.string("../x"), .uint32(60)]) }
        expectError("org.freedesktop.DBus.Error.InvalidArgs") { _ = try call("SetFetchInterval", [.string(app)]) }
        let id: UInt64 = try call("FetchNow", [.string(app)]).decode(0)
        expectError("org.freedesktop.DBus.Error.InvalidArgs") { _ = try call("CompleteFetch", [.uint64(id), .string("expired")]) }
        expectError("org.notifyd.Notifyd1.Error.UnknownFetch") { _ = try call("CompleteFetch", [.uint64(id + 7), .string("failed")]) }
        #expect(try schedule()["interval"] == .uint32(0))
        #expect(try schedule()["running"] == .uint64(id), "still running after the refused completion")
    }

    @Test func switchedOffNoScheduledFetchRunsAndNothingIsArmed() throws {
        _ = try call("SetFetchEnabled", [.string(app), .boolean(false)])
        _ = try call("SetFetchInterval", [.string(app), .uint32(900)])
        daemon.clock.advance(by: 3 * Self.hour)
        try daemon.sync()
        #expect(!recorder.received.contains { $0.member == "PerformFetch" })
        #expect(daemon.clock.armedWakes == 0)
        #expect(try schedule()["reason"] == .string("no fetch is planned: background fetch is switched off for this app"))
        #expect(try schedule()["enabled"] == .boolean(false))
        // FetchNow works whatever the switch; turning it on starts the first at once.
        let id: UInt64 = try call("FetchNow", [.string(app)]).decode(0)
        _ = try call("CompleteFetch", [.uint64(id), .string("failed")])
        _ = try call("SetFetchEnabled", [.string(app), .boolean(true)])
        daemon.clock.advance(by: 30 * 60 * Self.second)  // failed once: 15 min doubled
        #expect(try signal("PerformFetch", occurrence: 2)[0] == .string(app))
    }

    @Test func listAndHistoryShowEveryAppNewestFirst() throws {
        _ = try call("SetFetchInterval", [.string("org.example.B"), .uint32(0)])
        for result in ["new-data", "no-data"] {
            let id: UInt64 = try call("FetchNow", [.string(app)]).decode(0)
            _ = try call("CompleteFetch", [.uint64(id), .string(result)])
        }
        guard case .array(_, let rows) = try #require(try call("ListFetchSchedules").first) else { throw TestFailure("no list") }
        #expect(rows.compactMap { row -> String? in
            guard case .structure(let fields) = row, case .string(let name) = fields.first else { return nil }
            return name
        } == [app])
        guard case .array(_, let history) = try #require(try call("GetFetchHistory", [.string(app)]).first) else { throw TestFailure("no history") }
        let results = history.compactMap { row -> String? in
            guard case .structure(let fields) = row, case .string(let result) = fields.last else { return nil }
            return result
        }
        #expect(results == ["no-data", "new-data"])
    }

    /// A fetch running when the daemon stops ends `expired` at start-up;
    /// schedules and history are kept.
    @Test func aRestartEndsARunningFetchExpiredAndKeepsTheSchedule() throws {
        _ = try call("SetFetchInterval", [.string(app), .uint32(7200)])
        guard case .uint64(let id) = try signal("PerformFetch")[1] else { throw TestFailure("no id") }
        #expect(daemon.stop() == 0)
        let restarted = try InProcessDaemon(bus: daemon.bus, stateDirectory: daemon.stateDirectory, clock: daemon.clock)
        #expect(try signal("FetchCompleted") == [.string(app), .uint64(id), .string("expired")])
        let after = try restarted.call(Self.fetch, "GetFetchSchedule", [.string(app)])
        #expect("\(after)".contains("7200"))
        let next: UInt64 = try restarted.call(Self.fetch, "FetchNow", [.string(app)]).decode(0)
        #expect(next == id + 1, "IDs are not reused")
    }

    /// The wall clock set back an hour: the next fetch is still an hour of
    /// elapsed time after the last, not two.
    @Test func aClockSetBackMovesTheNextFetchWithIt() throws {
        _ = try call("SetFetchInterval", [.string(app), .uint32(3600)])
        guard case .uint64(let id) = try signal("PerformFetch")[1] else { throw TestFailure("no id") }
        _ = try call("CompleteFetch", [.uint64(id), .string("new-data")])
        daemon.clock.setWallClock(by: -Self.hour)
        try daemon.sync()
        try daemon.waitForLog("set back by 3600.0 s")
        daemon.clock.advance(by: Self.hour)
        #expect(try signal("PerformFetch", occurrence: 2)[0] == .string(app))
    }
}
