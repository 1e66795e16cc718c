import ArgumentParser
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
        default: "\(type(of: command))"
        }
    }

    static let fastVectors: [[String]] = [
        ["status"], ["status", "--json"], ["badge"], ["badge", "--json"], ["badge", "list"], ["badge", "list", "--json"],
        ["badge", "get", "firefox"], ["badge", "get", "a..b", "--json"], ["badge", "get", "with space"],
        ["badge", "set", "firefox", "3"], ["badge", "set", "x", "0"], ["badge", "set", "x", "4294967295"],
        ["badge", "increment", "x"], ["badge", "increment", "x", "7"], ["badge", "increment", "x", "2147483647", "--json"],
        ["badge", "clear", "org.example.Mail"],
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
    ]

    @Test(arguments: slowVectors)
    func leavesEverythingElseToArgumentParser(_ arguments: [String]) {
        #expect(FastPath.command(arguments) == nil)
    }
}
