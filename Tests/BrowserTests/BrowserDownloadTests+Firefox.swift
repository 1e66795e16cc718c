import DBus
import Foundation
import Testing
import NotifyTesting

/// What a person does in Firefox's own interface, done through Marionette.
extension BrowserDownloadTests {
    @Test func aDownloadCancelledInFirefoxEndsWithoutAPopupOrAPendingHandler() throws {
        let run = try BrowserRun(.firefox)
        let ended = try SignalRecorder(
            address: run.bus.address,
            rules: [DBusMatchRule(interface: BrowserRun.sessionsInterface, member: "SessionCompleted")])
        try run.download([run.web.file("cancelled.bin", size: 400_000, chunks: 10, gapMilliseconds: 500)])
        try waitUntil("the download is under way", seconds: 30) {
            try run.sessions().contains { $0.app == run.app }
        }
        try run.browser.cancelAllDownloads()
        let completed = try #require(ended.wait(seconds: 30) { $0.arguments.count == 4 }, "the session ended: \(run.server.notifications.map { ($0.summary, $0.body) })")
        #expect(completed.last?.arguments[3] == .string("cancelled"), "\(run.server.notifications.map { ($0.summary, $0.body) })")
        let session = try #require(try run.sessions().first { $0.app == run.app })
        #expect(session.pending == 0, "no pending handler")
        #expect(!run.server.notifications.contains { $0.summary.hasPrefix("Download") }, "no popup")
        #expect(try run.badge() == 0)
    }
}
