import ArgumentParser

/// The argument vectors scripts run in loops, recognised without
/// ArgumentParser.
///
/// ArgumentParser finds a command's arguments by reflection, and on Linux
/// the first dynamic cast to each protocol scans every protocol
/// conformance record of the binary (thousands, most of them from
/// FoundationEssentials, which ArgumentParser links). Measured with
/// `valgrind --tool=callgrind notifyctl badge get APP`, that was three
/// quarters of the program's instructions and made notifyctl slower than
/// busctl. So the plainest vectors (words only: no option but a trailing
/// `--json`, no negative number, no help) are matched here into the very
/// command values ArgumentParser would build, and run by the same `run()`.
/// `event`, which download hooks run in loops, also takes its string
/// options and flags here (see ``event(_:)``). Everything else, every error
/// included, goes through ArgumentParser. `FastPathTests` checks that both
/// parse each such vector alike.
enum FastPath {
    /// The command for `arguments` (without the program name), or nil when
    /// ArgumentParser must parse them.
    static func command(_ arguments: [String]) -> (any ParsableCommand)? {
        if arguments.first == "event" { return event(arguments.dropFirst()) }
        var words = arguments
        var json = false
        if words.last == "--json" {
            json = true
            words.removeLast()
        }
        guard !words.contains(where: { $0.hasPrefix("-") || $0.isEmpty }) else { return nil }
        switch words.count {
        case 1 where words[0] == "status":
            var status = Status()
            status.output = output(json)
            return status
        case 1 where words[0] == "badge", 2 where words == ["badge", "list"]:
            var list = Badge.List()
            list.output = output(json)
            return list
        case 1 where words[0] == "sessions":
            var sessions = Sessions()
            sessions.output = output(json)
            return sessions
        case 1 where words[0] == "apps":
            var apps = Apps()
            apps.output = output(json)
            return apps
        case 2:
            return appCommand(words[0], app: words[1], json: json)
                ?? sessionCommand(words[0], session: words[1], json: json)
        case 3 where words[0] == "badge":
            return badgeCommand(words[1], app: words[2], number: nil, json: json)
        case 4 where words[0] == "badge":
            return badgeCommand(words[1], app: words[2], number: words[3], json: json)
        default:
            return nil
        }
    }

    private static func badgeCommand(_ verb: String, app: String, number: String?, json: Bool) -> (any ParsableCommand)? {
        if let number, !isPlainNumber(number) { return nil }
        switch (verb, number) {
        case ("get", nil):
            var get = Badge.Get()
            get.app = app
            get.output = output(json)
            return get
        case ("set", let number?) where !json && UInt32(number) != nil:
            var set = Badge.SetCount()
            set.app = app
            set.countInput = [number]
            return set
        case ("increment", _) where number.map { Int32($0) != nil } ?? true:
            var increment = Badge.Increment()
            increment.app = app
            increment.deltaInput = number.map { [$0] } ?? []
            increment.output = output(json)
            return increment
        case ("clear", nil) where !json:
            var clear = Badge.Clear()
            clear.app = app
            clear.all = false
            clear.output = output(false)
            return clear
        default:
            return nil
        }
    }

    private static func appCommand(_ verb: String, app: String, json: Bool) -> (any ParsableCommand)? {
        switch verb {
        case "activate" where !json:
            var activate = Activate()
            activate.app = app
            return activate
        case "state":
            var state = State()
            state.app = app
            state.output = output(json)
            return state
        default:
            return nil
        }
    }

    private static func sessionCommand(_ verb: String, session: String, json: Bool) -> (any ParsableCommand)? {
        switch verb {
        case "complete":
            var complete = Complete()
            complete.session = session
            complete.output = output(json)
            return complete
        case "cancel":
            var cancel = Cancel()
            cancel.session = session
            cancel.output = output(json)
            return cancel
        case "wait":
            var wait = Wait()
            wait.session = session
            wait.output = output(json)
            return wait
        default:
            return nil
        }
    }

    /// The string options of `event` taken here: `--app` and the option of
    /// each key set by a string (``EventKeyOption/textOptions``); each
    /// takes the next argument as its value.
    static let eventStringOptions = Set(["--app"] + EventKeyOption.textOptions.map(\.option))

    /// The flags of `event` taken here.
    static let eventFlags: Set<String> = ["--no-notify", "--wait", "--json"]

    /// `event SESSION` followed, in any order, by `--OPTION VALUE` pairs of
    /// ``eventStringOptions`` (`--app` among them) and ``eventFlags``, each
    /// at most once, every value a word (not empty, no leading `-`). The
    /// number and choice options, `--opt=value`, repeats, `--` and anything
    /// else go to ArgumentParser.
    private static func event(_ arguments: ArraySlice<String>) -> Event? {
        guard let session = arguments.first, isWord(session) else { return nil }
        var values: [String: String] = [:]
        var flags: Set<String> = []
        var rest = arguments.dropFirst()
        while let word = rest.popFirst() {
            if eventFlags.contains(word) {
                guard flags.insert(word).inserted else { return nil }
            } else if eventStringOptions.contains(word), let value = rest.popFirst(), isWord(value) {
                guard values.updateValue(value, forKey: word) == nil else { return nil }
            } else {
                return nil
            }
        }
        guard let app = values["--app"] else { return nil }
        var options = EventOptions.unset
        for (_, option, field) in EventKeyOption.textOptions { options[keyPath: field] = values[option] }
        options.noNotify = flags.contains("--no-notify")
        var event = Event()
        event.session = session
        event.app = app
        event.event = options
        event.wait = flags.contains("--wait")
        event.output = output(flags.contains("--json"))
        // What ArgumentParser would check; nothing taken here can fail it.
        guard (try? options.validate()) != nil, (try? event.validate()) != nil else { return nil }
        return event
    }

    /// A value the fast path takes: ArgumentParser reads a word with a
    /// leading `-` (or none at all) in ways best left to it.
    private static func isWord(_ text: String) -> Bool {
        !text.isEmpty && !text.hasPrefix("-")
    }

    private static func isPlainNumber(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private static func output(_ json: Bool) -> OutputOptions {
        var options = OutputOptions()
        options.json = json
        return options
    }
}
