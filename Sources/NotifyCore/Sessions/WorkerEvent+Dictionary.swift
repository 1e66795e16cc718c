/// The wire form of an event: the `a{sv}` dictionary, both ways.
extension WorkerEvent {
    /// The D-Bus type of each known key; every other key is ignored.
    public static let keySignatures: KeyValuePairs<String, String> = [
        "kind": "s", "title": "s", "summary": "s", "body": "s", "path": "s", "uri": "s",
        "error": "s", "result": "s", "sound": "s", "bytes-written": "t", "bytes-expected": "t",
        "badge": "i", "notify": "b", "timeout": "u",
    ]

    /// Validates an event dictionary as the SPEC requires, or throws
    /// `InvalidArgs` naming the key and what it must be.
    ///
    /// Unknown keys are ignored. A known key with the wrong type, an unknown
    /// `kind` or `result`, a relative `path`, a string over
    /// ``maximumStringBytes`` or a `timeout` outside ``timeoutRange`` is an
    /// error. Keys are checked in the order of ``keySignatures``, so the
    /// message is the same for the same input.
    public init(validating fields: [String: EventValue]) throws(NotifydError) {
        let reader = EventFieldReader(fields: fields)
        let kind: EventKind = try reader.choice("kind") ?? .finished
        let title = try reader.string("title")
        let summary = try reader.string("summary")
        let body = try reader.string("body")
        let path = try reader.string("path")
        if let path, !path.hasPrefix("/") {
            throw NotifydError(
                .invalidArgs,
                "event key 'path' must be an absolute path starting with '/', not '\(AppID.printable(path))'")
        }
        let uri = try reader.string("uri")
        let error = try reader.string("error")
        let result: FetchResult? = try reader.choice("result")
        let sound = try reader.string("sound")
        let bytesWritten = try reader.uint64("bytes-written")
        let bytesExpected = try reader.uint64("bytes-expected")
        let badge = try reader.int32("badge")
        let notify = try reader.boolean("notify")
        let timeout = try reader.uint32("timeout")
        if let timeout, !Self.timeoutRange.contains(timeout) {
            throw NotifydError(
                .invalidArgs,
                "event key 'timeout' must be \(Self.timeoutRange.lowerBound) to \(Self.timeoutRange.upperBound) "
                    + "seconds, not \(timeout)")
        }
        self.init(
            kind: kind, title: title, summary: summary, body: body, path: path, uri: uri, error: error,
            sound: sound, result: result, bytesWritten: bytesWritten, bytesExpected: bytesExpected,
            badge: badge, notify: notify ?? true, timeout: timeout)
    }

    /// The event as an `a{sv}` dictionary with its defaults written out
    /// (`kind`, `badge` and `notify` always; the rest when set), e.g. for
    /// the `HandleEventsForBackgroundSession` signal or a client sending it.
    /// `WorkerEvent(validating: event.fields)` gives back a valid event.
    public var fields: [String: EventValue] {
        var fields: [String: EventValue] = [
            "kind": .string(kind.rawValue), "badge": .int32(badge), "notify": .boolean(notify),
        ]
        let strings: [(String, String?)] = [
            ("title", title), ("summary", summary), ("body", body), ("path", path), ("uri", uri),
            ("error", error), ("result", result?.rawValue), ("sound", sound),
        ]
        for case (let key, let value?) in strings { fields[key] = .string(value) }
        if let bytesWritten { fields["bytes-written"] = .uint64(bytesWritten) }
        if let bytesExpected { fields["bytes-expected"] = .uint64(bytesExpected) }
        if let timeout { fields["timeout"] = .uint32(timeout) }
        return fields
    }
}

/// Reads typed values out of an event dictionary, failing with messages
/// such as `event key 'badge' must be an int32 ('i'), not 'u'`.
private struct EventFieldReader {
    let fields: [String: EventValue]

    func string(_ key: String) throws(NotifydError) -> String? {
        guard let value = fields[key] else { return nil }
        guard case .string(let text) = value else { throw wrongType(key, "a string ('s')", value) }
        let length = text.utf8.count
        guard length <= WorkerEvent.maximumStringBytes else {
            throw NotifydError(
                .invalidArgs,
                "event key '\(key)' is \(length) bytes long, the limit is \(WorkerEvent.maximumStringBytes)")
        }
        return text
    }

    /// A string that must be the raw value of one of `Choice`'s cases.
    func choice<Choice: RawRepresentable & CaseIterable>(_ key: String) throws(NotifydError) -> Choice?
    where Choice.RawValue == String {
        guard let text = try string(key) else { return nil }
        guard let choice = Choice(rawValue: text) else {
            let names = Choice.allCases.map(\.rawValue).joined(separator: ", ")
            throw NotifydError(
                .invalidArgs, "event key '\(key)' must be one of \(names), not '\(AppID.printable(text))'")
        }
        return choice
    }

    func uint64(_ key: String) throws(NotifydError) -> UInt64? {
        guard let value = fields[key] else { return nil }
        guard case .uint64(let number) = value else { throw wrongType(key, "a uint64 ('t')", value) }
        return number
    }

    func int32(_ key: String) throws(NotifydError) -> Int32? {
        guard let value = fields[key] else { return nil }
        guard case .int32(let number) = value else { throw wrongType(key, "an int32 ('i')", value) }
        return number
    }

    func uint32(_ key: String) throws(NotifydError) -> UInt32? {
        guard let value = fields[key] else { return nil }
        guard case .uint32(let number) = value else { throw wrongType(key, "a uint32 ('u')", value) }
        return number
    }

    func boolean(_ key: String) throws(NotifydError) -> Bool? {
        guard let value = fields[key] else { return nil }
        guard case .boolean(let flag) = value else { throw wrongType(key, "a boolean ('b')", value) }
        return flag
    }

    private func wrongType(_ key: String, _ expected: String, _ value: EventValue) -> NotifydError {
        NotifydError(
            .invalidArgs, "event key '\(key)' must be \(expected), not '\(AppID.printable(value.signature))'")
    }
}
