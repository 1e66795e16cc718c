/// One key of the worker event dictionary (`a{sv}`, SPEC "The event
/// dictionary"), declared once: its name, its one D-Bus type, what bounds
/// its value, and what it means.
///
/// Everything else reads this table: ``WorkerEvent/init(validating:)``
/// checks each key with ``check(_:)``, the daemon decodes only these keys,
/// `notifyctl event` declares an option (or a reason for none) for each,
/// the fuzzer draws events from it, and the introspection XML documents it
/// (``documentation``). Any other key of a dictionary is ignored.
///
/// The cases are in the order keys are checked, so that an event with
/// several defects is always refused for the same one.
public enum WorkerEventKey: String, Sendable, CaseIterable {
    case kind, title, summary, body, path, uri, error, result, sound
    case bytesWritten = "bytes-written"
    case bytesExpected = "bytes-expected"
    case badge, notify, timeout

    /// The D-Bus types the event dictionary uses.
    public enum ValueType: String, Sendable, CaseIterable {
        /// A string of at most ``WorkerEvent/maximumStringBytes``.
        case string = "s"
        case uint64 = "t"
        case int32 = "i"
        case uint32 = "u"
        case boolean = "b"

        /// The type's D-Bus signature.
        public var signature: String { rawValue }

        /// The type as messages name it, e.g. `a string ('s')`.
        public var phrase: String {
            switch self {
            case .string: "a string ('s')"
            case .uint64: "a uint64 ('t')"
            case .int32: "an int32 ('i')"
            case .uint32: "a uint32 ('u')"
            case .boolean: "a boolean ('b')"
            }
        }
    }

    /// What a value must be besides its type.
    public enum Bound: Sendable, Hashable {
        /// Any value of the type (strings up to their limit).
        case none
        /// One of these strings.
        case oneOf([String])
        /// A path starting with `/`.
        case absolutePath
        /// A number in this range, in this unit.
        case range(ClosedRange<UInt64>, unit: String)
    }

    /// The key as it is spelled in the dictionary.
    public var name: String { rawValue }

    /// The one type the key's value may have.
    public var type: ValueType {
        switch self {
        case .kind, .title, .summary, .body, .path, .uri, .error, .result, .sound: .string
        case .bytesWritten, .bytesExpected: .uint64
        case .badge: .int32
        case .notify: .boolean
        case .timeout: .uint32
        }
    }

    /// What the key's value must be besides its type.
    public var bound: Bound {
        switch self {
        case .kind: .oneOf(EventKind.allCases.map(\.rawValue))
        case .result: .oneOf(FetchResult.allCases.map(\.rawValue))
        case .path: .absolutePath
        case .timeout:
            .range(UInt64(WorkerEvent.timeoutRange.lowerBound)...UInt64(WorkerEvent.timeoutRange.upperBound), unit: "seconds")
        case .title, .summary, .body, .uri, .error, .sound, .bytesWritten, .bytesExpected, .badge, .notify: .none
        }
    }

    /// What the key means, with its default when it is absent.
    public var meaning: String {
        switch self {
        case .kind: "what happened (finished when absent)"
        case .title: "what it is about, e.g. the file name"
        case .summary: "the notification's summary instead of notifyd's"
        case .body: "the notification's body instead of notifyd's"
        case .path: "where the result is"
        case .uri: "where it came from"
        case .error: "why it failed"
        case .result: "how a fetch ended (new-data when absent)"
        case .sound: "a sound name or an absolute sound file, empty for silence"
        case .bytesWritten: "bytes written so far"
        case .bytesExpected: "bytes expected in all"
        case .badge: "added to the app's badge (when absent: 1 for finished, failed and fetch with new-data, else 0)"
        case .notify: "false for no popup (the handler and the badge still apply)"
        case .timeout: "the handler's deadline (\(SessionBook.defaultTimeout) when absent)"
        }
    }

    /// The key, its type, its bound and its meaning, e.g. `timeout u (1 to
    /// 86400 seconds): the handler's deadline (30 when absent)`.
    public var summary: String {
        let limit: String
        switch bound {
        case .none: limit = ""
        case .oneOf(let choices): limit = " (" + choices.joined(separator: ", ") + ")"
        case .absolutePath: limit = " (absolute)"
        case .range(let range, let unit): limit = " (\(range.lowerBound) to \(range.upperBound) \(unit))"
        }
        return "\(name) \(type.signature)\(limit): \(meaning)"
    }

    /// Every key in one paragraph, for the introspection XML.
    public static var documentation: String {
        "Event keys: " + allCases.map(\.summary).joined(separator: "; ")
            + ". Strings are at most \(WorkerEvent.maximumStringBytes) bytes; other keys are ignored."
    }

    /// Checks a value for this key: its type, a string's length, its bound.
    /// Throws `InvalidArgs` with a message naming the key and what it must be.
    public func check(_ value: EventValue) throws(NotifydError) {
        guard value.signature == type.signature else {
            throw NotifydError(
                .invalidArgs, "event key '\(name)' must be \(type.phrase), not '\(AppID.printable(value.signature))'")
        }
        if case .string(let text) = value, text.utf8.count > WorkerEvent.maximumStringBytes {
            throw NotifydError(
                .invalidArgs,
                "event key '\(name)' is \(text.utf8.count) bytes long, the limit is \(WorkerEvent.maximumStringBytes)")
        }
        switch (bound, value) {
        case (.oneOf(let choices), .string(let text)) where !choices.contains(text):
            throw NotifydError(
                .invalidArgs,
                "event key '\(name)' must be one of \(choices.joined(separator: ", ")), not '\(AppID.printable(text))'")
        case (.absolutePath, .string(let text)) where !text.hasPrefix("/"):
            throw NotifydError(
                .invalidArgs,
                "event key '\(name)' must be an absolute path starting with '/', not '\(AppID.printable(text))'")
        case (.range(let range, let unit), _):
            if let number = value.unsignedNumber, !range.contains(number) {
                throw NotifydError(
                    .invalidArgs,
                    "event key '\(name)' must be \(range.lowerBound) to \(range.upperBound) \(unit), not \(number)")
            }
        default:
            break
        }
    }
}

extension EventValue {
    /// A `u` or `t` value as a number.
    var unsignedNumber: UInt64? {
        switch self {
        case .uint32(let number): UInt64(number)
        case .uint64(let number): number
        default: nil
        }
    }
}
