/// One validated event a worker reported for a background session: the
/// `a{sv}` dictionary of `EventsForBackgroundSession` and
/// `HandleEventsForBackgroundSession`, with every default resolved.
///
/// Build one from the wire with ``init(validating:)``, or from Swift values
/// with the memberwise initializer, which applies the same defaults.
public struct WorkerEvent: Sendable, Hashable {
    /// The longest string a key may hold, in UTF-8 bytes.
    public static let maximumStringBytes = 4096
    /// The range of `timeout`, in seconds.
    public static let timeoutRange: ClosedRange<UInt32> = 1...86_400

    /// What happened; `finished` when the key is absent.
    public var kind: EventKind
    /// What the event is about, e.g. the file name.
    public var title: String?
    /// Overrides the notification's summary.
    public var summary: String?
    /// Overrides the notification's body.
    public var body: String?
    /// The absolute path of the result.
    public var path: String?
    /// Where the result came from.
    public var uri: String?
    /// Why it failed.
    public var error: String?
    /// A sound name, an absolute sound file, or `""` for silence; `nil`
    /// plays the kind's default sound.
    public var sound: String?
    /// The outcome of a fetch. A `fetch` without `result` means
    /// ``FetchResult/newData``, and this property says so; for other kinds it
    /// is whatever the worker sent (usually `nil`).
    public var result: FetchResult?
    /// Bytes written so far.
    public var bytesWritten: UInt64?
    /// Bytes expected in all.
    public var bytesExpected: UInt64?
    /// The badge delta: the key's value, else 1 for `finished`, `failed` and
    /// `fetch` with `new-data`, else 0.
    public var badge: Int32
    /// Whether the event posts a popup; `true` when the key is absent.
    public var notify: Bool
    /// The handler's deadline in seconds after it is stored; `nil` means the
    /// default (``SessionBook/defaultTimeout``).
    public var timeout: UInt32?

    /// An event from Swift values, with the defaults of the wire form:
    /// `result` becomes `new-data` for a `fetch`, `badge` the kind's default.
    /// Nothing is validated here; ``init(validating:)`` does that for the wire.
    public init(
        kind: EventKind = .finished, title: String? = nil, summary: String? = nil, body: String? = nil,
        path: String? = nil, uri: String? = nil, error: String? = nil, sound: String? = nil,
        result: FetchResult? = nil, bytesWritten: UInt64? = nil, bytesExpected: UInt64? = nil,
        badge: Int32? = nil, notify: Bool = true, timeout: UInt32? = nil
    ) {
        self.kind = kind
        self.title = title
        self.summary = summary
        self.body = body
        self.path = path
        self.uri = uri
        self.error = error
        self.sound = sound
        self.result = result ?? (kind == .fetch ? .newData : nil)
        self.bytesWritten = bytesWritten
        self.bytesExpected = bytesExpected
        self.badge = badge ?? Self.defaultBadge(kind: kind, result: self.result)
        self.notify = notify
        self.timeout = timeout
    }

    /// The badge delta of an event without the `badge` key.
    public static func defaultBadge(kind: EventKind, result: FetchResult?) -> Int32 {
        switch kind {
        case .finished, .failed: 1
        case .fetch: (result ?? .newData) == .newData ? 1 : 0
        case .progress: 0
        }
    }

    /// Whether the event stores a pending completion handler: `finished`,
    /// `failed` and `fetch` do, `progress` does not.
    public var storesHandler: Bool { kind != .progress }

    /// `bytesWritten / bytesExpected` clamped to 0...1 (a missing
    /// `bytesWritten` counts as 0); `nil` unless `bytesExpected` is above 0.
    public var progressFraction: Double? {
        guard let expected = bytesExpected, expected > 0 else { return nil }
        return min(1, Double(bytesWritten ?? 0) / Double(expected))
    }
}
