import DBus
import Testing

@testable import notifyctl

/// What `notifyctl monitor` prints for each signal of notifyd.
@Suite struct MonitorOutputTests {
    /// 2026-11-21T10:00:00.123456Z in Unix microseconds.
    static let time: Int64 = 1_795_255_200_123_456

    static func line(_ interface: String, _ member: String, _ arguments: [DBusValue]) -> SignalLine {
        SignalLine(time: time, interface: interface, member: member, arguments: arguments)
    }

    static let event = DBusValue.vardict([
        "kind": .string("finished"), "title": .string("debian 13.iso"), "bytes-written": .uint64(10),
        "badge": .int32(-1), "notify": .boolean(false),
    ])

    @Test(arguments: [
        (
            line("org.notifyd.Notifyd1.Badges", "BadgeChanged", [.string("firefox"), .uint32(3)]),
            "2026-11-21T10:00:00.123Z BadgeChanged app=firefox count=3",
            #"{"time":"2026-11-21T10:00:00.123Z","interface":"org.notifyd.Notifyd1.Badges","member":"BadgeChanged","args":["firefox",3]}"#
        ),
        (
            line("org.notifyd.Notifyd1.Apps", "StateChanged", [.string("org.gnome.Nautilus"), .string("active")]),
            "2026-11-21T10:00:00.123Z StateChanged app=org.gnome.Nautilus state=active",
            #"{"time":"2026-11-21T10:00:00.123Z","interface":"org.notifyd.Notifyd1.Apps","member":"StateChanged","args":["org.gnome.Nautilus","active"]}"#
        ),
        (
            line(
                "org.notifyd.Notifyd1.Sessions", "HandleEventsForBackgroundSession",
                [.string("dl-1"), .string("firefox"), .uint64(42), event]),
            #"2026-11-21T10:00:00.123Z HandleEventsForBackgroundSession session=dl-1 app=firefox handler=42 event={badge=-1,bytes-written=10,kind=finished,notify=false,title="debian 13.iso"}"#,
            #"{"time":"2026-11-21T10:00:00.123Z","interface":"org.notifyd.Notifyd1.Sessions","member":"HandleEventsForBackgroundSession","args":["dl-1","firefox",42,{"badge":-1,"bytes-written":10,"kind":"finished","notify":false,"title":"debian 13.iso"}]}"#
        ),
        (
            line(
                "org.notifyd.Notifyd1.Sessions", "SessionCompleted",
                [.string("dl-1"), .string("firefox"), .uint64(42), .string("expired")]),
            "2026-11-21T10:00:00.123Z SessionCompleted session=dl-1 app=firefox handler=42 result=expired",
            #"{"time":"2026-11-21T10:00:00.123Z","interface":"org.notifyd.Notifyd1.Sessions","member":"SessionCompleted","args":["dl-1","firefox",42,"expired"]}"#
        ),
        (
            line(
                "org.notifyd.Notifyd1.Sessions", "NotificationPosted",
                [
                    .string("firefox"), .string("dl-1"), .uint32(7),
                    .vardict(["summary": .string("12 downloads complete"), "merged": .uint32(12), "sound-backend": .string("none")]),
                ]),
            #"2026-11-21T10:00:00.123Z NotificationPosted app=firefox session=dl-1 notification=7 details={merged=12,sound-backend=none,summary="12 downloads complete"}"#,
            #"{"time":"2026-11-21T10:00:00.123Z","interface":"org.notifyd.Notifyd1.Sessions","member":"NotificationPosted","args":["firefox","dl-1",7,{"merged":12,"sound-backend":"none","summary":"12 downloads complete"}]}"#
        ),
        (
            line(
                "org.freedesktop.DBus.Properties", "PropertiesChanged",
                [
                    .string("org.notifyd.Notifyd1.Daemon"),
                    .vardict(["PendingHandlers": .uint32(3), "ServerCapabilities": .strings(["body", "sound"])]),
                    .strings([]),
                ]),
            "2026-11-21T10:00:00.123Z PropertiesChanged interface=org.notifyd.Notifyd1.Daemon changed={PendingHandlers=3,ServerCapabilities=[body,sound]} invalidated=[]",
            #"{"time":"2026-11-21T10:00:00.123Z","interface":"org.freedesktop.DBus.Properties","member":"PropertiesChanged","args":["org.notifyd.Notifyd1.Daemon",{"PendingHandlers":3,"ServerCapabilities":["body","sound"]},[]]}"#
        ),
        (
            // A signal this notifyctl does not know, with an extra argument.
            line("org.example.Other", "Thing", [.double(0.5), .structure([.string(""), .int64(-3)])]),
            #"2026-11-21T10:00:00.123Z org.example.Other.Thing 0.5 ("",-3)"#,
            #"{"time":"2026-11-21T10:00:00.123Z","interface":"org.example.Other","member":"Thing","args":[0.5,["",-3]]}"#
        ),
        (
            line("org.notifyd.Notifyd1.Badges", "BadgeChanged", [.string("firefox"), .uint32(3), .boolean(true)]),
            "2026-11-21T10:00:00.123Z BadgeChanged app=firefox count=3 true",
            #"{"time":"2026-11-21T10:00:00.123Z","interface":"org.notifyd.Notifyd1.Badges","member":"BadgeChanged","args":["firefox",3,true]}"#
        ),
    ] as [(SignalLine, String, String)])
    func oneLinePerSignal(_ line: SignalLine, _ text: String, _ json: String) {
        #expect(line.text == text)
        #expect(line.json.text == json)
    }

    @Test func textNeverCarriesControlCharactersOrLineBreaks() {
        let hostile = Self.line(
            "org.notifyd.Notifyd1.Badges", "BadgeChanged", [.string("evil\u{1B}[2J\nname\u{9B}\u{2028}"), .uint32(1)])
        #expect(hostile.text == #"2026-11-21T10:00:00.123Z BadgeChanged app="evil\u{1b}[2J\nname\u{9b}\u{2028}" count=1"#)
        #expect(!hostile.json.text.contains("\n"))
        #expect(hostile.json.text.contains(#""evil\u001b[2J\nname"#))
    }

    @Test(arguments: [
        (DBusValue.string("plain-word_1.2"), "plain-word_1.2"),
        (.string(""), #""""#),
        (.string("two words"), #""two words""#),
        (.string("a=b"), #""a=b""#),
        (.string("q\"b\\"), #""q\"b\\""#),
        (.string("tab\there"), #""tab\there""#),
        (.string("é✓"), "é✓"),
        (.objectPath("/org/notifyd/Notifyd1"), "/org/notifyd/Notifyd1"),
        (.signature("a{sv}"), #""a{sv}""#),
        (.byte(255), "255"),
        (.int16(-5), "-5"),
        (.uint16(5), "5"),
        (.int64(.min), "-9223372036854775808"),
        (.uint64(.max), "18446744073709551615"),
        (.double(0.25), "0.25"),
        (.boolean(false), "false"),
        (.variant(.variant(.int32(1))), "1"),
        (.array(element: .string, []), "[]"),
        (.array(element: .int32, [.int32(1), .int32(2)]), "[1,2]"),
        (.dictionary(key: .string, value: .uint32, [DBusDictionaryEntry(key: .string("x y"), value: .uint32(1))]), #"{"x y"=1}"#),
        (.dictionary(key: .uint32, value: .string, [DBusDictionaryEntry(key: .uint32(4), value: .string("v"))]), "{4=v}"),
        (.vardict([:]), "{}"),
    ])
    func compactValues(_ value: DBusValue, _ text: String) {
        #expect(DBusValueText.text(value) == text)
    }

    @Test(arguments: [
        (DBusValue.byte(7), "7"),
        (.int16(-7), "-7"),
        (.uint64(.max), "18446744073709551615"),
        (.double(.nan), "null"),
        (.double(1.5), "1.5"),
        (.objectPath("/a"), #""/a""#),
        (.variant(.boolean(true)), "true"),
        (.structure([.string("a"), .uint32(1)]), #"["a",1]"#),
        (.array(element: .byte, [.byte(1), .byte(2)]), "[1,2]"),
        (.dictionary(key: .uint32, value: .string, [DBusDictionaryEntry(key: .uint32(4), value: .string("v"))]), #"{"4":"v"}"#),
        (.vardict(["nested": .vardict(["k": .strings(["a"])])]), #"{"nested":{"k":["a"]}}"#),
    ])
    func jsonValues(_ value: DBusValue, _ json: String) {
        #expect(JSON.dbus(value).text == json)
    }
}

@Suite struct TimestampTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (1_795_255_200_123_456, "2026-11-21T10:00:00.123Z"),
        (951_782_400_999_999, "2000-02-29T00:00:00.999Z"),
        (4_107_542_399_000_000, "2100-02-28T23:59:59.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (-86_400_000_000, "1969-12-31T00:00:00.000Z"),
    ])
    func utcWithMilliseconds(_ micros: Int64, _ text: String) {
        #expect(Timestamp.utc(unixMicroseconds: micros) == text)
    }

    @Test(arguments: [
        (Int64(1_795_255_200_123_456), 3600, "2026-11-21T11:00:00+01:00"),
        (1_795_255_200_123_456, 0, "2026-11-21T10:00:00+00:00"),
        (1_795_255_200_123_456, -5 * 3600, "2026-11-21T05:00:00-05:00"),
        (1_795_255_200_123_456, 5 * 3600 + 1800, "2026-11-21T15:30:00+05:30"),
        (1_795_255_200_123_456, -(9 * 3600 + 1800), "2026-11-21T00:30:00-09:30"),
        (1_795_255_200_000_000, 14 * 3600, "2026-11-22T00:00:00+14:00"),
    ])
    func localWithOffset(_ micros: Int64, _ offset: Int, _ text: String) {
        #expect(Timestamp.local(unixMicroseconds: micros, utcOffsetSeconds: offset) == text)
    }

    @Test func localUsesTheProcessZone() {
        let micros: Int64 = 1_795_255_200_000_000
        let offset = Timestamp.utcOffset(at: micros)
        #expect(Timestamp.local(unixMicroseconds: micros) == Timestamp.local(unixMicroseconds: micros, utcOffsetSeconds: offset))
    }
}
