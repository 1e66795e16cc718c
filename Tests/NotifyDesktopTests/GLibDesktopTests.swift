import DBus
import Foundation
import Synchronization
import Testing
import NotifyTesting

@testable import NotifyDesktop

/// The notifier against a recording server on a private bus.
///
/// libnotify is per process and reads `DBUS_SESSION_BUS_ADDRESS` when it
/// connects, so every test that uses it lives under this one serialized
/// suite (nested suites included), each with a bus and a notifier of its own.
@Suite(.serialized) struct LibnotifyTests {
    @Suite struct Posting {
        @Test func carriesHintsActionsAndTheDesktopFileName() throws {
            let harness = try DesktopHarness()
            let key = NotificationKey(app: DesktopFixture.namedApp, slot: "handler:1")
            harness.notifier.post(NotificationRequest(
                key: key, appID: DesktopFixture.namedApp, summary: "Download complete", body: "report.pdf",
                category: "transfer.complete", soundHint: .name("complete-download"), withActions: true,
                openPath: "/tmp/report.pdf", progress: 40, transient: true))
            let posted = try harness.events.posted(key)
            let recorded = try #require(try harness.server.waitForNotifications(count: 1).first)

            #expect(posted.appName == DesktopFixture.namedAppName)
            #expect(posted.id == recorded.id)
            #expect(recorded.appName == DesktopFixture.namedAppName)
            #expect(recorded.replacesID == 0)
            #expect(recorded.summary == "Download complete")
            #expect(recorded.body == "report.pdf")
            #expect(recorded.hints["desktop-entry"] == .string(DesktopFixture.namedApp))
            #expect(recorded.hints["category"] == .string("transfer.complete"))
            #expect(recorded.hints["sound-name"] == .string("complete-download"))
            #expect(recorded.hints["suppress-sound"] == nil)
            #expect(recorded.hints["value"] == .int32(40))
            #expect(recorded.hints["transient"] == .boolean(true))
            #expect(recorded.appIcon == DesktopFixture.namedAppIcon)
            #expect(recorded.actions.count == 4)
            #expect(recorded.actionLabels == ["default": "Show in \(DesktopFixture.namedAppName)", "open": "Open"])
        }

        @Test func withoutADesktopFileTheAppIDIsTheNameAndThereIsNoDefaultAction() throws {
            let harness = try DesktopHarness()
            let key = NotificationKey(app: "org.example.NoFile", slot: "handler:1")
            harness.notifier.post(NotificationRequest(
                key: key, appID: "org.example.NoFile", summary: "Download failed", body: "disk full",
                category: "transfer.error", soundHint: .suppress, withActions: true, openPath: "/tmp/x"))
            #expect(try harness.events.posted(key).appName == "org.example.NoFile")
            let recorded = try #require(try harness.server.waitForNotifications(count: 1).first)
            #expect(recorded.appName == "org.example.NoFile")
            #expect(recorded.hints["desktop-entry"] == .string("org.example.NoFile"))
            #expect(recorded.hints["suppress-sound"] == .boolean(true))
            #expect(recorded.hints["sound-name"] == nil)
            #expect(recorded.hints["image-path"] == nil)
            #expect(recorded.hints["value"] == nil)
            #expect(recorded.hints["transient"] == nil)
            #expect(recorded.actionLabels == ["open": "Open"])
        }

        @Test func withoutActionsOrPathThereAreNoActions() throws {
            let harness = try DesktopHarness(capabilities: ["body"])
            let first = NotificationKey(app: DesktopFixture.namedApp, slot: "a")
            let second = NotificationKey(app: DesktopFixture.namedApp, slot: "b")
            harness.notifier.post(NotificationRequest(
                key: first, appID: DesktopFixture.namedApp, summary: "New content", soundHint: .file("/tmp/ding.oga")))
            harness.notifier.post(NotificationRequest(
                key: second, appID: DesktopFixture.namedApp, summary: "New content", withActions: true))
            let recorded = try harness.server.waitForNotifications(count: 2)
            #expect(recorded[0].actions.isEmpty)
            #expect(recorded[0].hints["sound-file"] == .string("/tmp/ding.oga"))
            #expect(recorded[0].hints["category"] == nil)
            #expect(recorded[1].actionLabels == ["default": "Show in \(DesktopFixture.namedAppName)"])
            #expect(recorded[0].id != recorded[1].id)
        }

        @Test func theSameKeyUpdatesInPlaceWithFreshHints() throws {
            let harness = try DesktopHarness()
            let key = NotificationKey(app: DesktopFixture.namedApp, slot: "progress:S1")
            harness.notifier.post(NotificationRequest(
                key: key, appID: DesktopFixture.namedApp, summary: "Downloading", category: "transfer",
                withActions: true, openPath: "/tmp/a", progress: 10, transient: true))
            let first = try harness.events.posted(key)
            harness.notifier.post(NotificationRequest(
                key: key, appID: DesktopFixture.namedApp, summary: "Downloading", body: "60 %", progress: 60, transient: true))
            let second = try harness.events.posted(key, occurrence: 2)
            let recorded = try harness.server.waitForNotifications(count: 2)

            #expect(second.id == first.id)
            #expect(recorded[1].replacesID == recorded[0].id)
            #expect(recorded[1].id == recorded[0].id)
            #expect(recorded[1].hints["value"] == .int32(60))
            #expect(recorded[1].hints["category"] == nil)
            #expect(recorded[1].actions.isEmpty)
            #expect(recorded[1].body == "60 %")
            #expect(harness.notifier.withTable { $0.count } == 1)
        }

        @Test func theCacheGivesNamesAndIconsOfDesktopFiles() throws {
            let harness = try DesktopHarness()
            let infos = Mutex<[DesktopAppInfo]>([])
            let done = DispatchSemaphore(value: 0)
            for app in [DesktopFixture.pathIconApp, DesktopFixture.namedApp, "org.example.Nothing"] {
                harness.notifier.lookUpApp(app) { info in
                    infos.withLock { $0.append(info) }
                    done.signal()
                }
            }
            for _ in 0..<3 { #expect(done.wait(timeout: .now() + 5) == .success) }
            #expect(infos.withLock { $0 } == [
                DesktopAppInfo(name: "Test Viewer", icon: DesktopFixture.pathIcon, hasDesktopFile: true),
                DesktopAppInfo(name: DesktopFixture.namedAppName, icon: DesktopFixture.namedAppIcon, hasDesktopFile: true),
                DesktopAppInfo(name: "org.example.Nothing", icon: nil, hasDesktopFile: false),
            ])
        }
    }
}
