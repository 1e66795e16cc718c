import DBus
import Foundation
import Testing
import NotifyTesting

/// A test bus with notifyd, a bus monitor, a signal recorder and Plank,
/// and the scenarios the tests share.
final class PlankRun {
    static let app = "org.example.Downloads"
    static let uri = "application://\(app).desktop"
    static let launcherEntry = "com.canonical.Unity.LauncherEntry"
    /// A badge "12" with a progress bar changes about 850 pixels of Plank's
    /// default 48-pixel icon; the same dock twice differs in none.
    static let badgePixels = 300

    let bus: TestBus
    let daemon: DaemonProcess
    let monitor: PlankSession.BusMonitor
    let signals: SignalRecorder
    let plank: PlankSession
    private(set) var dock: PlankSession.Geometry?

    init() throws {
        bus = try TestBus()
        daemon = try DaemonProcess(bus: bus)
        monitor = try PlankSession.BusMonitor(
            busAddress: bus.address, rules: ["interface='\(Self.launcherEntry)'"],
            output: bus.directory.appendingPathComponent("monitor.txt"))
        signals = try SignalRecorder(
            address: bus.address,
            rules: [
                DBusMatchRule(interface: Self.launcherEntry, member: "Update"),
                .nameOwnerChanged(PlankSession.unityName),
            ])
        plank = try PlankSession(busAddress: bus.address, directory: bus.directory, appID: Self.app)
    }

    deinit {
        plank.stop()  // before the bus and the display go
    }

    func file(_ name: String) -> URL { bus.directory.appendingPathComponent(name) }

    /// Plank owns `com.canonical.Unity` (its own process, not another's).
    func dockTakesTheName() throws {
        try plank.waitForUnityName()
    }

    /// The dock without a badge, for the pixel comparisons.
    func capturePlainDock() throws {
        let dock = try plank.dockGeometry()
        self.dock = dock
        try plank.settledDockImage(of: dock, to: file("dock-plain.png"))
        try attach(file("dock-plain.png"), as: "plank-plain.png")
    }

    /// A finished download adding 12 to the badge and a download at 40 %:
    /// notifyd sends the entry, Plank processes it and draws it. Returns
    /// how many pixels of the dock changed.
    @discardableResult
    func badgeAndProgressAreDrawn() throws -> Int {
        let dock = try #require(dock)
        signals.reset()
        try notifyctl(
            "event", "done-1", "--app", Self.app, "--title", "debian-12.5.0-amd64-netinst.iso", "--badge", "12",
            "--no-notify", "--timeout", "86400")
        try notifyctl("event", "dl-2", "--app", Self.app, "--progress", "400/1000")
        let sent = try #require(
            signals.wait(seconds: 10) { Self.isEntry($0, count: 12, progress: 0.4) }, "notifyd sent no Update with the badge")
        let ours = sent.filter { $0.member == "Update" && $0.arguments.first == .string(Self.uri) }
        let client = try DBusConnection.connect(to: .address(bus.address))
        defer { client.close() }
        #expect(try client.unixProcessID(of: ours.last!.sender) == UInt32(daemon.pid), "sent by notifyd")
        try waitForMonitoredUpdates(atLeast: ours.count)
        try plank.waitWithLog("plank processed \(ours.count) updates", seconds: 10) {
            plank.processedUpdates(for: Self.uri) >= ours.count
        }
        let difference = try plank.waitForDockImage(
            of: dock, to: file("dock-badged.png"), differingFrom: file("dock-plain.png"), byAtLeast: Self.badgePixels)
        try attach(file("dock-badged.png"), as: "plank-badged.png")
        return difference
    }

    /// Badge cleared and the download cancelled: the icon is drawn as it
    /// was without them.
    func clearedEntryIsDrawnAsBefore() throws {
        let dock = try #require(dock)
        try notifyctl("badge", "clear", Self.app)
        try notifyctl("event", "dl-2", "--app", Self.app, "--failed", "cancelled", "--badge", "0", "--no-notify")
        _ = try #require(
            signals.wait(seconds: 10) { Self.isEntry($0, count: 0, progress: nil) }, "notifyd sent no cleared entry")
        var difference = 0
        try plank.waitWithLog("the dock is drawn without the badge", details: { "\(difference) pixels differ" }, seconds: 20) {
            try plank.settledDockImage(of: dock, to: file("dock-cleared.png"), seconds: 10)
            difference = try PlankSession.differingPixels(file("dock-plain.png"), file("dock-cleared.png"))
            return difference == 0
        }
    }

    /// Plank stops; the badge is set to 12 and a download runs while no
    /// dock is there; Plank starts: notifyd sends the entry again after
    /// Plank took the name, Plank processes and draws it. Returns how many
    /// pixels of the dock changed.
    @discardableResult
    func entryReachesADockStartedLater() throws -> Int {
        let dock = try #require(dock)
        plank.stop()
        _ = try #require(
            signals.wait(seconds: 10) { $0.member == "NameOwnerChanged" && $0.arguments.last == .string("") },
            "plank did not release \(PlankSession.unityName)")
        try notifyctl("badge", "set", Self.app, "12")
        try notifyctl("event", "dl-3", "--app", Self.app, "--progress", "400/1000")
        _ = try #require(signals.wait(seconds: 10) { Self.isEntry($0, count: 12, progress: 0.4) })
        signals.reset()

        try plank.start()
        let owner = try plank.waitForUnityName()
        // What came from the moment the dock took the name to the first
        // whole entry (a predicate with state would be asked again of
        // every signal at each arrival, so the slice is cut here).
        var resent: [SignalRecorder.Signal]?
        try? waitUntil("notifyd sends the entry after the dock took the name", seconds: 10) {
            let received = signals.received
            guard
                let took = received.firstIndex(where: {
                    $0.member == "NameOwnerChanged" && $0.arguments.last == .string(owner)
                }),
                let entry = received[took...].firstIndex(where: { Self.isEntry($0, count: 12, progress: 0.4) })
            else { return false }
            resent = Array(received[took...entry])
            return true
        }
        guard let resent else {
            throw TestFailure(
                "notifyd did not send the entry again after the dock took \(PlankSession.unityName): "
                    + "\(signals.received)\n\(daemon.log)")
        }
        #expect(resent.filter { $0.member == "Update" }.count == 1, "the one app's entry, once")
        try plank.waitWithLog("plank processed the entry sent again", seconds: 10) {
            plank.processedUpdates(for: Self.uri) >= 1
        }
        #expect(try plank.dockGeometry() == dock)
        let difference = try plank.waitForDockImage(
            of: dock, to: file("dock-restarted.png"), differingFrom: file("dock-plain.png"), byAtLeast: Self.badgePixels)
        try attach(file("dock-restarted.png"), as: "plank-badged-after-restart.png")
        return difference
    }

    /// `Query()` calls any client made to a LauncherEntry (the monitor saw them).
    var queryCalls: Int { monitor.messages.filter { $0.isMethodCall && $0.member == "Query" }.count }

    /// Waits until the monitor saw `count` Updates of the app (what the bus
    /// delivered to Plank, which subscribes to every Update).
    private func waitForMonitoredUpdates(atLeast count: Int) throws {
        var seen = 0
        do {
            try waitUntil("the monitor sees \(count) Updates", seconds: 10) {
                seen = monitor.messages.filter { $0.isSignal && $0.member == "Update" && $0.body.contains(Self.uri) }.count
                return seen >= count
            }
        } catch {
            throw TestFailure("the monitor saw \(seen) of \(count) Updates:\n\(monitor.text)")
        }
    }

    /// Whether `signal` is an Update of the test app with this count and progress (nil: none shown).
    static func isEntry(_ signal: SignalRecorder.Signal, count: Int64, progress: Double?) -> Bool {
        guard signal.member == "Update", signal.arguments.count == 2, signal.arguments[0] == .string(uri),
            let properties = try? [String: DBusValue](dbusValue: signal.arguments[1])
        else { return false }
        guard properties["count"] == .int64(count), properties["count-visible"] == .boolean(count > 0),
            properties["progress-visible"] == .boolean(progress != nil)
        else { return false }
        guard let progress else { return true }
        guard case .double(let sent)? = properties["progress"] else { return false }
        return abs(sent - progress) < 0.001
    }

    @discardableResult
    func notifyctl(_ arguments: String...) throws -> ProcessResult {
        let result = try NotifyctlRunner(environment: daemon.environment).run(arguments)
        guard result.status == 0 else {
            throw TestFailure("notifyctl \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return result
    }

    func attach(_ file: URL, as name: String) throws {
        Attachment.record(try Data(contentsOf: file), named: name)
    }
}
