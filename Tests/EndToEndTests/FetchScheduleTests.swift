import DBus
import Foundation
import NotifyTesting
import Testing

/// Scheduled fetches on the real daemon in real time, with the floor
/// lowered to a second (`--fetch-minimum 1`): they run, back off after
/// failures (1 s, 2 s, 4 s), come back to the interval after new data, and
/// never run for an app the user switched off, while another app's fetches
/// mark the time.
@Suite struct FetchScheduleTests {
    static let fetch = "org.notifyd.Notifyd1.Fetch"
    let fixture: Fixture
    let recorder: SignalRecorder

    init() throws {
        fixture = try Fixture(arguments: ["--fetch-minimum", "1"])
        recorder = try SignalRecorder(address: fixture.bus.address, rules: [DBusMatchRule(interface: Self.fetch)])
    }

    func schedule(_ app: String) throws -> [String: DBusValue] {
        guard case .dictionary(_, _, let entries) = try #require(try fixture.call(Self.fetch, "GetFetchSchedule", [.string(app)]).first) else {
            throw TestFailure("no schedule")
        }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            if case .string(let key) = entry.key, case .variant(let value) = entry.value { result[key] = value }
        }
        return result
    }

    func int64(_ value: DBusValue?) throws -> Int64 {
        guard case .int64(let number) = value else { throw TestFailure("not an int64: \(String(describing: value))") }
        return number
    }

    /// Waits for the `occurrence`-th PerformFetch of `app`; returns its
    /// fetch ID and when it started (its deadline less the 30 s).
    func performed(_ app: String, occurrence: Int) throws -> (id: UInt64, started: Int64) {
        let signals = try #require(recorder.wait(seconds: 30, forCount: occurrence) { signal in
            signal.member == "PerformFetch" && signal.arguments.first == .string(app)
        })
        let arguments = try #require(signals.last).arguments
        guard case .uint64(let id) = arguments[1], case .int64(let deadline) = arguments[2] else {
            throw TestFailure("\(arguments)")
        }
        return (id, deadline - 30_000_000)
    }

    @Test func fetchesRunBackOffAfterFailuresAndNeverWhileSwitchedOff() throws {
        let app = "org.example.Ticker", off = "org.example.Off"
        _ = try fixture.call(Self.fetch, "SetFetchEnabled", [.string(off), .boolean(false)])
        _ = try fixture.call(Self.fetch, "SetFetchInterval", [.string(off), .uint32(1)])
        _ = try fixture.call(Self.fetch, "SetFetchInterval", [.string(app), .uint32(1)])
        var expectedGap: Int64 = 2_000_000
        var planned: Int64?
        for (occurrence, result) in [(1, "failed"), (2, "failed"), (3, "new-data")] {
            let (id, started) = try performed(app, occurrence: occurrence)
            if let planned { #expect(started >= planned, "fetch \(occurrence) started no earlier than planned") }
            _ = try fixture.call(Self.fetch, "CompleteFetch", [.uint64(id), .string(result)])
            let after = try schedule(app)
            #expect(try int64(after["last-run"]) == started)
            let next = try int64(after["next"])
            if result == "failed" {
                #expect(next - started == expectedGap, "after \(occurrence) failure(s) in a row: \(after)")
            } else {
                #expect(next - started == 1_000_000, "new data: back to the interval: \(after)")
            }
            planned = next
            expectedGap *= 2
        }
        #expect(!recorder.received.contains { $0.member == "PerformFetch" && $0.arguments.first == .string(off) })
        #expect(try schedule(off)["reason"] == .string("no fetch is planned: background fetch is switched off for this app"))
    }

    /// `kill -9` while a fetch runs: it was committed before FetchNow
    /// answered, so the next start finds it and ends it `expired` (SPEC);
    /// IDs go on from where they were.
    @Test func aFetchRunningAtKillNineEndsExpiredAtTheNextStart() throws {
        let app = "org.example.Crash"
        guard case .uint64(let id) = try #require(try fixture.call(Self.fetch, "FetchNow", [.string(app)]).first) else {
            throw TestFailure("no fetch ID")
        }
        try fixture.daemon.crashAndRestart()
        let ended = try #require(recorder.wait(seconds: 20, forCount: 1) { $0.member == "FetchCompleted" })
        #expect(ended.first?.arguments == [.string(app), .uint64(id), .string("expired")])
        let client = try DBusConnection.connect(to: .address(fixture.bus.address))
        let history = try client.call(
            destination: Fixture.busName, path: Fixture.path, interface: Self.fetch, member: "GetFetchHistory", [.string(app)])
        guard case .array(_, let rows) = try #require(history.first), case .structure(let fields) = try #require(rows.first) else {
            throw TestFailure("no history: \(history)")
        }
        #expect(fields.first == .uint64(id))
        #expect(fields.last == .string("expired"))
        let next = try client.call(
            destination: Fixture.busName, path: Fixture.path, interface: Self.fetch, member: "FetchNow", [.string(app)])
        #expect(next == [.uint64(id + 1)])
    }
}
