/// The wire form of an event: the `a{sv}` dictionary, both ways, with the
/// keys of ``WorkerEventKey``.
extension WorkerEvent {
    /// Validates an event dictionary as the SPEC requires, or throws
    /// `InvalidArgs` naming the key and what it must be.
    ///
    /// Each key of ``WorkerEventKey`` is checked (``WorkerEventKey/check(_:)``:
    /// its type, a string's length, its bound), in the order of the table,
    /// so the message is the same for the same input. Unknown keys are
    /// ignored.
    public init(validating fields: [String: EventValue]) throws(NotifydError) {
        for key in WorkerEventKey.allCases {
            if let value = fields[key.name] { try key.check(value) }
        }
        let checked = CheckedFields(fields: fields)
        let kind = checked.string(.kind).flatMap(EventKind.init(rawValue:)) ?? .finished
        self.init(
            kind: kind, title: checked.string(.title), summary: checked.string(.summary), body: checked.string(.body),
            path: checked.string(.path), uri: checked.string(.uri), error: checked.string(.error),
            sound: checked.string(.sound), result: checked.string(.result).flatMap(FetchResult.init(rawValue:)),
            bytesWritten: checked.uint64(.bytesWritten), bytesExpected: checked.uint64(.bytesExpected),
            badge: checked.int32(.badge), notify: checked.boolean(.notify) ?? true,
            timeout: checked.uint32(.timeout))
    }

    /// The event's value of `key` as it goes on the wire; nil when the
    /// event leaves the key out. `kind`, `badge` and `notify` are always
    /// there, with their defaults written out.
    public func value(of key: WorkerEventKey) -> EventValue? {
        switch key {
        case .kind: .string(kind.rawValue)
        case .title: title.map(EventValue.string)
        case .summary: summary.map(EventValue.string)
        case .body: body.map(EventValue.string)
        case .path: path.map(EventValue.string)
        case .uri: uri.map(EventValue.string)
        case .error: error.map(EventValue.string)
        case .result: result.map { .string($0.rawValue) }
        case .sound: sound.map(EventValue.string)
        case .bytesWritten: bytesWritten.map(EventValue.uint64)
        case .bytesExpected: bytesExpected.map(EventValue.uint64)
        case .badge: .int32(badge)
        case .notify: .boolean(notify)
        case .timeout: timeout.map(EventValue.uint32)
        }
    }

    /// The event as an `a{sv}` dictionary (``value(of:)`` of every key it
    /// has), e.g. for the `HandleEventsForBackgroundSession` signal or a
    /// client sending it. `WorkerEvent(validating: event.fields)` gives
    /// back a valid event.
    public var fields: [String: EventValue] {
        var fields: [String: EventValue] = [:]
        for key in WorkerEventKey.allCases {
            if let value = value(of: key) { fields[key.name] = value }
        }
        return fields
    }
}

/// Typed reads of a dictionary whose known keys ``WorkerEventKey/check(_:)``
/// passed; a key that is absent reads as nil.
private struct CheckedFields {
    let fields: [String: EventValue]

    func string(_ key: WorkerEventKey) -> String? {
        guard case .string(let text)? = fields[key.name] else { return nil }
        return text
    }

    func uint64(_ key: WorkerEventKey) -> UInt64? {
        guard case .uint64(let number)? = fields[key.name] else { return nil }
        return number
    }

    func int32(_ key: WorkerEventKey) -> Int32? {
        guard case .int32(let number)? = fields[key.name] else { return nil }
        return number
    }

    func uint32(_ key: WorkerEventKey) -> UInt32? {
        guard case .uint32(let number)? = fields[key.name] else { return nil }
        return number
    }

    func boolean(_ key: WorkerEventKey) -> Bool? {
        guard case .boolean(let flag)? = fields[key.name] else { return nil }
        return flag
    }
}
