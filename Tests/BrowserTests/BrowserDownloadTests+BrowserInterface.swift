import DBus
import Foundation
import Testing
import NotifyTesting

/// What a person does in the browser's own interface, done through
/// Firefox's Marionette and Chromium's DevTools.
extension BrowserDownloadTests {
    @Test(arguments: HeadlessBrowser.Kind.allCases)
    func aDownloadCancelledInTheBrowserEndsWithoutAPopupOrAPendingHandler(_ kind: HeadlessBrowser.Kind) throws {
        let run = try BrowserRun(kind)
        let ended = try SignalRecorder(
            address: run.bus.address,
            rules: [DBusMatchRule(interface: BrowserRun.sessionsInterface, member: "SessionCompleted")])
        // 15 s long: Firefox ESR starts the extension about 4 s after the
        // page's request, and under load later, so a 5 s download was once
        // over before the cancel reached it (reported completed).
        try run.download([run.web.file("cancelled.bin", size: 400_000, chunks: 30, gapMilliseconds: 500)])
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

extension BrowserDownloadTests {
    /// A download from a private window (Firefox) or an incognito one
    /// (Chromium): reported, but with neither its name nor its path, and
    /// nothing of either in notifyd's files.
    @Test(arguments: HeadlessBrowser.Kind.allCases)
    func aPrivateWindowsDownloadStoresNoNameAndNoPath(_ kind: HeadlessBrowser.Kind) throws {
        let run = try BrowserRun(kind)
        let page = run.web.page(downloading: [run.web.file("private-plans.bin", size: 100_000, chunks: 3, gapMilliseconds: 400)])
        switch kind {
        case .firefox:
            try run.browser.open("about:blank", busAddress: run.bus.address)
            try run.browser.openPrivateWindow(page)
        case .chromium:
            try run.browser.openIncognito(page, busAddress: run.bus.address)
        }
        let event = try #require(try run.reportedEvents(count: 1).first)
        #expect(event["kind"] == .string("finished"), "\(event)")
        #expect(event["title"] == nil && event["path"] == nil && event["uri"] == nil, "\(event)")
        #expect(FileManager.default.fileExists(atPath: run.browser.downloads.appendingPathComponent("private-plans.bin").path))
        let popup = try #require(try run.popups(count: 1).last)
        #expect(popup.summary == "Download complete")
        #expect(!popup.body.contains("private-plans") && !popup.actions.contains("open"), "\(popup.body) \(popup.actions)")
        for file in try FileManager.default.contentsOfDirectory(atPath: run.daemon.stateDirectory.path) {
            let bytes = try Data(contentsOf: run.daemon.stateDirectory.appendingPathComponent(file))
            #expect(bytes.range(of: Data("private-plans".utf8)) == nil, "\(file) holds the file's name")
        }
    }
}

extension BrowserDownloadTests {
    /// A window of the browser gaining the focus makes it the active app:
    /// its badge resets.
    @Test(arguments: HeadlessBrowser.Kind.allCases)
    func focusingABrowserWindowResetsItsBadge(_ kind: HeadlessBrowser.Kind) throws {
        let run = try BrowserRun(kind)
        try run.download([run.web.file("seen.bin", size: 60_000, chunks: 2, gapMilliseconds: 300)])
        _ = try run.reportedEvents(count: 1)
        try waitUntil("the badge counts the download", seconds: 10) { try run.badge() == 1 }
        try run.browser.focusNewWindow()
        try waitUntil("the badge is reset", seconds: 20) { try run.badge() == 0 }
        let state: String = try run.call("org.notifyd.Notifyd1.Apps", "GetState", [.string(run.app)]).decode(0)
        #expect(state == "active", "the host reported the browser active (and still runs)")
    }
}
