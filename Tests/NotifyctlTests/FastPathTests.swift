import ArgumentParser
import DBus
import NotifyCore
import Testing

@testable import notifyctl

/// The fast path must build exactly what ArgumentParser builds, and leave
/// everything else to ArgumentParser.
@Suite struct FastPathTests {
    /// A comparable description of a parsed command: its type and values.
    static func describe(_ command: any ParsableCommand) -> String {
        switch command {
        case let status as Status: "Status json=\(status.output.json)"
        case let list as Badge.List: "List json=\(list.output.json)"
        case let get as Badge.Get: "Get \(get.app) json=\(get.output.json)"
        case let set as Badge.SetCount: "Set \(set.app) \(set.count) \(set.countInput)"
        case let increment as Badge.Increment:
            "Increment \(increment.app) \(increment.delta) \(increment.deltaInput) json=\(increment.output.json)"
        case let clear as Badge.Clear: "Clear \(clear.app ?? "-") all=\(clear.all) json=\(clear.output.json)"
        case let activate as Activate: "Activate \(activate.app)"
        case let state as State: "State \(state.app) json=\(state.output.json)"
        case let apps as Apps: "Apps json=\(apps.output.json)"
        case let sessions as Sessions: "Sessions json=\(sessions.output.json)"
        case let complete as Complete: "Complete \(complete.session) json=\(complete.output.json)"
        case let cancel as Cancel: "Cancel \(cancel.session) json=\(cancel.output.json)"
        case let wait as Wait: "Wait \(wait.session) json=\(wait.output.json)"
        case let event as Event: describe(event)
        default: "\(type(of: command))"
        }
    }

    /// Every stored property of an event command, so that any field the
    /// fast path sets differently shows.
    static func describe(_ event: Event) -> String {
        let options = event.event
        let fields: [(String, Any?)] = [
            ("session", event.session), ("app", event.app), ("failed", options.failed),
            ("progress", options.progress.map { "\($0.written)/\($0.expected.map(String.init) ?? "?")" }),
            ("fetch", options.fetch?.rawValue), ("title", options.title), ("summary", options.summary),
            ("body", options.body), ("path", options.path), ("uri", options.uri), ("sound", options.sound),
            ("badge", options.badge), ("noNotify", options.noNotify), ("timeout", options.timeout),
            ("wait", event.wait), ("json", event.output.json),
        ]
        let text = fields.map { "\($0.0)=\($0.1.map { "\($0)" } ?? "nil")" }.joined(separator: " ")
        // And what goes on the wire.
        let wire = DBusValue.vardict(options.dictionary(currentDirectory: "/cwd"))
        return "Event \(text) \(wire)"
    }

    static let fastVectors: [[String]] = [
        ["status"], ["status", "--json"], ["badge"], ["badge", "--json"], ["badge", "list"], ["badge", "list", "--json"],
        ["badge", "get", "firefox"], ["badge", "get", "a..b", "--json"], ["badge", "get", "with space"],
        ["badge", "set", "firefox", "3"], ["badge", "set", "x", "0"], ["badge", "set", "x", "4294967295"],
        ["badge", "increment", "x"], ["badge", "increment", "x", "7"], ["badge", "increment", "x", "2147483647", "--json"],
        ["badge", "clear", "org.example.Mail"],
        ["sessions"], ["sessions", "--json"], ["complete", "dl-1"], ["complete", "dl 1", "--json"], ["cancel", "x"],
        ["cancel", "x", "--json"], ["wait", "dl-1"], ["wait", "é ✓", "--json"], ["complete", "help"], ["wait", "status"],
        ["activate", "firefox"], ["activate", "a..b"], ["activate", "with space"], ["activate", "help"],
        ["activate", "apps"], ["state", "org.gnome.Nautilus"], ["state", "firefox", "--json"], ["state", "status"],
        ["state", "é ✓"], ["apps"], ["apps", "--json"],
    ] + eventVectors

    /// `event` with the string options and flags download hooks use.
    static let eventVectors: [[String]] = [
        ["event", "dl-1", "--app", "firefox"],
        ["event", "dl-1", "--app", "firefox", "--title", "debian.iso"],
        ["event", "dl-1", "--app", "firefox", "--failed", "connection reset", "--title", "debian.iso"],
        ["event", "dl-1", "--title", "t", "--app", "firefox"],
        ["event", "dl 1", "--app", "a..b", "--title", "with space", "--path", "rel/x.iso"],
        ["event", "dl-1", "--app", "firefox", "--path", "/abs/x.iso", "--uri", "https://example.org/x?a=b&c"],
        ["event", "dl-1", "--app", "firefox", "--summary", "Done", "--body", "b", "--sound", "bell"],
        ["event", "dl-1", "--app", "firefox", "--no-notify"],
        ["event", "dl-1", "--app", "firefox", "--wait"],
        ["event", "dl-1", "--app", "firefox", "--json"],
        ["event", "dl-1", "--json", "--app", "firefox", "--wait", "--no-notify", "--title", "x"],
        ["event", "dl-1", "--app", "firefox", "--title", "help"],
        ["event", "dl-1", "--app", "firefox", "--title", "status"],
        ["event", "dl-1", "--app", "firefox", "--title", "a=b"],
        ["event", "dl-1", "--app", "firefox", "--title", "é ✓ 🎉"],
        ["event", "help", "--app", "firefox"],
        ["event", "event", "--app", "event"],
    ]

    @Test(arguments: fastVectors)
    func parsesLikeArgumentParser(_ arguments: [String]) throws {
        let fast = try #require(FastPath.command(arguments), "\(arguments) should take the fast path")
        let parsed = try NotifyctlCommand.parseAsRoot(arguments)
        #expect(Self.describe(fast) == Self.describe(parsed))
    }

    static let slowVectors: [[String]] = [
        [], ["--help"], ["--version"], ["help"], ["badge", "--help"], ["badge", "get"], ["badge", "get", "a", "b"],
        ["badge", "set", "x"], ["badge", "set", "x", "-1"], ["badge", "set", "x", "+3"], ["badge", "set", "x", "4294967296"],
        ["badge", "set", "x", "3", "--json"], ["badge", "increment", "x", "-2"], ["badge", "increment", "x", "2147483648"],
        ["badge", "clear", "--all"], ["badge", "clear", "x", "--json"], ["badge", "get", ""], ["bogus"],
        ["badge", "get", "--", "-x"], ["status", "--json", "--json"],
        ["sessions", "x"], ["complete"], ["complete", "a", "b"], ["complete", "-x"], ["complete", ""],
        ["wait", "--", "x"], ["cancel", "x", "--json", "--json"],
        ["activate"], ["activate", "firefox", "--json"], ["activate", "-x"], ["activate", ""], ["activate", "a", "b"],
        ["activate", "--", "x"], ["activate", "--help"], ["state"], ["state", "a", "b"], ["state", "--json", "firefox"],
        ["state", "a", "--json", "--json"], ["state", "-h"], ["apps", "x"], ["apps", "--json", "--json"], ["apps", "--help"],
        ["apps", "x", "--json"],
        ["event"], ["event", "dl-1"], ["event", "--app", "firefox", "dl-1"], ["event", "-x", "--app", "a"],
        ["event", "", "--app", "a"], ["event", "s", "--title", "t"], ["event", "s", "--app"],
        ["event", "s", "--app", "a", "--app", "b"], ["event", "s", "--app", "a", "--title", "x", "--title", "y"],
        ["event", "s", "--app", "a", "--wait", "--wait"], ["event", "s", "--app", "a", "--title", ""],
        ["event", "s", "--app", "a", "--title", "-x"], ["event", "s", "--app", "a", "--title", "--json"],
        ["event", "s", "--app", "a", "--sound", ""], ["event", "s", "--app=a"], ["event", "s", "--app", "a", "extra"],
        ["event", "s", "--app", "a", "--"], ["event", "s", "--app", "a", "--progress", "1/2"],
        ["event", "s", "--app", "a", "--fetch", "new-data"], ["event", "s", "--app", "a", "--badge", "2"],
        ["event", "s", "--app", "a", "--timeout", "60"], ["event", "s", "--app", "a", "--help"],
        ["event", "s", "--app", "a", "-h"], ["event", "s", "--app", "a", "--version"],
        ["event", "s", "--app", "a", "--title"],
    ]

    @Test(arguments: slowVectors)
    func leavesEverythingElseToArgumentParser(_ arguments: [String]) {
        #expect(FastPath.command(arguments) == nil)
    }
}
