import DBus
import Foundation
import NotifyTesting
import Synchronization
import Testing

/// `notifyctl task run` and `notifyctl tasks` against the real daemon, with
/// a fake systemd-logind on a private system bus (`DBUS_SYSTEM_BUS_ADDRESS`):
/// a command that finishes in time, one that ignores the cue and outlives
/// its task, a missing command, a missing notifyd, and the lock as
/// `systemd-inhibit --list` shows it.
@Suite struct TaskRunTests {
    static let tasks = "org.notifyd.Notifyd1.Tasks"
    let systemBus: TestBus
    let logind: FakeLogind
    let fixture: Fixture
    let recorder: SignalRecorder
    let directory: URL

    init() throws {
        systemBus = try TestBus()
        logind = try FakeLogind(address: systemBus.address)
        fixture = try Fixture(
            extraEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": systemBus.address], arguments: ["--task-seconds", "10"])
        recorder = try SignalRecorder(address: fixture.bus.address, rules: [DBusMatchRule(interface: Self.tasks)])
        directory = try makeTemporaryDirectory(prefix: "notifyd-task-run")
    }

    func taskRun(_ command: [String], app: String = "org.example.Backup", name: String = "nightly") throws -> ProcessResult {
        try runProcess(
            Executables.notifyctl, ["task", "run", "--app", app, "--name", name, "--"] + command,
            environment: ["DBUS_SESSION_BUS_ADDRESS": fixture.bus.address])
    }

    @Test func aCommandThatFinishesInTimeHoldsTheLockAndExitsWithItsStatus() throws {
        let result = try taskRun(["/bin/sh", "-c", "exit 7"])
        #expect(result.status == 7)
        #expect(result.stderr.isEmpty, "\(result.stderr)")
        let call = try #require(try logind.waitForCalls(count: 1).first)
        #expect(call.why == "org.example.Backup: nightly")
        let ended = try #require(recorder.wait(seconds: 10, forCount: 1) { $0.member == "BackgroundTaskEnded" })
        #expect(ended[0].arguments.last == .string("ended"))
        try logind.waitUntilHeld([])
    }

    /// The command ignores the cue (it notes the SIGTERM and goes on):
    /// the task ends `expired` at 10 s, the lock goes, and the command still
    /// finishes and gives its status.
    @Test func aCommandThatIgnoresTheCueOutlivesItsTask() throws {
        let marker = directory.appendingPathComponent("term")
        let script = "trap 'echo TERM > \(marker.path)' TERM; sleep 12 & while ! wait; do :; done; exit 4"
        let address = fixture.bus.address
        let listed = Mutex(false)
        let listing = try PosixThread {
            // While it runs, notifyctl tasks lists it.
            try? waitUntil("the task is listed", seconds: 8) {
                let tasks = try runProcess(Executables.notifyctl, ["tasks", "--json"], environment: ["DBUS_SESSION_BUS_ADDRESS": address])
                let found = tasks.stdout.contains("\"name\":\"slow\"")
                if found { listed.withLock { $0 = true } }
                return found
            }
        }
        let result = try taskRun(["/bin/sh", "-c", script], name: "slow")
        listing.join()
        #expect(listed.withLock { $0 }, "notifyctl tasks --json listed the running task")
        #expect(result.status == 4)
        #expect(try String(contentsOf: marker, encoding: .utf8) == "TERM\n", "SIGTERM came at the cue")
        #expect(result.stderr.contains("warning: the background task expired before /bin/sh finished"), "\(result.stderr)")
        let cue = try #require(recorder.wait(seconds: 5, forCount: 1) { $0.member == "BackgroundTaskExpiring" })
        #expect(cue[0].arguments.last == .uint32(5))
        let ended = try #require(recorder.wait(seconds: 5, forCount: 1) { $0.member == "BackgroundTaskEnded" })
        #expect(ended[0].arguments.last == .string("expired"))
        try logind.waitUntilHeld([])
    }

    @Test func theLockIsWhatSystemdInhibitLists() throws {
        let client = try DBusConnection.connect(to: .address(fixture.bus.address))
        _ = try client.call(
            destination: Fixture.busName, path: Fixture.path, interface: Self.tasks, member: "BeginBackgroundTask",
            [.string("org.example.Sync"), .string("push")])
        try logind.waitUntilHeld([0])
        let listed = try runProcess(
            "/usr/bin/systemd-inhibit", ["--list", "--no-pager"], environment: ["DBUS_SYSTEM_BUS_ADDRESS": systemBus.address])
        #expect(listed.status == 0, "\(listed.stderr)")
        let line = try #require(listed.stdout.split(separator: "\n").first { $0.contains("notifyd") }, "\(listed.stdout)")
        #expect(line.contains("org.example.Sync: push"))
        #expect(line.contains("sleep") && line.contains("block"))
        // notifyctl status says so too (Inhibiting follows logind's answer).
        var status = ""
        try waitUntil("notifyctl status says sleep is held off", seconds: 10) {
            status = try fixture.notifyctl("status").stdout
            return status.contains("Sleep held off:       yes (a systemd-logind lock)\n")
        }
        #expect(status.contains("Background tasks:     1\n"), "\(status)")
    }

    @Test func aMissingCommandIs127AndEndsTheTask() throws {
        let result = try taskRun(["/nonexistent/command"])
        #expect(result.status == 127)
        #expect(result.stderr.contains("cannot run /nonexistent/command: No such file or directory"))
        let ended = try #require(recorder.wait(seconds: 10, forCount: 1) { $0.member == "BackgroundTaskEnded" })
        #expect(ended[0].arguments.last == .string("ended"))
    }

    @Test func withoutNotifydTheCommandRunsAfterOneWarning() throws {
        let empty = try TestBus()
        let result = try runProcess(
            Executables.notifyctl, ["task", "run", "--app", "org.example.A", "--name", "x", "--", "/bin/sh", "-c", "echo ran; exit 5"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": empty.address])
        #expect(result.status == 5)
        #expect(result.stdout == "ran\n")
        #expect(result.stderr.split(separator: "\n").count == 1, "one warning: \(result.stderr)")
        #expect(result.stderr.contains("warning:") && result.stderr.contains("without a background task"))
    }
}

extension TaskRunTests {
    /// contrib/backup/notifyd-backup: the command runs as a task (the lock
    /// names it), its status is passed on, and the end is reported.
    @Test func theBackupWrapperRunsATaskAndReportsTheEnd() throws {
        let wrapper = Executables.repositoryRoot().appendingPathComponent("contrib/backup/notifyd-backup").path
        let events = try SignalRecorder(
            address: fixture.bus.address,
            rules: [DBusMatchRule(interface: "org.notifyd.Notifyd1.Sessions", member: "HandleEventsForBackgroundSession")])
        let environment = ["DBUS_SESSION_BUS_ADDRESS": fixture.bus.address, "NOTIFYCTL": Executables.notifyctl]
        let good = try runProcess(wrapper, ["--name", "photos", "--", "/bin/sh", "-c", "exit 0"], environment: environment)
        #expect(good.status == 0 && good.stderr.isEmpty, "\(good.stderr)")
        #expect(try logind.waitForCalls(count: 1).first?.why == "org.notifyd.Backup: photos")
        let bad = try runProcess(wrapper, ["/bin/sh", "-c", "exit 9"], environment: environment)
        #expect(bad.status == 9)
        let reported = try #require(events.wait(seconds: 10, forCount: 2) { _ in true })
        #expect(reported.allSatisfy { $0.arguments[1] == .string("org.notifyd.Backup") })
        #expect("\(reported[0].arguments[3])".contains("photos"))
        #expect("\(reported[1].arguments[3])".contains("sh exited with status 9"), "\(reported[1].arguments)")
        try logind.waitUntilHeld([])
    }
}
