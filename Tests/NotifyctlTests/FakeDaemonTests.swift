import DBus
import Foundation
import Testing
import NotifyTesting

/// The notifyctl executable as a process against a stand-in for notifyd's
/// Sessions and Apps interfaces on a private bus: the calls go out with the
/// SPEC's signatures, replies and errors come back as they should, `event
/// --wait` writes the handler ID before it waits, `activate` leaves the app
/// `not-running` once it exits, and `monitor` prints what the name's owner
/// emits and nothing else. (The real daemon is tested in EndToEndTests.)
@Suite(.serialized) final class FakeDaemonTests {
    let bus: TestBus
    let daemon: FakeNotifyd
    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": bus.address] }

    init() throws {
        bus = try TestBus()
        daemon = try FakeNotifyd(address: bus.address)
    }

    func notifyctl(_ arguments: String...) throws -> ProcessResult {
        try runProcess(FakeNotifyd.notifyctl, arguments, environment: environment)
    }

    @Test func eventSendsTheDictionaryAndPrintsTheHandler() throws {
        let directory = try makeTemporaryDirectory(prefix: "notifyctl-cwd")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try runProcess(
            "/bin/sh",
            ["-c", "cd \"$1\" && exec \"$2\" event dl-1 --app firefox --failed 'reset by peer' --path x.iso --sound '' --badge -1 --timeout 60 --no-notify",
             "sh", directory.path, FakeNotifyd.notifyctl],
            environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "7\n")
        let received = try daemon.events()
        #expect(received.count == 1)
        #expect(received.first?.count == 3)
        #expect(received.first?[0] == .string("dl-1"))
        #expect(received.first?[1] == .string("firefox"))
        let event = try #require(received.first?[2])
        #expect(event.signature == "a{sv}")
        let dictionary = try [String: DBusValue](dbusValue: event)
        #expect(
            dictionary == [
                "kind": .string("failed"), "error": .string("reset by peer"),
                "path": .string(directory.resolvingSymlinksInPath().path + "/x.iso"), "sound": .string(""),
                "badge": .int32(-1), "timeout": .uint32(60), "notify": .boolean(false),
            ])
    }

    @Test func progressAndJSON() throws {
        let result = try notifyctl("event", "dl-2", "--app", "firefox", "--progress", "10/100", "--json")
        #expect(result.stdout == "{\"handler_id\":0}\n")
        let dictionary = try [String: DBusValue](dbusValue: try #require(try daemon.events().last?[2]))
        #expect(
            dictionary == ["kind": .string("progress"), "bytes-written": .uint64(10), "bytes-expected": .uint64(100)])
    }

    @Test func daemonErrorsExit1WithTheirMessage() throws {
        let result = try notifyctl("event", "dl-1", "--app", "a..b")
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "notifyctl: invalid app ID 'a..b': it may not contain '..'\n")
        let unknown = try notifyctl("wait", "never-seen")
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "notifyctl: no session 'never-seen'\n")
    }

    @Test func completeCancelAndSessions() throws {
        _ = try notifyctl("event", "dl-1", "--app", "firefox")
        _ = try notifyctl("event", "dl-1", "--app", "firefox")
        #expect(try notifyctl("complete", "dl-1").stdout == "2\n")
        #expect(try notifyctl("cancel", "dl-1", "--json").stdout == "{\"invoked\":0}\n")
        let sessions = try notifyctl("sessions")
        #expect(sessions.status == 0)
        let lines = sessions.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("SESSION  APP      PENDING  EVENTS  PROGRESS  LAST-EVENT") == true)
        #expect(lines.last?.hasPrefix("dl-1     firefox  0        2       50%       20") == true)
        let json = try notifyctl("sessions", "--json")
        let array = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(array?.first?["session"] as? String == "dl-1")
        #expect(array?.first?["last_event"] as? String == "2026-11-21T10:00:00.000Z")
        #expect(array?.first?["progress"] as? Double == 0.5)
    }

    /// `event --wait` prints the handler ID at once, then the result when
    /// the session is completed; `wait` the same for a session.
    @Test func waitingForTheSession() throws {
        let event = try OutputProcess(FakeNotifyd.notifyctl, ["event", "dl-3", "--app", "firefox", "--wait"], environment)
        #expect(event.waitForOutput { $0 == "7\n" }, "the handler ID comes before the wait: \(event.output)")
        let wait = try OutputProcess(FakeNotifyd.notifyctl, ["wait", "dl-3", "--json"], environment)
        #expect(daemon.waitForWaiters(2))
        #expect(event.isRunning && wait.isRunning)
        #expect(try notifyctl("complete", "dl-3").stdout == "1\n")
        #expect(event.finish() == 0)
        #expect(event.output == "7\ncompleted\n")
        #expect(wait.finish() == 0)
        #expect(wait.output == "{\"result\":\"completed\"}\n")
    }
}
