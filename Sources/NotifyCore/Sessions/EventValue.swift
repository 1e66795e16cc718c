/// A point in time as Unix time in microseconds; also used for durations.
///
/// The core never reads a clock: callers pass the time in.
public typealias Microseconds = Int64

/// What a worker's event reports (the event key `kind`).
public enum EventKind: String, Sendable, CaseIterable {
    /// A transfer finished: stores a handler and posts "Download complete".
    case finished
    /// A transfer failed: stores a handler and posts "Download failed".
    case failed
    /// Bytes written so far: updates the session's progress, stores no handler.
    case progress
    /// A background fetch ended: stores a handler; posts only with new data.
    case fetch
}

/// The outcome of a background fetch (the event key `result`).
public enum FetchResult: String, Sendable, CaseIterable {
    /// Something new arrived: posts "New content" and adds to the badge.
    case newData = "new-data"
    /// Nothing new: posts nothing.
    case noData = "no-data"
    /// The fetch failed: posts nothing.
    case failed
}

/// One value of the `a{sv}` event dictionary, as the core sees a D-Bus
/// variant; the daemon converts the variants it receives.
///
/// Only the types the event dictionary uses are spelled out; any other
/// variant arrives as ``other(signature:)`` so that a message can name it.
public enum EventValue: Sendable, Hashable {
    /// `s`
    case string(String)
    /// `b`
    case boolean(Bool)
    /// `i`
    case int32(Int32)
    /// `u`
    case uint32(UInt32)
    /// `t`
    case uint64(UInt64)
    /// A variant of another type, e.g. `x` or `as`.
    case other(signature: String)

    /// The D-Bus signature of the value: `s`, `b`, `i`, `u`, `t`, or the
    /// signature carried by ``other(signature:)``.
    public var signature: String {
        switch self {
        case .string: "s"
        case .boolean: "b"
        case .int32: "i"
        case .uint32: "u"
        case .uint64: "t"
        case .other(let signature): signature
        }
    }
}
