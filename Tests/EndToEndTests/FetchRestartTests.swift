import DBus
import Foundation
import NotifyTesting
import Testing

/// Fetches on the real daemon, as a process: what only a process can show
/// (a `kill -9` while a fetch runs). The schedule's rules (backoff, the
/// switch, usage) are the planner's tests' and, on the daemon with a clock
/// moved by hand, FetchInterfaceTests'.
@Suite struct FetchRestartTests {
    static let fetch = "org.notifyd.Notifyd1.Fetch"
    let fixture: Fixture
    let recorder: SignalRecorder

    init() throws {
        fixture = try Fixture()
        recorder = try SignalRecorder(address: fixture.bus.address, rules: [DBusMatchRule(interface: Self.fetch)])
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
