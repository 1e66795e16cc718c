import DBus
import Foundation
import Testing
import NotifyTesting

@testable import NotifyDesktop

extension LibnotifyTests {
    /// What comes back from the server: actions, closes, failures.
    @Suite struct Events {
        @Test func actionsArriveAsActionInvoked() throws {
            let harness = try DesktopHarness()
            let key = NotificationKey(app: DesktopFixture.namedApp, slot: "handler:7")
            harness.notifier.post(NotificationRequest(
                key: key, appID: DesktopFixture.namedApp, summary: "Download complete", withActions: true,
                openPath: "/tmp/file"))
            let id = try harness.events.posted(key).id
            try harness.server.invokeAction(id: id, action: "open")
            try harness.server.invokeAction(id: id, action: "default")
            let actions = try harness.events.wait { events in
                let actions = events.compactMap { event -> String? in
                    guard case .actionInvoked(key, let action, nil) = event else { return nil }
                    return action
                }
                return actions.count >= 2 ? actions : nil
            }
            #expect(actions == ["open", "default"])
        }

        @Test func aServerCloseIsReportedAndForgetsTheKey() throws {
            let harness = try DesktopHarness()
            let key = NotificationKey(app: "org.example.Closing", slot: "handler:1")
            let request = NotificationRequest(key: key, appID: "org.example.Closing", summary: "New content")
            harness.notifier.post(request)
            let id = try harness.events.posted(key).id
            try harness.server.close(id: id, reason: 2)
            #expect(try harness.events.first { event -> Int32? in
                guard case .closed(key, let reason) = event else { return nil }
                return reason
            } == 2)
            #expect(harness.notifier.withTable { $0.count } == 0)

            // Posting the key again makes a new popup rather than replacing the closed one.
            harness.notifier.post(request)
            try harness.events.posted(key, occurrence: 2)
            let recorded = try harness.server.waitForNotifications(count: 2)
            #expect(recorded[1].replacesID == 0)
            #expect(recorded[1].id != id)
        }

        @Test func closeAsksTheServerAndReportsItsAnswer() throws {
            let harness = try DesktopHarness()
            let key = NotificationKey(app: "org.example.Closing", slot: "burst:1")
            harness.notifier.post(NotificationRequest(key: key, appID: "org.example.Closing", summary: "3 downloads complete"))
            let id = try harness.events.posted(key).id
            harness.notifier.close(key)
            harness.notifier.close(NotificationKey(app: "org.example.Closing", slot: "never-posted"))
            #expect(try harness.server.waitForCloseRequests(count: 1) == [id])
            #expect(try harness.events.first { event -> Int32? in
                guard case .closed(key, let reason) = event else { return nil }
                return reason
            } == 3)
        }

        @Test func withoutAServerPostingFails() throws {
            let harness = try DesktopHarness()
            harness.server.stop()
            let key = NotificationKey(app: "org.example.Lonely", slot: "handler:1")
            harness.notifier.post(NotificationRequest(key: key, appID: "org.example.Lonely", summary: "New content"))
            let message = try harness.events.first { event -> String? in
                guard case .failed(key, let message) = event else { return nil }
                return message
            }
            #expect(message.contains("org.freedesktop.Notifications"))

            // A server that appears later gets the next post.
            let server = try RecordingNotificationServer(address: harness.bus.address)
            let later = NotificationKey(app: "org.example.Lonely", slot: "handler:2")
            harness.notifier.post(NotificationRequest(key: later, appID: "org.example.Lonely", summary: "Again"))
            try harness.events.posted(later)
            #expect(try server.waitForNotifications(count: 1).map(\.summary) == ["Again"])
        }

        @Test func afterAFailedUpdateTheNextOneStillReplacesThePopup() throws {
            let harness = try DesktopHarness()
            let key = NotificationKey(app: "org.example.Flaky", slot: "progress:S")
            let request = NotificationRequest(key: key, appID: "org.example.Flaky", summary: "Downloading", progress: 5)
            harness.notifier.post(request)
            let id = try harness.events.posted(key).id
            harness.server.refuseNotifications(true)
            harness.notifier.post(request)
            let message = try harness.events.first { event -> String? in
                guard case .failed(key, let message) = event else { return nil }
                return message
            }
            #expect(message.contains("refuses notifications"))
            harness.server.refuseNotifications(false)
            harness.notifier.post(request)
            let recorded = try harness.server.waitForNotifications(count: 2)
            #expect(recorded[1].replacesID == id)
        }

        @Test func shutDownLeavesPopupsShowing() throws {
            let harness = try DesktopHarness()
            let key = NotificationKey(app: DesktopFixture.namedApp, slot: "handler:1")
            harness.notifier.post(NotificationRequest(
                key: key, appID: DesktopFixture.namedApp, summary: "Download complete", withActions: true, openPath: "/tmp/f"))
            try harness.events.posted(key)
            harness.notifier.shutDown()
            // notify_uninit would close popups with an `open` action still in its list.
            #expect(harness.server.closeRequests.isEmpty)
        }

        @Test func anEmptySummaryFails() throws {
            let harness = try DesktopHarness()
            let key = NotificationKey(app: "org.example.Empty", slot: "handler:1")
            harness.notifier.post(NotificationRequest(key: key, appID: "org.example.Empty", summary: ""))
            #expect(try harness.events.first { event -> String? in
                guard case .failed(key, let message) = event else { return nil }
                return message
            } == "a notification needs a summary")
        }

        @Test func losingTheBusFailsPostsWithoutEndingTheProcess() throws {
            let harness = try DesktopHarness()
            let key = NotificationKey(app: "org.example.Bus", slot: "handler:1")
            harness.notifier.post(NotificationRequest(key: key, appID: "org.example.Bus", summary: "Before"))
            try harness.events.posted(key)
            // GIO's default for the session bus is to raise SIGTERM when it closes.
            #expect(harness.notifier.withTable { $0.exitsWhenTheBusCloses } == false)
            harness.server.stop()
            harness.bus.stop()
            let later = NotificationKey(app: "org.example.Bus", slot: "handler:2")
            harness.notifier.post(NotificationRequest(key: later, appID: "org.example.Bus", summary: "After"))
            _ = try harness.events.first { event -> String? in
                guard case .failed(later, let message) = event else { return nil }
                return message
            }
        }

        @Test func oneNotifierAtATimeAndShutDownIsFinal() throws {
            let harness = try DesktopHarness()
            let error = #expect(throws: DesktopError.self) {
                _ = try GLibDesktop(logger: DesktopFixture.logger) { _ in }
            }
            #expect(error?.code == .busy)
            harness.notifier.shutDown()
            harness.notifier.shutDown()
            let key = NotificationKey(app: "org.example.Late", slot: "handler:1")
            harness.notifier.post(NotificationRequest(key: key, appID: "org.example.Late", summary: "Too late"))
            #expect(harness.events.received == [.failed(key, message: "the desktop notifier is shut down")])
            #expect(harness.notifier.withTable { $0.count } == nil)

            // Once shut down, another notifier may start.
            let next = try GLibDesktop(logger: DesktopFixture.logger) { _ in }
            next.shutDown()
        }
    }
}
