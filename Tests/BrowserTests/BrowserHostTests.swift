import DBus
import Foundation
import Testing
import NotifyTesting

/// The real browsers of Debian 12, headless: Chromium with the extension
/// unpacked, Firefox ESR with it as an unsigned add-on of the profile. Each
/// downloads from a loopback server that sends slowly; notifyd, on a
/// private bus, posts to a recording notification server.
///
/// One browser at a time (each takes a core or more).
@Suite(.serialized) struct BrowserDownloadTests {
    @Test(arguments: HeadlessBrowser.Kind.allCases)
    func aCompletedDownloadGivesProgressThenAFinishedPopupWithOpen(_ kind: HeadlessBrowser.Kind) throws {
        let run = try BrowserRun(kind)
        try run.download([run.web.file("report.bin", size: 300_000, chunks: 6, gapMilliseconds: 500)])
        let event = try #require(try run.reportedEvents(count: 1).first)
        let saved = run.browser.downloads.appendingPathComponent("report.bin")
        #expect(event["kind"] == .string("finished"))
        #expect(event["title"] == .string("report.bin"))
        #expect(event["path"] == .string(saved.path))
        #expect((try? FileManager.default.attributesOfItem(atPath: saved.path)[.size] as? Int) == 300_000)

        let popup = try #require(try run.popups(count: 1).last)
        #expect(popup.summary == "Download complete")
        #expect(popup.body == "report.bin")
        #expect(popup.actions.contains("open"), "a path gives Open")
        #expect(try run.badge() == 1, "the badge is on the browser's app ID")

        let session = try #require(try run.sessions().first { $0.app == kind.appID })
        #expect(session.pending == 0, "the host completes the handler: the browser has the file")
        // 3 s of transfer polled once a second: progress came before the end.
        let events = try #require(session.details["events"].flatMap { value -> UInt32? in
            if case .uint32(let count) = value { return count } else { return nil } })
        #expect(events >= 3, "progress events, then finished (\(events) events)")
        #expect(session.details["bytes-expected"] == nil || session.details["bytes-expected"] == .uint64(300_000))
    }

    @Test(arguments: HeadlessBrowser.Kind.allCases)
    func aConnectionCutMidTransferGivesAFailedPopupWithTheReason(_ kind: HeadlessBrowser.Kind) throws {
        let run = try BrowserRun(kind)
        try run.download([run.web.file("cut.bin", size: 300_000, chunks: 6, gapMilliseconds: 400, cutAfter: 100_000)])
        let event = try #require(try run.reportedEvents(count: 1).first)
        #expect(event["kind"] == .string("failed"))
        guard case .string(let reason)? = event["error"] else {
            Issue.record("no reason: \(event)")
            return
        }
        #expect(["Network failed", "Download incomplete", "Network disconnected"].contains(reason), "\(reason)")
        let popup = try #require(try run.popups(count: 1).last)
        #expect(popup.summary == "Download failed")
        #expect(popup.body.contains("cut.bin") && popup.body.contains(reason), "\(popup.body)")
        #expect(try run.sessions().first { $0.app == kind.appID }?.pending == 0)
    }
}
