import NotifyCore

/// How `notifyctl event` sets each key of the event dictionary
/// (``WorkerEventKey``). The switch in ``init(_:)`` has no default, so a
/// key added to the table does not build until it has an option here, or
/// a reason for having none; `EventKeyOptionTests` checks that each
/// option really sets its key with the key's type.
enum EventKeyOption {
    /// A string option whose value is the key's: `--title TEXT`. The fast
    /// path takes these too (``FastPath/eventStringOptions``).
    case text(option: String, field: WritableKeyPath<EventOptions, String?>)
    /// Options that set the key some other way (a kind, a number, a
    /// choice, a flag), and the arguments of one example.
    case other(options: [String], example: [String])
    /// No option sets the key, for this reason.
    case notExposed(reason: String)

    init(_ key: WorkerEventKey) {
        switch key {
        case .kind: self = .other(options: ["--failed", "--progress", "--fetch"], example: ["--progress", "1/2"])
        case .title: self = .text(option: "--title", field: \.title)
        case .summary: self = .text(option: "--summary", field: \.summary)
        case .body: self = .text(option: "--body", field: \.body)
        case .path: self = .text(option: "--path", field: \.path)
        case .uri: self = .text(option: "--uri", field: \.uri)
        case .error: self = .text(option: "--failed", field: \.failed)
        case .result: self = .other(options: ["--fetch"], example: ["--fetch", "no-data"])
        case .sound: self = .text(option: "--sound", field: \.sound)
        case .bytesWritten: self = .other(options: ["--progress"], example: ["--progress", "1/2"])
        case .bytesExpected: self = .other(options: ["--progress"], example: ["--progress", "1/2"])
        case .badge: self = .other(options: ["--badge"], example: ["--badge", "2"])
        case .notify: self = .other(options: ["--no-notify"], example: ["--no-notify"])
        case .timeout: self = .other(options: ["--timeout"], example: ["--timeout", "60"])
        }
    }

    /// The keys set by a string option, with the option and where
    /// ``EventOptions`` keeps its value, in the table's order.
    static var textOptions: [(key: WorkerEventKey, option: String, field: WritableKeyPath<EventOptions, String?>)] {
        WorkerEventKey.allCases.compactMap { key in
            guard case .text(let option, let field) = EventKeyOption(key) else { return nil }
            return (key, option, field)
        }
    }
}
