import ArgumentParser
import Testing

@testable import notifyctl

/// Parses a command line as `notifyctl ARGS` would, without running it.
private func parse(_ line: String) throws -> any ParsableCommand {
    try NotifyctlCommand.parseAsRoot(line.split(separator: " ").map(String.init))
}

/// The exit status `notifyctl ARGS` would have if parsing failed (0 when it
/// parses: help and version are errors to ArgumentParser, with status 0).
private func parseStatus(_ arguments: [String]) -> Int32 {
    do {
        _ = try NotifyctlCommand.parseAsRoot(arguments)
        return ExitStatus.success
    } catch {
        return NotifyctlCommand.exitStatus(for: error)
    }
}

@Suite struct ArgumentParsingTests {
    @Test func statusAndList() throws {
        #expect(try parse("status") is Status)
        #expect((try parse("status --json") as? Status)?.output.json == true)
        #expect((try parse("badge list") as? Badge.List)?.output.json == false)
        #expect((try parse("badge list --json") as? Badge.List)?.output.json == true)
        #expect(try parse("badge") is Badge.List, "list is badge's default subcommand")
    }

    @Test func appsArePassedThroughUnchecked() throws {
        // notifyd is the authority on app IDs: "a..b" is its InvalidAppId (exit 1), not bad usage.
        #expect((try parse("badge get a..b") as? Badge.Get)?.app == "a..b")
        #expect((try parse("badge set a..b 3") as? Badge.SetCount)?.app == "a..b")
        let dashed = try NotifyctlCommand.parseAsRoot(["badge", "get", "--", "-x"]) as? Badge.Get
        #expect(dashed?.app == "-x")
    }

    @Test func setTakesAnyUInt32() throws {
        #expect((try parse("badge set firefox 3") as? Badge.SetCount)?.count == 3)
        #expect((try parse("badge set firefox 0") as? Badge.SetCount)?.count == 0)
        // Above notifyd's maximum but inside UInt32: notifyd answers OutOfRange.
        #expect((try parse("badge set firefox 4294967295") as? Badge.SetCount)?.count == .max)
    }

    @Test(arguments: [
        ("badge increment firefox", 1),
        ("badge increment firefox 5", 5),
        ("badge increment firefox +5", 5),
        ("badge increment firefox -2", -2),
        ("badge increment firefox -- -2", -2),
        ("badge increment firefox -2 --json", -2),
        ("badge increment firefox --json -2", -2),
        ("badge increment firefox -2147483648", Int32.min),
        ("badge increment firefox 2147483647", Int32.max),
    ] as [(String, Int32)])
    func incrementTakesNegativeNumbersWithoutTerminator(_ line: String, _ delta: Int32) throws {
        let command = try #require(try parse(line) as? Badge.Increment)
        #expect(command.app == "firefox")
        #expect(command.delta == delta)
    }

    @Test func appCommands() throws {
        #expect((try parse("activate firefox") as? Activate)?.app == "firefox")
        #expect((try parse("activate a..b") as? Activate)?.app == "a..b")
        #expect((try parse("state org.gnome.Nautilus") as? State)?.app == "org.gnome.Nautilus")
        #expect((try parse("state firefox") as? State)?.output.json == false)
        #expect((try parse("state firefox --json") as? State)?.output.json == true)
        #expect((try parse("state --json firefox") as? State)?.app == "firefox")
        #expect((try parse("apps") as? Apps)?.output.json == false)
        #expect((try parse("apps --json") as? Apps)?.output.json == true)
        let dashed = try NotifyctlCommand.parseAsRoot(["activate", "--", "-x"]) as? Activate
        #expect(dashed?.app == "-x")
    }

    @Test func clear() throws {
        #expect((try parse("badge clear firefox") as? Badge.Clear)?.app == "firefox")
        #expect((try parse("badge clear --all") as? Badge.Clear)?.all == true)
        #expect((try parse("badge clear --all --json") as? Badge.Clear)?.output.json == true)
    }

    @Test(arguments: [
        "bogus",
        "status extra",
        "status --jsn",
        "badge get",
        "badge get a b",
        "badge set firefox",
        "badge set firefox x",
        "badge set firefox -1",
        "badge set firefox 4294967296",
        "badge set firefox 1 2",
        "badge increment",
        "badge increment firefox x",
        "badge increment firefox 1.5",
        "badge increment firefox 2147483648",
        "badge increment firefox -2147483649",
        "badge increment firefox 1 2",
        "badge increment firefox -2x",
        "badge increment firefox --jsn",
        "badge increment firefox -- --json",
        "badge clear",
        "badge clear firefox --all",
        "badge clear firefox --json",
        "activate",
        "activate a b",
        "activate firefox --json",
        "state",
        "state a b",
        "state firefox --jsn",
        "apps firefox",
        "apps --all",
    ])
    func badUsageExits2(_ line: String) {
        #expect(parseStatus(line.split(separator: " ").map(String.init)) == ExitStatus.usage)
    }

    @Test(arguments: [
        "--help", "-h", "help", "--version", "badge --help", "help badge increment", "badge set --help",
        "activate --help", "help state", "apps -h",
        "--generate-completion-script bash", "--generate-completion-script zsh", "--generate-completion-script fish",
    ])
    func helpVersionAndCompletionsExit0(_ line: String) {
        #expect(parseStatus(line.split(separator: " ").map(String.init)) == ExitStatus.success)
    }

    @Test func daemonErrorsKeepTheirStatus() {
        #expect(NotifyctlCommand.exitStatus(for: NotifyctlError(.daemon, "x")) == ExitStatus.daemonError)
        #expect(NotifyctlCommand.exitStatus(for: NotifyctlError.notRunning) == ExitStatus.notRunning)
        #expect(NotifyctlCommand.exitStatus(for: ValidationError("x")) == ExitStatus.usage)
    }
}
