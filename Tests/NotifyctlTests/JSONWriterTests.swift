import Testing

@testable import notifyctl

@Suite struct JSONWriterTests {
    @Test func scalars() {
        #expect(JSON.null.text == "null")
        #expect(JSON.bool(true).text == "true")
        #expect(JSON.bool(false).text == "false")
        #expect(JSON.int(-42).text == "-42")
        #expect(JSON.int(.min).text == "-9223372036854775808")
        #expect(JSON.uint(.max).text == "18446744073709551615")
        #expect(JSON.double(0.5).text == "0.5")
        #expect(JSON.double(.nan).text == "null")
        #expect(JSON.double(-.infinity).text == "null")
    }

    @Test(arguments: [
        ("plain", #""plain""#),
        ("", #""""#),
        ("quote \" backslash \\ slash /", #""quote \" backslash \\ slash /""#),
        ("line\nreturn\rtab\tback\u{08}feed\u{0C}", #""line\nreturn\rtab\tback\bfeed\f""#),
        ("nul\u{0} esc\u{1B} unit\u{1F}", #""nul\u0000 esc\u001b unit\u001f""#),
        ("del\u{7F} é ✓ 🎉", "\"del\u{7F} é ✓ 🎉\""),
        ("separators \u{2028}\u{2029}", #""separators \u2028\u2029""#),
    ])
    func stringsAreEscapedPerRFC8259(_ input: String, _ expected: String) {
        #expect(JSON.string(input).text == expected)
    }

    @Test func containersKeepTheirOrderAndAreCompact() {
        let value = JSON.object([
            ("b", .array([.int(1), .string("x"), .null])),
            ("a", .object([])),
            ("c", .array([])),
            ("key \"quoted\"", .bool(true)),
        ])
        #expect(value.text == #"{"b":[1,"x",null],"a":{},"c":[],"key \"quoted\"":true}"#)
    }

    @Test func badgeCountsAreSortedByApp() {
        #expect(JSON.counts([:]).text == "{}")
        #expect(
            JSON.counts(["org.gnome.Nautilus": 3, "firefox": 4, "a": 2147483647]).text
                == #"{"a":2147483647,"firefox":4,"org.gnome.Nautilus":3}"#)
    }

    @Test func oneBadge() {
        #expect(JSON.badge(app: "x", count: 3).text == #"{"app":"x","count":3}"#)
    }
}

@Suite struct PrintableTests {
    @Test func controlCharactersAreShownNotSent() {
        #expect(Output.printable("GNOME Shell 46.0") == "GNOME Shell 46.0")
        #expect(Output.printable("evil\u{1B}[2Jname\n") == "evil\\u{1b}[2Jname\\u{a}")
        #expect(Output.printable("c1\u{9B}") == "c1\\u{9b}")
        #expect(Output.printable("é ✓") == "é ✓")
    }
}
