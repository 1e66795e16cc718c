import DBus
import Foundation
import NotifyTesting
import Testing

@testable import notifyctl

/// `fetch now --wait` against the real notifyd: it waits for its own
/// fetch's result, however soon after `FetchNow`'s reply it comes and
/// whatever other fetch ends first, and stops on Ctrl-C.
extension FetchRoundTripTests {
    /// An app that answers at once: the moment notifyd reports its fetch
    /// (`PerformFetch`), another app's fetch ends first, then its own with
    /// `result` (`expired`: the clock is moved past the 30 s instead).
    @Test(arguments: [
        ("org.example.Quick", "no-data", ExitStatus.success), ("org.example.Stale", "expired", ExitStatus.daemonError),
        ("org.example.Broken", "failed", ExitStatus.daemonError),
    ])
    func nowWaitTakesItsOwnResultHoweverSoonItComes(_ app: String, _ result: String, _ status: Int32) throws {
        let answering = try AnsweringApp(daemon: daemon, app: app, result: result, other: "org.example.Other")
        try daemon.call(Self.fetch, "FetchNow", [.string("org.example.Other")])
        let waited = try notifyctl("fetch", "now", app, "--wait")
        #expect(waited.stdout == "\(result)\n")
        #expect(waited.status == status)
        #expect(waited.stderr.isEmpty, "the result is the message: \(waited.stderr)")
        try daemon.call(Self.fetch, "FetchNow", [.string("org.example.Other")])
        let json = try notifyctl("fetch", "now", app, "--wait", "--json")
        let id = try performed(app, occurrence: 2)
        #expect(json.stdout == "{\"fetch_id\":\(id),\"result\":\"\(result)\"}\n")
        #expect(json.status == status)
        #expect(answering.answered == 2)
    }

    /// `now --wait` waits for the app's answer, here from another process.
    @Test func nowWaitPrintsAResultThatComesLater() throws {
        let waiting = try OutputProcess(notifyctl.executable, ["fetch", "now", app, "--wait"], notifyctl.environment)
        let id = try performed(app)
        try daemon.sync()
        #expect(waiting.isRunning && waiting.output.isEmpty)
        #expect(try notifyctl("fetch", "complete", String(id), "new-data").status == 0)
        #expect(waiting.finish() == 0)
        #expect(waiting.output == "new-data\n")
    }

    @Test func nowWaitStopsOnSIGINT() throws {
        let waiting = try OutputProcess(notifyctl.executable, ["fetch", "now", app, "--wait"], notifyctl.environment)
        _ = try performed(app)
        #expect(waiting.interrupt() == ExitStatus.daemonError)
        #expect(waiting.errors == "notifyctl: interrupted before the fetch ended\n")
    }
}

/// An app that answers each of its fetches on notifyd's `PerformFetch`,
/// from a loop thread of its own, without waiting for the test: first it
/// completes `other`'s running fetch (`new-data`), then its own with
/// `result`; for `expired` it moves the daemon's clock past the handler's
/// 30 s instead.
final class AnsweringApp: Sendable {
    private let thread: LoopThread
    private let count = LoopOwned<Int>()

    init(daemon: InProcessDaemon, app: String, result: String, other: String) throws {
        let address = daemon.bus.address
        let clock = daemon.clock
        let count = self.count
        thread = try LoopThread { loop in
            count.value = 0
            let listener = try DBusConnection.connect(to: .address(address))
            try listener.attach(to: loop)
            // Blocking calls, on a connection no loop reads.
            let caller = try DBusConnection.connect(to: .address(address))
            func complete(_ id: UInt64, _ result: String) {
                _ = try? caller.call(
                    destination: "org.notifyd.Notifyd1", path: "/org/notifyd/Notifyd1",
                    interface: FetchRoundTripTests.fetch, member: "CompleteFetch", [.uint64(id), .string(result)])
            }
            var otherFetch: UInt64?
            try listener.subscribe(DBusMatchRule(interface: FetchRoundTripTests.fetch, member: "PerformFetch")) {
                message in
                guard let arguments = try? message.arguments(), arguments.count == 3,
                    case .string(let performer) = arguments[0], case .uint64(let id) = arguments[1]
                else { return }
                if performer == other { otherFetch = id }
                guard performer == app else { return }
                if let otherID = otherFetch { complete(otherID, "new-data") }
                otherFetch = nil
                if result == "expired" { clock.advance(by: 30_000_000) } else { complete(id, result) }
                count.value! += 1
            }
            return [listener, caller] as AnyObject
        }
    }

    /// How many of its fetches it answered.
    var answered: Int { (try? thread.sync { [count] in count.value ?? 0 }) ?? -1 }
}
