import DBus
import Foundation
import Testing
import NotifyTesting

/// notifyctl's session commands as whole processes against the real daemon.
@Suite struct NotifyctlSessionTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    @Test func eventPrintsTheHandlerAndStoresIt() throws {
        let result = try fixture.notifyctl("event", "s1", "--app", "org.example.App", "--title", "a b.iso", "--path", "/tmp/a b.iso")
        #expect(result.status == 0, "\(result.stderr)")
        let handler = try #require(UInt64(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(handler > 0)
        #expect(try fixture.pending("s1") == 1)
        #expect(try fixture.badge("org.example.App") == 1)
    }

    @Test func eventKindsFromOptions() throws {
        _ = try fixture.notifyctl("event", "p", "--app", "app", "--progress", "25/100")
        #expect(try fixture.sessions()["p"]?.details["progress"] == .double(0.25))
        _ = try fixture.notifyctl("event", "f", "--app", "app", "--failed", "timed out", "--badge", "3", "--timeout", "60")
        #expect(try fixture.badge("app") == 3)
        let fetch = try fixture.notifyctl("event", "n", "--app", "app", "--fetch", "no-data")
        #expect(fetch.status == 0)
        #expect(try fixture.badge("app") == 3)
    }

    @Test func eventWaitPrintsTheResult() throws {
        let environment = fixture.daemon.environment
        let output = Locked<ProcessResult?>(nil)
        let thread = Thread {
            output.set(try? runProcess(Executables.notifyctl, ["event", "w", "--app", "app", "--wait"], environment: environment))
        }
        thread.start()
        try waitUntil("notifyctl event --wait stored its handler", seconds: 5) { try fixture.pending("w") != 0 }
        #expect(try fixture.notifyctl("complete", "w").stdout == "1\n")
        try waitUntil("notifyctl event --wait exits", seconds: 10) { output.get() != nil }
        let result = try #require(output.get())
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix("completed\n"))
    }

    @Test func sessionsCompleteCancelAndWait() throws {
        _ = try fixture.notifyctl("event", "a", "--app", "app")
        _ = try fixture.notifyctl("event", "b", "--app", "app")
        let table = try fixture.notifyctl("sessions")
        #expect(table.status == 0)
        #expect(table.stdout.contains("a") && table.stdout.contains("app"))
        let json = try fixture.notifyctl("sessions", "--json")
        let rows = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(rows?.count == 2)
        #expect(try fixture.notifyctl("cancel", "b").stdout == "1\n")
        #expect(try fixture.notifyctl("wait", "b").stdout == "cancelled\n")
        #expect(try fixture.notifyctl("complete", "a").stdout == "1\n")
        #expect(try fixture.notifyctl("wait", "a").stdout == "completed\n")
    }

    @Test func daemonRefusalsExitOne() throws {
        let unknown = try fixture.notifyctl("wait", "never")
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("never"))
        let badApp = try fixture.notifyctl("event", "x", "--app", "bad app")
        #expect(badApp.status == 1)
    }

    @Test func badUsageExitsTwo() throws {
        for arguments in [
            ["event", "x"], ["event", "x", "--app", "a", "--failed", "e", "--fetch", "no-data"],
            ["event", "x", "--app", "a", "--fetch", "maybe"], ["event", "x", "--app", "a", "--timeout", "0"],
            ["event", "x", "--app", "a", "--progress", "ten"],
        ] {
            let result = try runProcess(Executables.notifyctl, arguments, environment: fixture.daemon.environment)
            #expect(result.status == 2, "\(arguments)")
        }
    }

    @Test func monitorPrintsEverySignalOnALine() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Executables.notifyctl)
        process.arguments = ["monitor", "--json"]
        process.environment = childEnvironment(fixture.daemon.environment)
        let directory = try makeTemporaryDirectory(prefix: "notifyctl-monitor")
        defer { try? FileManager.default.removeItem(at: directory) }
        let outputURL = directory.appendingPathComponent("stdout")
        #expect(FileManager.default.createFile(atPath: outputURL.path, contents: nil))
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        func printedMembers() -> [String] {
            let text = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { line -> String? in
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["member"] as? String
            }
        }
        // Subscribed: monitor adds its match rule, then asks who owns
        // notifyd's name and prints what comes after. Once the bus has
        // routed that GetNameOwner, notifyd's next signals reach it.
        let bus = try DBusMonitor(
            bus: .address(fixture.bus.address),
            rules: ["type='method_call',interface='org.freedesktop.DBus',member='GetNameOwner',arg0='\(Fixture.busName)'"])
        try process.run()
        try bus.waitFor("notifyctl monitor's GetNameOwner") { $0.member == "GetNameOwner" }
        _ = try fixture.notifyctl("badge", "set", "mon", "2")
        _ = try fixture.notifyctl("event", "m", "--app", "mon", "--no-notify")
        _ = try fixture.notifyctl("complete", "m")
        try? waitUntil("notifyctl monitor printed SessionCompleted", seconds: 5) { printedMembers().contains("SessionCompleted") }
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let members = printedMembers()
        #expect(members.contains("BadgeChanged"))
        #expect(members.contains("HandleEventsForBackgroundSession"))
        #expect(members.contains("SessionCompleted"))
    }
}
