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
/// Everything else, every error included, goes through ArgumentParser.
/// `FastPathTests` checks that both parse each such vector alike.
enum FastPath {
    /// The command for `arguments` (without the program name), or nil when
    /// ArgumentParser must parse them.
    static func command(_ arguments: [String]) -> (any ParsableCommand)? {
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

    private static func isPlainNumber(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private static func output(_ json: Bool) -> OutputOptions {
        var options = OutputOptions()
        options.json = json
        return options
    }
}
