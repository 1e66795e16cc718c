import Foundation
import NotifyTesting
import Testing

/// The benchmark's push section, run small: its timing is the benchmark's
/// to report (never a test's), but what it checks of a burst is a promise
/// of notifyd's: 1,000 pushes to 10 apps through a real Prosody, POSTed by
/// 10 threads at once, all delivered, each app's once and in order. This
/// also keeps the section itself working, its floor too (a synced page and
/// a `Message` straight to the app, whose messages the burst must not
/// count).
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
        let sync = try #require(value("push_floor_sync_p50"), "the synced page was timed")
        let message = try #require(value("push_floor_message_p50"), "the Message straight to the app was timed")
        #expect(sync > 0 && message > 0)
        let floorRow = figures.first { $0["id"] as? String == "push_floor_p50" }
        let bare = try #require(floorRow?["baseline_value"] as? Double)
        let floor = try #require(value("push_floor_p50"))
        #expect(abs(floor - (bare + sync + message)) < 0.01, "the floor is the bare client's time plus the two parts")
    }
}
