import DBus
import Foundation
import Testing
import NotifyTesting

/// notifyd near the process's limits: thousands of badged apps under the
/// usual `ulimit -n 1024`, and a daemon whose descriptors run out. New
/// callers are always answered correctly, or told to try again; never
/// refused as if they were someone else.
@Suite struct DescriptorLimitTests {
    static let apps = 5000

    @Test func fiveThousandBadgedAppsUnderTheUsualLimitLockNobodyOut() throws {
        let fixture = try Fixture(commandPrefix: ["/usr/bin/prlimit", "--nofile=1024:1024", "--"])
        let dock = try SignalRecorder(
            address: fixture.bus.address,
            rules: [DBusMatchRule(interface: "com.canonical.Unity.LauncherEntry", member: "Update")])
        try setBadges(Self.apps, on: fixture)

        // A caller new to notifyd, after the flood: right answers, whole lists.
        let get = try notifyctl(fixture, "badge", "get", "org.example.App\(Self.apps - 1)")
        #expect(get.status == 0 && get.stdout == "\(badge(Self.apps - 1))\n", "\(get.stderr)")
        let list = try notifyctl(fixture, "badge", "list")
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.split(separator: "\n").count == Self.apps)
        #expect(try openDescriptors(of: fixture.daemon.pid) < 64 + 40, "descriptors stay bounded")

        // Docks get the apps changed last, each from a connection of its own.
        let last = "application://org.example.App\(Self.apps - 1).desktop"
        #expect(dock.wait(seconds: 10) { $0.arguments.first == .string(last) } != nil)
        #expect(visibleSenders(dock.received).count <= 64)

        // A restart re-sends what matters, within the same bounds.
        dock.reset()
        try fixture.daemon.crashAndRestart()
        let again = try notifyctl(fixture, "badge", "get", "org.example.App0")
        #expect(again.status == 0 && again.stdout == "\(badge(0))\n", "\(again.stderr)")
        try waitUntil("the dock shows 64 apps again") { visibleSenders(dock.received).count == 64 }
        #expect(try openDescriptors(of: fixture.daemon.pid) < 64 + 40)
        #expect(!fixture.daemon.log.contains("NotPermitted"))
    }

    /// More docked apps than descriptors: identifying a new caller fails
    /// for want of one. The caller is told so (LimitsExceeded, never
    /// NotPermitted), the daemon logs it, and once descriptors are free
    /// the same caller is answered: nothing was cached.
    @Test func runningOutOfDescriptorsIsAnErrorToRetryNeverARefusal() throws {
        let fixture = try Fixture(
            arguments: ["--launcher-entries", "64"], commandPrefix: ["/usr/bin/prlimit", "--nofile=40:40", "--"])
        try setBadges(64, on: fixture)
        try waitUntil("the pool runs out of descriptors") {
            fixture.daemon.log.contains("cannot publish the launcher entry")
        }

        // Each notifyctl is a new connection, so each is identified afresh.
        let starved = try notifyctl(fixture, "badge", "get", "org.example.App1")
        #expect(starved.status == 1)
        #expect(starved.stderr.contains("want of resources"), "\(starved.stderr)")
        #expect(!starved.stderr.contains("NotPermitted"))
        let starvedList = try notifyctl(fixture, "badge", "list")
        #expect(starvedList.status == 1, "a list that cannot be told is an error, not empty: \(starvedList.stdout)")
        #expect(fixture.daemon.log.contains("could not identify the bus connection"))

        // The long-lived client was identified before the shortage.
        #expect(try fixture.badges("ClearAllBadges") == [.uint32(64)])
        try waitUntil("the same kind of caller is answered again") {
            try notifyctl(fixture, "badge", "get", "org.example.App1").status == 0
        }
        #expect(try notifyctl(fixture, "badge", "list").status == 0)
    }

    private func badge(_ index: Int) -> Int { index % 50 + 1 }

    /// Sets one badge per app from the fixture's client, pipelined.
    private func setBadges(_ count: Int, on fixture: Fixture) throws {
        _ = try fixture.badge("org.example.Warmup")  // the client is identified first
        let stream = try CallStream(address: fixture.bus.address)
        stream.start(
            .init(count: count, window: 64) { index in
                try DBusMessage.methodCall(
                    destination: Fixture.busName, path: Fixture.path, interface: Fixture.badges, member: "SetBadge",
                    arguments: [.string("org.example.App\(index)"), .uint32(UInt32(badge(index)))])
            })
        let outcomes = try stream.waitUntilDone(seconds: 120)
        #expect(outcomes.count == count)
        #expect(outcomes.allSatisfy { $0.error == nil }, "\(outcomes.compactMap(\.error).prefix(3))")
    }

    private func notifyctl(_ fixture: Fixture, _ arguments: String...) throws -> ProcessResult {
        try runProcess(Executables.notifyctl, arguments, environment: fixture.daemon.environment)
    }

    private func openDescriptors(of pid: Int32) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
    }

    /// The senders whose latest entry shows a badge.
    private func visibleSenders(_ signals: [SignalRecorder.Signal]) -> Set<String> {
        var latest: [String: Bool] = [:]
        for signal in signals {
            guard signal.arguments.count == 2, case .dictionary(_, _, let entries) = signal.arguments[1] else { continue }
            let visible = entries.contains { $0.key == .string("count-visible") && $0.value == .variant(.boolean(true)) }
            latest[signal.sender] = visible
        }
        return Set(latest.filter(\.value).keys)
    }
}
