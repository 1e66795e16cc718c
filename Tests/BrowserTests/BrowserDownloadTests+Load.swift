import DBus
import Foundation
import Testing
import NotifyTesting

extension BrowserDownloadTests {
    /// 20 downloads from one page: 20 sessions, and the popups after the
    /// third of each 2 s merged into one summary (SPEC, Floods).
    @Test(arguments: HeadlessBrowser.Kind.allCases)
    func aBurstOfTwentyDownloadsGivesAMergedSummaryAndTwentySessions(_ kind: HeadlessBrowser.Kind) throws {
        let run = try BrowserRun(kind)
        let files = (1...20).map { run.web.file("burst-\($0).bin", size: 20_000, chunks: 1, gapMilliseconds: 0) }
        try run.download(files)
        let events = try run.reportedEvents(count: 20)
        #expect(events.allSatisfy { $0["kind"] == .string("finished") })
        #expect(Set(events.compactMap { $0["title"] }).count == 20)
        try waitUntil("20 sessions of \(kind.appID), none pending", seconds: 20) {
            let sessions = try run.sessions().filter { $0.app == kind.appID }
            return sessions.count == 20 && sessions.allSatisfy { $0.pending == 0 }
        }
        #expect(try run.sessions().filter { $0.app == kind.appID }.count == 20, "exactly 20")
        try waitUntil("a merged summary of \(kind.appID)'s downloads", seconds: 10) {
            run.server.notifications.contains { $0.summary.hasSuffix("downloads complete") }
        }
        // The browser finishes them over a second or two: at least three
        // single popups, and far fewer than twenty.
        let singles = run.server.notifications.filter { $0.summary == "Download complete" }
        #expect(singles.count >= 3 && singles.count < 12, "\(run.server.notifications.map(\.summary))")
    }

    /// The host killed mid-transfer: the extension starts it again and
    /// what completes after is reported like any other download.
    @Test(arguments: HeadlessBrowser.Kind.allCases)
    func killingTheHostMidDownloadLosesNothingThatCompletesAfter(_ kind: HeadlessBrowser.Kind) throws {
        let run = try BrowserRun(kind)
        try run.download([run.web.file("long.bin", size: 400_000, chunks: 10, gapMilliseconds: 500)])
        try waitUntil("the download is under way", seconds: 30) {
            try run.sessions().contains { $0.app == kind.appID }
        }
        let hosts = run.browser.hostProcesses(busAddress: run.bus.address)
        #expect(!hosts.isEmpty, "the browser runs the host")
        for pid in hosts { kill(pid, SIGKILL) }
        let event = try #require(try run.reportedEvents(count: 1).first)
        #expect(event["kind"] == .string("finished"))
        #expect(event["path"] == .string(run.browser.downloads.appendingPathComponent("long.bin").path))
        let restarted = run.browser.hostProcesses(busAddress: run.bus.address)
        #expect(!restarted.isEmpty && Set(restarted).isDisjoint(with: hosts), "a new host: \(restarted) after \(hosts)")
        let sessions = try run.sessions().filter { $0.app == kind.appID }
        #expect(sessions.count == 1, "the same session before and after: \(sessions.map(\.id))")
        #expect(try run.badge() == 1)
    }
}
