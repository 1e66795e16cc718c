import DBus
import Foundation
import NotifyTesting
import Testing

/// `transfers`, `transfer show|cancel|suspend|resume` and the completion
/// of transfer IDs as processes against ``FakeTransfers``; and exit 3
/// without notifyd.
@Suite struct TransferListRoundTripTests {
    let bus: TestBus
    let fake: FakeTransfers
    let notifyctl: NotifyctlRunner

    init() throws {
        bus = try TestBus()
        fake = try FakeTransfers(address: bus.address)
        notifyctl = NotifyctlRunner(bus: bus, environment: ["TZ": "UTC"])
    }

    @Test func listShowAndControl() throws {
        fake.set(
            3,
            .init(
                app: "org.example.Get", session: "dl-3",
                details: ["state": .string("running"), "bytes-done": .uint64(5), "bytes-total": .uint64(10),
                          "reason": .string(""), "created": .int64(1_800_000_000_000_000)]))
        fake.set(1, .init(app: "notifyctl", session: "s", details: ["state": .string("queued")]))
        #expect(
            try notifyctl("transfers").stdout == """
                ID  APP              STATE    PERCENT  BYTES   REASON
                1   notifyctl        queued   -        0B/?    -
                3   org.example.Get  running  50%      5B/10B  -

                """)
        let list = try #require(try notifyctl.json("transfers", "--json") as? [[String: Any]])
        #expect(list.map { $0["id"] as? Int } == [1, 3])
        let shown = try notifyctl("transfer", "show", "3")
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(
            shown.stdout == """
                id: 3
                app: org.example.Get
                session: dl-3
                state: running
                progress: 50% (5 B / 10 B)
                bytes-done: 5
                bytes-total: 10
                created: 2027-01-15T08:00:00+00:00

                """)
        for verb in ["cancel", "suspend", "resume"] {
            let result = try notifyctl("transfer", verb, "3")
            #expect(result.status == 0 && result.stdout.isEmpty, "\(verb): \(result.stderr)")
        }
        #expect(fake.calls.filter { $0.arguments == [.uint64(3)] }.map(\.member).suffix(3) == [
            "CancelTransfer", "SuspendTransfer", "ResumeTransfer",
        ])
        let unknown = try notifyctl("transfer", "cancel", "99")
        #expect(unknown.status == 1 && unknown.stderr == "notifyctl: transfer 99 has ended or never existed\n")
    }

    /// `transfer cancel <TAB>` offers the transfers not ended, from notifyd.
    @Test func completionOffersTheLiveIDs() throws {
        fake.set(3, .init(app: "a", session: "s3", details: ["state": .string("running")]))
        fake.set(4, .init(app: "a", session: "s4", details: ["state": .string("completed")]))
        fake.set(30, .init(app: "a", session: "s30", details: ["state": .string("queued")]))
        let result = try notifyctl.run([
            "---completion", "transfer", "cancel", "--", "positional@0", "3", "0", "notifyctl", "transfer", "cancel", "",
        ])
        #expect(result.status == 0 && result.stdout.split(separator: "\n") == ["3", "30"], "\(result)")
        let narrowed = try notifyctl.run([
            "---completion", "transfer", "show", "--", "positional@0", "3", "1", "notifyctl", "transfer", "show", "3",
        ])
        #expect(narrowed.stdout.split(separator: "\n") == ["3", "30"], "\(narrowed)")
    }

    @Test func withoutNotifydTheStatusIs3() throws {
        let empty = try TestBus()
        let runner = NotifyctlRunner(bus: empty)
        for arguments in [["transfers"], ["transfer", "show", "1"], ["download", "https://example.org/a", "-o", "/tmp/a"]] {
            let result = try runner.run(arguments)
            #expect(result.status == 3, "\(arguments): \(result.stderr)")
        }
    }
}
