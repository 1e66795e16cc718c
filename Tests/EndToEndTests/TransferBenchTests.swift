import Foundation
import NotifyTesting
import Testing

/// The benchmark's transfer section, run small: its speed is the
/// benchmark's to report (never a test's), but what it checks besides is
/// a promise of notifyd's: no transfer thread and no libcurl until the
/// first transfer,
/// downloads from a real nginx arriving whole (size and SHA-256), and
/// downloads queued in a network namespace without a network all waiting
/// for it without waking notifyd. This also keeps the section working.
@Suite struct TransferBenchTests {
    /// Every row the section reports.
    static let figures = [
        "transfer_thread_fresh", "transfer_thread_after", "transfer_libcurl_fresh", "transfer_libcurl_after",
        "transfer_fresh_rss", "transfer_download_rate", "transfer_download_rate_synced", "transfer_download_rate_disk", "transfer_download_cpu", "transfer_download_time", "transfer_download_sizes",
        "transfer_download_sha256", "transfer_queued_waiting", "transfer_queued_wakeups", "transfer_queued_heap_each",
        "transfer_queued_rss_each",
    ]

    @Test func theTransferSectionReportsEveryFigureAndItsChecksHold() throws {
        let bench = Executables.directory.appendingPathComponent("notifyd-bench").path
        let run = try runProcess(
            bench,
            ["--only", "transfer", "--transfer-mib", "4", "--transfer-idle-seconds", "2", "--transfer-queued", "20", "--json"])
        #expect(run.status == 0, Comment(rawValue: run.stderr))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let figures = report["figures"] as? [[String: Any]] ?? []
        func row(_ id: String) -> [String: Any]? { figures.first { $0["id"] as? String == id } }
        func value(_ id: String) -> Double? { row(id)?["value"] as? Double }
        for id in Self.figures {
            #expect(value(id) != nil, "\(id) is reported with a value")
        }
        #expect(value("transfer_thread_fresh") == 0, "no transfer thread before the first transfer")
        #expect(value("transfer_thread_after") == 1, "the check sees the thread once it runs")
        #expect(value("transfer_libcurl_fresh") == 0, "libcurl is not loaded before the first transfer")
        #expect(value("transfer_libcurl_after") == 1, "the check sees libcurl once it is loaded")
        #expect(value("transfer_download_sizes") == 6)
        #expect(value("transfer_download_sha256") == 2)
        #expect(value("transfer_queued_waiting") == 20, "every download waits for a network")
        #expect(value("transfer_queued_wakeups") == 0, Comment(rawValue: "\(report["notes"] ?? "")"))
        for id in ["transfer_download_rate", "transfer_download_cpu", "transfer_download_time"] {
            #expect((row(id)?["baseline_value"] as? Double ?? 0) > 0, "\(id) has curl's figure")
        }
        #expect((value("transfer_fresh_rss") ?? 0) > 0)
    }

    /// The transfer-drive section, run small: both ways of driving libcurl
    /// download whole files, and the engine's thread stays asleep while idle
    /// with a kept-alive connection.
    @Test func theDriveSectionComparesTheEngineWithAnEventLoop() throws {
        let bench = Executables.directory.appendingPathComponent("notifyd-bench").path
        let run = try runProcess(
            bench, ["--only", "transfer-drive", "--transfer-mib", "4", "--transfer-idle-seconds", "2", "--json"])
        #expect(run.status == 0, Comment(rawValue: run.stderr))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let figures = report["figures"] as? [[String: Any]] ?? []
        func row(_ id: String) -> [String: Any]? { figures.first { $0["id"] as? String == id } }
        #expect(row("drive_sizes")?["value"] as? Double == 6, "every download arrived whole")
        #expect(row("drive_idle_thread")?["value"] as? Double == 0, "the engine's thread sleeps while idle")
        for id in ["drive_rate", "drive_cpu", "drive_stall"] {
            #expect((row(id)?["value"] as? Double ?? 0) > 0, "\(id) has the engine's figure")
            #expect((row(id)?["baseline_value"] as? Double ?? 0) > 0, "\(id) has the event loop's figure")
        }
        #expect(row("drive_idle_loop")?["value"] as? Double != nil)
    }
}
