import DBus
import Testing

@testable import notifyctl

/// `notifyctl fetch list` and `show`: a `GetFetchSchedule` dictionary and a
/// `GetFetchHistory` reply as table rows and as JSON.
@Suite struct FetchOutputTests {
    /// 2026-11-21T10:00:00Z.
    static let ten: Int64 = 1_795_255_200_000_000

    /// A schedule with every key of the contract.
    static func schedule(
        interval: UInt32 = 900, requested: UInt32 = 1, enabled: Bool = true, next: Int64 = ten + 1_350_000_000,
        lastResult: String = "no-data", running: UInt64 = 0, waitingFor: String = ""
    ) -> DBusValue {
        .vardict([
            "interval": .uint32(interval), "requested-interval": .uint32(requested), "enabled": .boolean(enabled),
            "next": .int64(next), "reason": .string("22 minutes 30 seconds after the last fetch at 10:00"),
            "last-run": .int64(ten), "last-result": .string(lastResult), "runs": .uint32(4),
            "running": .uint64(running), "waiting-for": .string(waitingFor),
        ])
    }

    /// Local time as UTC+01:00, whatever the machine's zone.
    static func plusOne(_ micros: Int64) -> String {
        Timestamp.local(unixMicroseconds: micros, utcOffsetSeconds: 3600)
    }

    @Test func decodesEveryKey() throws {
        let summary = try FetchScheduleSummary(
            app: "org.example.Reader", Self.schedule(running: 7, waitingFor: "a network connection"))
        #expect(summary.app == "org.example.Reader")
        #expect(summary.interval == 900 && summary.requestedInterval == 1 && summary.enabled)
        #expect(summary.next == Self.ten + 1_350_000_000 && summary.lastRun == Self.ten)
        #expect(summary.reason == "22 minutes 30 seconds after the last fetch at 10:00")
        #expect(summary.lastResult == "no-data" && summary.runs == 4)
        #expect(summary.running == 7 && summary.waitingFor == "a network connection")
    }

    @Test func missingKeysMeanNothingPlannedAndSwitchedOn() throws {
        let summary = try FetchScheduleSummary(app: "a", .vardict([:]))
        #expect(summary.interval == 0 && summary.enabled && summary.next == 0 && summary.running == 0)
        #expect(summary.intervalText == "never")
        #expect(summary.row(time: Self.plusOne) == ["a", "never", "on", "-", "-", ""])
    }

    @Test(arguments: [DBusValue.string("x"), .uint32(1), .array(element: .string, [])])
    func aScheduleOfAnotherShapeIsTheDaemonsError(_ value: DBusValue) {
        let error = #expect(throws: NotifyctlError.self) { try FetchScheduleSummary(app: "a", value) }
        #expect(error?.exitStatus == ExitStatus.daemonError)
        #expect(error?.message == "notifyd answered with no schedule for a")
    }

    @Test(arguments: [
        (0, 0, "never"), (0, 1, "never"), (900, 900, "15 min"), (900, 1, "minimum (15 min)"),
        (900, 60, "15 min (asked 1 min)"), (900, 0, "15 min"), (60, 1, "minimum (1 min)"), (3600, 3600, "1 h"), (5400, 5400, "90 min"),
        (90, 90, "90 s"), (86_400, 86_400, "1 d"), (604_800, 604_800, "7 d"), (7200, 1, "minimum (2 h)"),
    ] as [(UInt32, UInt32, String)])
    func intervalsReadAsDurations(_ interval: UInt32, _ requested: UInt32, _ text: String) throws {
        let summary = try FetchScheduleSummary(app: "a", Self.schedule(interval: interval, requested: requested))
        #expect(summary.intervalText == text)
    }

    @Test func table() throws {
        let rows = [
            try FetchScheduleSummary(app: "org.example.Reader", Self.schedule()),
            try FetchScheduleSummary(
                app: "org.example.Mail", Self.schedule(interval: 3600, requested: 3600, enabled: false, next: 0)),
            try FetchScheduleSummary(app: "news", Self.schedule(lastResult: "", running: 12)),
        ]
        let lines = TextTable.lines([FetchScheduleSummary.header] + rows.map { $0.row(time: Self.plusOne) })
        let reason = "22 minutes 30 seconds after the last fetch at 10:00"
        #expect(
            lines == [
                "APP                 INTERVAL          ENABLED  NEXT                       LAST RESULT  REASON",
                "org.example.Reader  minimum (15 min)  on       2026-11-21T11:22:30+01:00  no-data      \(reason)",
                "org.example.Mail    1 h               off      -                          no-data      \(reason)",
                "news                minimum (15 min)  on       running (12)               -            \(reason)",
            ])
    }

    @Test func json() throws {
        let summary = try FetchScheduleSummary(app: "org.example.Reader", Self.schedule())
        #expect(
            summary.json.text
                == #"{"app":"org.example.Reader","interval":900,"requested_interval":1,"enabled":true,"#
                + #""next_us":1795256550000000,"next":"2026-11-21T10:22:30.000Z","#
                + #""reason":"22 minutes 30 seconds after the last fetch at 10:00","last_run_us":1795255200000000,"#
                + #""last_result":"no-data","runs":4,"running":null,"waiting_for":null}"#)
        let idle = try FetchScheduleSummary(
            app: "a", Self.schedule(next: 0, lastResult: "", running: 3, waitingFor: "a network connection"))
        let text = idle.json.text
        #expect(text.contains(#""next_us":0,"next":null,"#))
        #expect(text.contains(#""last_result":null,"runs":4,"running":3,"waiting_for":"a network connection"}"#))
    }

    // MARK: History

    static func entry(_ id: UInt64, _ trigger: String, _ started: Int64, _ took: Int64, _ result: String) -> DBusValue {
        .structure([.uint64(id), .string(trigger), .int64(started), .int64(started + took), .string(result)])
    }

    @Test func historyTable() {
        let history = [
            Self.entry(12, "manual", Self.ten + 60_000_000, 1_234_567, "new-data"),
            Self.entry(11, "scheduled", Self.ten, 30_000_000, "expired"),
            Self.entry(10, "scheduled", Self.ten - 900_000_000, 250_000, "no-data"),
        ].compactMap(FetchHistoryEntry.init)
        #expect(history.map(\.id) == [12, 11, 10], "newest first, as notifyd sends them")
        #expect(
            TextTable.lines([FetchHistoryEntry.header] + history.map { $0.row(time: Self.plusOne) }) == [
                "FETCH  TRIGGER    STARTED                    TOOK     RESULT",
                "12     manual     2026-11-21T11:01:00+01:00  1.234 s  new-data",
                "11     scheduled  2026-11-21T11:00:00+01:00  30.0 s   expired",
                "10     scheduled  2026-11-21T10:45:00+01:00  0.25 s   no-data",
            ])
    }

    @Test func historyJSON() throws {
        let entry = try #require(FetchHistoryEntry(Self.entry(12, "manual", Self.ten, 1_500_000, "failed")))
        #expect(
            entry.json.text
                == #"{"fetch_id":12,"trigger":"manual","started_us":1795255200000000,"ended_us":1795255201500000,"result":"failed"}"#
        )
    }

    @Test(arguments: [
        DBusValue.structure([.uint64(1), .string("manual"), .int64(0), .int64(0)]),
        .structure([.uint32(1), .string("manual"), .int64(0), .int64(0), .string("no-data")]),
        .structure([.uint64(1), .string("manual"), .uint64(0), .int64(0), .string("no-data")]),
        .string("x"),
    ])
    func aHistoryEntryOfAnotherShapeIsSkipped(_ value: DBusValue) {
        #expect(FetchHistoryEntry(value) == nil)
    }
}
