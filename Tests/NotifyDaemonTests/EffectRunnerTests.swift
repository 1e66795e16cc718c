import DBus
import Foundation
import Logging
import NotifyCore
import NotifyDesktop
import NotifyStore
import NotifyTesting
import Testing

@testable import NotifyDaemon

/// The effect runner on its own: each effect the core decides is carried
/// out as said (the signal on the bus, the desktop's effect, the dock's
/// slot), in order, and nothing is decided here.
@Suite struct EffectRunnerTests {
    /// A runner with its real parts on a private bus, on a loop of its own.
    final class Harness {
        let connection: DBusConnection
        let desktop = RecordingDesktop()
        let runner: EffectRunner
        var propertiesAnnounced: [[String]] = []

        init(bus: TestBus, loop: EventLoop, state: URL) throws {
            let logger = Logger(label: "effect-runner-test")
            connection = try DBusConnection.connect(to: .address(bus.address), private: true)
            try connection.attach(to: loop)
            desktop.attach(loop: loop) { _ in }
            let committer = try Committer(store: StateStore(directory: state.path), owner: loop, logger: logger)
            let launcher = LauncherEntryPublisher(bus: .address(bus.address), loop: loop, logger: logger) { _ in }
            let scheduler = FetchScheduler(
                committer: committer, planner: FetchPlanner(floor: FetchPlanner.standardFloor, timeZone: .utc), loop: loop,
                clock: SystemClock(), followsSystem: false, logger: logger)
            var announced: (([String]) -> Void)?
            runner = EffectRunner(
                emitter: SignalEmitter(connection: connection, path: NotifydNames.objectPath), launcher: launcher,
                desktop: desktop, waiters: SessionWaiters(), scheduler: scheduler, waker: nil, sleepLock: SleepLockDemands(inhibitor: nil),
                logger: logger, propertiesChanged: { announced?($0) })
            announced = { [unowned self] in propertiesAnnounced.append($0) }
        }
    }

    let bus: TestBus
    let thread: LoopThread
    let harness: LoopOwned<Harness>
    let app = try! AppID("org.example.Downloads")

    init() throws {
        let bus = try TestBus()
        let state = try makeTemporaryDirectory(prefix: "notifyd-effect-runner")
        let harness = LoopOwned<Harness>()
        thread = try LoopThread(name: "effect-runner") { loop in
            let made = try Harness(bus: bus, loop: loop, state: state)
            harness.value = made
            return made
        }
        self.bus = bus
        self.harness = harness
    }

    func carryOut(_ effects: NotifydEffect...) throws {
        let harness = self.harness
        try thread.sync { for effect in effects { harness.value?.runner.carryOut(effect) } }
    }

    @Test func aBadgeChangeIsSignalledAsDecided() throws {
        let recorder = try SignalRecorder(
            address: bus.address, rules: [DBusMatchRule(interface: NotifydNames.badgesInterface, member: "BadgeChanged")])
        try carryOut(.badgeChanged(BadgeChange(app: app, old: 0, new: 4)))
        let signal = try #require(recorder.wait(seconds: 10, forCount: 1) { _ in true }?.first)
        #expect(signal.arguments == [.string(app.rawValue), .uint32(4)])
    }

    @Test func desktopEffectsGoToTheDesktopInOrder() throws {
        let key = PopupKey(app: app, slot: "handler:1")
        try carryOut(.desktop(.startServer), .desktop(.close(key)), .desktop(.openPath("/tmp/x", activationToken: nil)))
        let harness = self.harness
        let effects = try thread.sync { harness.value?.desktop.effects ?? [] }
        #expect(effects == [.startServer, .close(key), .openPath("/tmp/x", activationToken: nil)])
    }

    @Test func aPostedPopupIsAnnouncedWithItsDetails() throws {
        let recorder = try SignalRecorder(
            address: bus.address, rules: [DBusMatchRule(interface: NotifydNames.sessionsInterface, member: "NotificationPosted")])
        let draft = PopupDraft(
            key: PopupKey(app: app, slot: "handler:3"), session: try SessionID("dl-3"), kind: .finished,
            summary: "Download complete", body: "a.iso", category: "transfer.complete", sound: .named("complete-download"),
            withActions: true, openPath: nil)
        try carryOut(.notificationPosted(PostedPopup(draft: draft, notificationID: 12, appName: "Downloads", soundBackend: "canberra")))
        let signal = try #require(recorder.wait(seconds: 10, forCount: 1) { _ in true }?.first)
        #expect(signal.arguments.prefix(3) == [.string(app.rawValue), .string("dl-3"), .uint32(12)])
        let details = try [String: DBusValue](dbusValue: signal.arguments[3])
        #expect(details["summary"] == .string("Download complete") && details["sound-backend"] == .string("canberra"))
    }

    @Test func aDockShowOpensASlotThatSendsTheEntry() throws {
        let recorder = try SignalRecorder(
            address: bus.address, rules: [DBusMatchRule(interface: "com.canonical.Unity.LauncherEntry", member: "Update")])
        try carryOut(.dock(.show(app, DockEntry(count: 3))))
        let signal = try #require(recorder.wait(seconds: 10, forCount: 1) { _ in true }?.first)
        #expect(signal.arguments.first == .string("application://org.example.Downloads.desktop"))
        let properties = try [String: DBusValue](dbusValue: signal.arguments[1])
        #expect(properties["count"] == .int64(3) && properties["count-visible"] == .boolean(true))
        try carryOut(.dock(.retract(app)))
        let hidden = try #require(recorder.wait(seconds: 10, forCount: 2) { _ in true }?.last)
        #expect(try [String: DBusValue](dbusValue: hidden.arguments[1])["count-visible"] == .boolean(false))
    }
}
