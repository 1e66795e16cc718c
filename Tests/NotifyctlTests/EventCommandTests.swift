import ArgumentParser
import DBus
import Testing

@testable import notifyctl

/// Parses `notifyctl ARGUMENTS` as the event command, without running it.
private func event(_ arguments: [String]) throws -> Event {
    let command = try NotifyctlCommand.parseAsRoot(arguments)
    return try #require(command as? Event, "\(arguments) is not an event command")
}

/// The event dictionary `notifyctl event S --app A ARGUMENTS` would send
/// from the directory /home/u/Downloads.
private func dictionary(_ arguments: [String]) throws -> [String: DBusValue] {
    try event(["event", "dl-1", "--app", "firefox"] + arguments).event.dictionary(
        currentDirectory: "/home/u/Downloads")
}

/// The exit status `notifyctl ARGUMENTS` would have if parsing failed, 0 if it parses.
private func parseStatus(_ arguments: [String]) -> Int32 {
    do {
        _ = try NotifyctlCommand.parseAsRoot(arguments)
        return ExitStatus.success
    } catch {
        return NotifyctlCommand.exitStatus(for: error)
    }
}

@Suite struct EventCommandTests {
    @Test func sessionAppAndFlags() throws {
        let plain = try event(["event", "dl-1", "--app", "firefox"])
        #expect(plain.session == "dl-1")
        #expect(plain.app == "firefox")
        #expect(plain.wait == false)
        #expect(plain.output.json == false)
        let full = try event(["event", "--app", "org.example.Mail", "--wait", "sync", "--json"])
        #expect(full.session == "sync")
        #expect(full.app == "org.example.Mail")
        #expect(full.wait && full.output.json)
        // App and session IDs are notifyd's to judge (InvalidAppId, exit 1), not bad usage.
        #expect(try event(["event", "with space", "--app", "a..b"]).app == "a..b")
        #expect(try event(["event", "--app", "x", "--", "-dash"]).session == "-dash")
    }

    /// Each option and the dictionary key it produces (SPEC "The event dictionary").
    @Test(arguments: [
        ([], ["kind": .string("finished")]),
        (["--title", "debian.iso"], ["kind": .string("finished"), "title": .string("debian.iso")]),
        (["--failed", "connection reset"], ["kind": .string("failed"), "error": .string("connection reset")]),
        (["--failed", ""], ["kind": .string("failed"), "error": .string("")]),
        (
            ["--progress", "10/100"],
            ["kind": .string("progress"), "bytes-written": .uint64(10), "bytes-expected": .uint64(100)]
        ),
        (["--progress", "0"], ["kind": .string("progress"), "bytes-written": .uint64(0)]),
        (
            ["--progress", "18446744073709551615/18446744073709551615"],
            ["kind": .string("progress"), "bytes-written": .uint64(.max), "bytes-expected": .uint64(.max)]
        ),
        (["--fetch", "new-data"], ["kind": .string("fetch"), "result": .string("new-data")]),
        (["--fetch", "no-data"], ["kind": .string("fetch"), "result": .string("no-data")]),
        (["--fetch", "failed"], ["kind": .string("fetch"), "result": .string("failed")]),
        (["--summary", "Done", "--body", "all of it"], [
            "kind": .string("finished"), "summary": .string("Done"), "body": .string("all of it"),
        ]),
        (["--uri", "https://example.org/x.iso"], ["kind": .string("finished"), "uri": .string("https://example.org/x.iso")]),
        (["--sound", ""], ["kind": .string("finished"), "sound": .string("")]),
        (["--sound", "complete-download"], ["kind": .string("finished"), "sound": .string("complete-download")]),
        (["--badge", "3"], ["kind": .string("finished"), "badge": .int32(3)]),
        (["--badge", "-1"], ["kind": .string("finished"), "badge": .int32(-1)]),
        (["--badge=0"], ["kind": .string("finished"), "badge": .int32(0)]),
        (["--badge", "-2147483648"], ["kind": .string("finished"), "badge": .int32(.min)]),
        (["--no-notify"], ["kind": .string("finished"), "notify": .boolean(false)]),
        (["--timeout", "1"], ["kind": .string("finished"), "timeout": .uint32(1)]),
        (["--timeout", "86400"], ["kind": .string("finished"), "timeout": .uint32(86400)]),
        (["--path", "/tmp/x.iso"], ["kind": .string("finished"), "path": .string("/tmp/x.iso")]),
        (["--path", "x.iso"], ["kind": .string("finished"), "path": .string("/home/u/Downloads/x.iso")]),
        (["--path", "./a//b/./c"], ["kind": .string("finished"), "path": .string("/home/u/Downloads/a/b/c")]),
        (["--path", "../x.iso"], ["kind": .string("finished"), "path": .string("/home/u/Downloads/../x.iso")]),
        (["--path", "."], ["kind": .string("finished"), "path": .string("/home/u/Downloads")]),
        // getopt-style: a value option takes the next word, whatever it looks like.
        (["--title", "-draft-.txt"], ["kind": .string("finished"), "title": .string("-draft-.txt")]),
        (["--title", "--json"], ["kind": .string("finished"), "title": .string("--json")]),
        (["--title=a=b"], ["kind": .string("finished"), "title": .string("a=b")]),
        (["--title", "a", "--title", "b"], ["kind": .string("finished"), "title": .string("b")]),
        (
            ["--failed", "404", "--title", "x.iso", "--path", "/x.iso", "--sound", "", "--badge", "2", "--no-notify",
             "--timeout", "60", "--uri", "u"],
            [
                "kind": .string("failed"), "error": .string("404"), "title": .string("x.iso"), "path": .string("/x.iso"),
                "sound": .string(""), "badge": .int32(2), "notify": .boolean(false), "timeout": .uint32(60),
                "uri": .string("u"),
            ]
        ),
    ] as [([String], [String: DBusValue])])
    func optionsMakeTheEventDictionary(_ arguments: [String], _ expected: [String: DBusValue]) throws {
        #expect(try dictionary(arguments) == expected)
    }

    @Test func pathsAreMadeAbsoluteLexically() {
        #expect(EventOptions.absolute("x", in: "/") == "/x")
        #expect(EventOptions.absolute("x", in: "/a/") == "/a/x")
        #expect(EventOptions.absolute("./", in: "/a") == "/a")
        #expect(EventOptions.absolute("/abs//y", in: "/a") == "/abs//y")
        #expect(EventOptions.absolute("dir/", in: "/a") == "/a/dir")
    }

    @Test func onlyARelativePathNeedsTheCurrentDirectory() throws {
        #expect(try event(["event", "s", "--app", "a", "--path", "x"]).event.hasRelativePath)
        #expect(try !event(["event", "s", "--app", "a", "--path", "/x"]).event.hasRelativePath)
        #expect(try !event(["event", "s", "--app", "a"]).event.hasRelativePath)
    }

    @Test func theDictionaryGoesOutAsASortedVardict() throws {
        let value = DBusValue.vardict(try dictionary(["--title", "t", "--badge", "2"]))
        #expect(value.signature == "a{sv}")
        #expect(
            value
                == .dictionary(
                    key: .string, value: .variant,
                    [
                        DBusDictionaryEntry(key: .string("badge"), value: .variant(.int32(2))),
                        DBusDictionaryEntry(key: .string("kind"), value: .variant(.string("finished"))),
                        DBusDictionaryEntry(key: .string("title"), value: .variant(.string("t"))),
                    ]))
    }

    @Test(arguments: [
        ["event"],
        ["event", "dl-1"],
        ["event", "--app", "firefox"],
        ["event", "dl-1", "--app"],
        ["event", "dl-1", "--app", "firefox", "extra"],
        ["event", "dl-1", "--app", "firefox", "--failed", "e", "--progress", "1/2"],
        ["event", "dl-1", "--app", "firefox", "--failed", "e", "--fetch", "new-data"],
        ["event", "dl-1", "--app", "firefox", "--progress", "1/2", "--fetch", "no-data"],
        ["event", "dl-1", "--app", "firefox", "--fetch", "failed", "--failed", "e"],
        ["event", "dl-1", "--app", "firefox", "--fetch", "bogus"],
        ["event", "dl-1", "--app", "firefox", "--fetch", "New-Data"],
        ["event", "dl-1", "--app", "firefox", "--fetch"],
        ["event", "dl-1", "--app", "firefox", "--progress", "x"],
        ["event", "dl-1", "--app", "firefox", "--progress", "1/x"],
        ["event", "dl-1", "--app", "firefox", "--progress", "/5"],
        ["event", "dl-1", "--app", "firefox", "--progress", "1/"],
        ["event", "dl-1", "--app", "firefox", "--progress", "1/2/3"],
        ["event", "dl-1", "--app", "firefox", "--progress", "-1/5"],
        ["event", "dl-1", "--app", "firefox", "--progress", "+1/5"],
        ["event", "dl-1", "--app", "firefox", "--progress", "1.5/5"],
        ["event", "dl-1", "--app", "firefox", "--progress", "18446744073709551616/1"],
        ["event", "dl-1", "--app", "firefox", "--progress", ""],
        ["event", "dl-1", "--app", "firefox", "--timeout", "0"],
        ["event", "dl-1", "--app", "firefox", "--timeout", "86401"],
        ["event", "dl-1", "--app", "firefox", "--timeout", "-1"],
        ["event", "dl-1", "--app", "firefox", "--timeout", "4294967296"],
        ["event", "dl-1", "--app", "firefox", "--timeout", "1m"],
        ["event", "dl-1", "--app", "firefox", "--badge", "2147483648"],
        ["event", "dl-1", "--app", "firefox", "--badge", "-2147483649"],
        ["event", "dl-1", "--app", "firefox", "--badge", "x"],
        ["event", "dl-1", "--app", "firefox", "--badge"],
        ["event", "dl-1", "--app", "firefox", "--path", ""],
        ["event", "dl-1", "--app", "firefox", "--sound="],
        ["event", "dl-1", "--app", "firefox", "--no-notify=true"],
        ["event", "dl-1", "--app", "firefox", "--notify"],
        ["event", "dl-1", "--app", "firefox", "--kind", "failed"],
        ["event", "dl-1", "--app", "firefox", "--jsn"],
    ])
    func badUsageExits2(_ arguments: [String]) {
        #expect(parseStatus(arguments) == ExitStatus.usage)
    }

    @Test func kindMessagesNameTheClash() {
        do {
            _ = try NotifyctlCommand.parseAsRoot(["event", "s", "--app", "a", "--failed", "e", "--fetch", "no-data"])
            Issue.record("two kinds parsed")
        } catch {
            #expect(NotifyctlCommand.fullMessage(for: error).contains("--failed and --fetch cannot be combined"))
        }
    }

    @Test func progressParsing() throws {
        #expect(try TransferProgress(parsing: "10/100") == TransferProgress(written: 10, expected: 100))
        #expect(try TransferProgress(parsing: "7") == TransferProgress(written: 7, expected: nil))
        #expect(try TransferProgress(parsing: "0/0") == TransferProgress(written: 0, expected: 0))
        for bad in ["", "/", "1/", "/1", "a/1", "1/2/3", " 1/2", "1 /2", "0x10/20", "-1/2"] {
            #expect(throws: ValidationError.self, "\(bad)") { try TransferProgress(parsing: bad) }
        }
    }
}

@Suite struct SessionCommandParsingTests {
    @Test func sessionCommands() throws {
        let parse = { (arguments: [String]) throws -> any ParsableCommand in
            try NotifyctlCommand.parseAsRoot(arguments)
        }
        #expect((try parse(["sessions"]) as? Sessions)?.output.json == false)
        #expect((try parse(["sessions", "--json"]) as? Sessions)?.output.json == true)
        #expect((try parse(["complete", "dl-1"]) as? Complete)?.session == "dl-1")
        #expect((try parse(["complete", "dl-1", "--json"]) as? Complete)?.output.json == true)
        #expect((try parse(["cancel", "dl 2"]) as? Cancel)?.session == "dl 2")
        #expect((try parse(["wait", "dl-3"]) as? Wait)?.session == "dl-3")
        #expect((try parse(["wait", "--", "-x"]) as? Wait)?.session == "-x")
        #expect((try parse(["monitor"]) as? Monitor)?.output.json == false)
        #expect((try parse(["monitor", "--json"]) as? Monitor)?.output.json == true)
    }

    @Test(arguments: [
        ["sessions", "extra"], ["sessions", "--all"], ["complete"], ["complete", "a", "b"], ["cancel"],
        ["cancel", "a", "--all"], ["wait"], ["wait", "a", "b"], ["wait", "-x"], ["monitor", "extra"],
        ["monitor", "--jsn"],
    ])
    func badUsageExits2(_ arguments: [String]) {
        #expect(parseStatus(arguments) == ExitStatus.usage)
    }

    @Test func runTimeUsageErrorsExit2() {
        #expect(NotifyctlCommand.exitStatus(for: NotifyctlError(.usage, "x")) == ExitStatus.usage)
    }

    @Test func waitingHasNoTimeLimit() {
        #expect(DaemonClient.noTimeout == Int32.max, "libdbus's DBUS_TIMEOUT_INFINITE")
    }
}
