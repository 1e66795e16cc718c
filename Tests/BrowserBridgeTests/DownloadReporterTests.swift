import DBus
import Testing

@testable import BrowserBridge

@Suite struct DownloadReporterTests {
    static let second: UInt64 = 1_000_000_000

    func download(_ state: DownloadReport.State, _ change: (inout DownloadReport) -> Void = { _ in }) -> DownloadReport {
        var report = DownloadReport(id: 7, startTime: "2026-11-25T16:00:00.000Z", state: state)
        report.filename = "/home/u/Downloads/report.pdf"
        report.url = "https://example.org/report.pdf"
        report.bytesReceived = 100
        report.totalBytes = 400
        change(&report)
        return report
    }

    func event(_ call: HostCall?) -> [String: DBusValue] {
        guard let call, call.member == "HandleEventsForBackgroundSession", call.arguments.count == 3,
            case .dictionary(_, _, let entries) = call.arguments[2]
        else { return [:] }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            if case .string(let key) = entry.key, case .variant(let value) = entry.value { result[key] = value }
        }
        return result
    }

    @Test func progressIsAtMostTwoASecondPerDownload() {
        var reporter = DownloadReporter(app: "chromium", profile: "p")
        let running = BrowserMessage.download(download(.inProgress))
        let first = reporter.calls(for: running, now: 10 * Self.second)
        #expect(first.count == 1)
        #expect(first.first?.arguments.prefix(2) == [.string("browser:p:2026-11-25T16:00:00.000Z:7"), .string("chromium")])
        #expect(event(first.first) == [
            "kind": .string("progress"), "bytes-written": .uint64(100), "bytes-expected": .uint64(400),
            "title": .string("report.pdf"),
        ])
        #expect(reporter.calls(for: running, now: 10 * Self.second + Self.second / 4).isEmpty)
        #expect(reporter.calls(for: running, now: 10 * Self.second + Self.second / 2).count == 1)
        let other = BrowserMessage.download(download(.inProgress) { $0.id = 8; $0.totalBytes = nil })
        let unknownSize = reporter.calls(for: other, now: 10 * Self.second + Self.second / 2)
        #expect(event(unknownSize.first)["bytes-expected"] == nil, "no size while the browser says -1")
    }

    @Test func aCompletedDownloadIsFinishedWithItsPathThenCompleted() {
        var reporter = DownloadReporter(app: "firefox-esr", profile: "p")
        let calls = reporter.calls(for: .download(download(.complete)), now: 0)
        #expect(calls.map(\.member) == ["HandleEventsForBackgroundSession", "CompleteSession"])
        #expect(event(calls.first) == [
            "kind": .string("finished"), "title": .string("report.pdf"),
            "path": .string("/home/u/Downloads/report.pdf"), "uri": .string("https://example.org/report.pdf"),
        ])
        #expect(calls.last?.arguments == [.string(reporter.sessionID(download(.complete)))])
    }

    @Test func anEndIsReportedOnceAndNothingFollowsIt() {
        var reporter = DownloadReporter(app: "chromium", profile: "p")
        #expect(reporter.calls(for: .download(download(.complete)), now: 0).count == 2)
        #expect(reporter.calls(for: .download(download(.complete)), now: 1).isEmpty, "the same end again")
        #expect(reporter.calls(for: .download(download(.inProgress)), now: 2 * Self.second).isEmpty, "a late progress")
        #expect(reporter.calls(for: .download(download(.complete) { $0.id = 9 }), now: 3).count == 2, "another download")
    }

    @Test func aFailureSaysWhyInPlainWords() {
        var reporter = DownloadReporter(app: "chromium", profile: "p")
        let calls = reporter.calls(for: .download(download(.interrupted) { $0.error = "NETWORK_FAILED" }), now: 0)
        #expect(calls.map(\.member) == ["HandleEventsForBackgroundSession", "CompleteSession"])
        #expect(event(calls.first)["kind"] == .string("failed"))
        #expect(event(calls.first)["error"] == .string("Network failed"))
        #expect(DownloadFailureReason.words(for: "FILE_NO_SPACE") == "Disk full")
        #expect(DownloadFailureReason.words(for: "SOMETHING_NEW") == "Something new")
        #expect(DownloadFailureReason.words(for: nil) == "Download interrupted")
    }

    @Test func aCancelledOrVanishedDownloadEndsWithoutAPopup() {
        var reporter = DownloadReporter(app: "chromium", profile: "p")
        for report in [download(.interrupted) { $0.error = "USER_CANCELED" }, download(.inProgress) { $0.id = 8; $0.vanished = true }] {
            let calls = reporter.calls(for: .download(report), now: 0)
            #expect(calls.map(\.member) == ["HandleEventsForBackgroundSession", "CancelSession"])
            #expect(event(calls.first)["notify"] == .boolean(false))
            #expect(event(calls.first)["badge"] == .int32(0))
            #expect(event(calls.first)["sound"] == .string(""))
        }
    }

    @Test func aPausedFirefoxDownloadIsStillInProgress() {
        var reporter = DownloadReporter(app: "firefox-esr", profile: "p")
        let calls = reporter.calls(
            for: .download(download(.interrupted) { $0.error = "USER_CANCELED"; $0.paused = true }), now: 0)
        #expect(calls.map(\.member) == ["HandleEventsForBackgroundSession"])
        #expect(event(calls.first)["kind"] == .string("progress"))
    }

    @Test func aPrivateDownloadCarriesNoNameNoPathNoAddress() {
        var reporter = DownloadReporter(app: "chromium", profile: "p")
        for state in [DownloadReport.State.inProgress, .complete] {
            let calls = reporter.calls(for: .download(download(state) { $0.incognito = true }), now: 0)
            let keys = Set(event(calls.first).keys)
            #expect(keys.isDisjoint(with: ["title", "path", "uri"]), "\(keys)")
        }
    }

    @Test func focusIsTheBrowsersAppState() {
        var reporter = DownloadReporter(app: "chromium", profile: "p")
        #expect(reporter.calls(for: .focus(true), now: 0).map(\.member) == ["DidBecomeActive"])
        #expect(reporter.calls(for: .focus(false), now: 0).map(\.member) == ["DidEnterBackground"])
        #expect(reporter.calls(for: .focus(true), now: 0).first?.arguments == [.string("chromium")])
    }

    @Test func onlyWebAddressesAreKept() {
        #expect(DownloadReporter.isReportable(url: "https://example.org/a"))
        #expect(!DownloadReporter.isReportable(url: "data:text/plain,hello"))
        #expect(!DownloadReporter.isReportable(url: "blob:https://example.org/1"))
        #expect(!DownloadReporter.isReportable(url: "https://example.org/" + String(repeating: "a", count: 3000)))
    }
}
