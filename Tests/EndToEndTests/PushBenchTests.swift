import Foundation
import NotifyTesting
import Testing

/// The benchmark's push section, run small: its timing is the benchmark's
/// to report (never a test's), but what it checks of a burst is a promise
/// of notifyd's: 1,000 pushes to 10 apps through a real Prosody, POSTed by
/// 10 threads at once, all delivered, each app's once and in order. This
/// also keeps the section itself working.
@Suite struct PushBenchTests {
    @Test func aBurstOfAThousandPushesToTenAppsArrivesWholeAndInOrder() throws {
        let bench = Executables.directory.appendingPathComponent("notifyd-bench").path
        let run = try runProcess(bench, ["--only", "push", "--pushes", "3", "--json"])
        #expect(run.status == 0, Comment(rawValue: run.stderr))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let figures = report["figures"] as? [[String: Any]] ?? []
        func value(_ id: String) -> Double? { figures.first { $0["id"] as? String == id }?["value"] as? Double }
        #expect(value("push_burst_delivered") == 1_000)
        #expect(value("push_burst_in_order") == 10)
        #expect((value("push_delivery_p50") ?? 0) > 0, "a latency was measured on each path")
        #expect((figures.first { $0["id"] as? String == "push_delivery_p50" }?["baseline_value"] as? Double ?? 0) > 0)
    }
}
