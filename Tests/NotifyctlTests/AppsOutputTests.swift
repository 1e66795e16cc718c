import DBus
import Testing

@testable import notifyctl

/// `notifyctl apps` and `notifyctl state`: the replies of ListApps and
/// GetState as text and as JSON.
@Suite struct AppsOutputTests {
    static let entryType = DBusType.structure([.string, .string, .uint32])

    static func reply(_ entries: [(String, String, UInt32)]) -> [DBusValue] {
        [.array(element: entryType, entries.map { .structure([.string($0.0), .string($0.1), .uint32($0.2)]) })]
    }

    static let sample = reply([
        ("org.gnome.Nautilus", "background", 0), ("firefox", "active", 0), ("thunderbird", "not-running", 12),
        ("org.example.Editor", "inactive", 2147483647),
    ])

    @Test func decodesSortedByApp() throws {
        let apps = try AppSummary.list(from: Self.sample)
        #expect(apps.map(\.app) == ["firefox", "org.example.Editor", "org.gnome.Nautilus", "thunderbird"])
        #expect(apps[0] == AppSummary(app: "firefox", state: "active", badge: 0))
        #expect(apps[3] == AppSummary(app: "thunderbird", state: "not-running", badge: 12))
    }

    @Test func table() throws {
        #expect(
            AppSummary.table(try AppSummary.list(from: Self.sample)) == [
                "APP                 STATE        BADGE",
                "firefox             active       0",
                "org.example.Editor  inactive     2147483647",
                "org.gnome.Nautilus  background   0",
                "thunderbird         not-running  12",
            ])
    }

    @Test func json() throws {
        #expect(
            JSON.array(try AppSummary.list(from: Self.sample).map(\.json)).text
                == #"[{"app":"firefox","state":"active","badge":0},{"app":"org.example.Editor","state":"inactive","badge":2147483647},"#
                + #"{"app":"org.gnome.Nautilus","state":"background","badge":0},{"app":"thunderbird","state":"not-running","badge":12}]"#)
    }

    @Test func noAppsPrintNothing() throws {
        let apps = try AppSummary.list(from: Self.reply([]))
        #expect(AppSummary.table(apps) == [])
        #expect(JSON.array(apps.map(\.json)).text == "[]")
    }

    /// Whatever notifyd answers stays one token per cell and harmless to a terminal.
    @Test func oddValuesAreQuoted() throws {
        let apps = try AppSummary.list(from: Self.reply([("a b", "new\u{1B}state", 1)]))
        #expect(AppSummary.table(apps) == ["APP    STATE             BADGE", #""a b"  "new\u{1b}state"  1"#])
    }

    @Test func oneState() {
        #expect(JSON.appState(app: "firefox", state: "not-running").text == #"{"app":"firefox","state":"not-running"}"#)
    }

    @Test(arguments: [
        [DBusValue](),
        [.string("x")],
        [.array(element: .string, [.string("x")])],
        [.array(element: .structure([.string, .string]), [.structure([.string("a"), .string("active")])])],
        [.array(element: .structure([.string, .string, .int32]), [.structure([.string("a"), .string("active"), .int32(1)])])],
        [.dictionary(key: .string, value: .uint32, [])],
    ])
    func aReplyOfAnotherShapeIsRefused(_ reply: [DBusValue]) {
        #expect(throws: DBusError.self) { try AppSummary.list(from: reply) }
    }

    /// The table of `sessions` and `apps` alike.
    @Test func textTable() {
        #expect(TextTable.lines([]) == [])
        #expect(TextTable.lines([["A", "BB", "C"], ["xxx", "y", "long last"]]) == ["A    BB  C", "xxx  y   long last"])
    }
}
