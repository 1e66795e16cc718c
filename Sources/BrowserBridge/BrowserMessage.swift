/// One message of the extension (`browser/extension/background.js`).
public enum BrowserMessage: Equatable, Sendable {
    /// The state of one download, as the browser's `downloads` API gives it.
    case download(DownloadReport)
    /// Whether a window of the browser has the focus.
    case focus(Bool)

    /// Decodes a message: `{"type": "download", "download": {...}}` or
    /// `{"type": "focus", "focused": true}`.
    public static func decode(_ json: JSONValue) throws(BrowserMessageError) -> BrowserMessage {
        switch json["type"]?.string {
        case "download":
            guard let item = json["download"], case .object = item else { throw .missing("download") }
            return .download(try DownloadReport(item))
        case "focus":
            guard let focused = json["focused"]?.bool else { throw .missing("focused") }
            return .focus(focused)
        case let other?:
            throw .unknownType(other)
        case nil:
            throw .missing("type")
        }
    }
}

/// A message that is JSON but not one the host knows.
public enum BrowserMessageError: Error, Equatable, CustomStringConvertible {
    case missing(String)
    case unknownType(String)
    case badField(String)

    public var description: String {
        switch self {
        case .missing(let field): "the message has no valid \"\(field)\""
        case .unknownType(let type): "unknown message type \"\(type)\""
        case .badField(let field): "the download's \"\(field)\" is not valid"
        }
    }
}

/// A download as the extension reports it: the fields of the WebExtension
/// `downloads.DownloadItem` the host needs, plus `vanished` when the
/// browser no longer lists it.
public struct DownloadReport: Equatable, Sendable {
    public enum State: String, Sendable { case inProgress = "in_progress", interrupted, complete }

    public var id: Int
    /// `startTime`, an ISO 8601 string: with `id`, unique in a profile.
    public var startTime: String
    public var state: State
    public var incognito = false
    /// The absolute path; Chromium fills it in a later change.
    public var filename = ""
    public var url = ""
    public var bytesReceived: UInt64 = 0
    /// nil while unknown (the API's -1).
    public var totalBytes: UInt64?
    /// The API's `InterruptReason` (`NETWORK_FAILED`, `USER_CANCELED`, ...).
    public var error: String?
    /// Firefox shows a paused download as `interrupted` with `paused`.
    public var paused = false
    /// The browser lists it no more (erased, or gone while nobody looked).
    public var vanished = false

    public init(id: Int, startTime: String, state: State) {
        self.id = id
        self.startTime = startTime
        self.state = state
    }

    init(_ item: JSONValue) throws(BrowserMessageError) {
        guard let number = item["id"]?.number, number >= 0, number < 1e15, number == number.rounded() else {
            throw .badField("id")
        }
        guard let start = item["startTime"]?.string, !start.isEmpty, start.utf8.count <= 64 else {
            throw .badField("startTime")
        }
        guard let stateText = item["state"]?.string, let state = State(rawValue: stateText) else {
            throw .badField("state")
        }
        self.init(id: Int(number), startTime: start, state: state)
        incognito = item["incognito"]?.bool ?? false
        filename = item["filename"]?.string ?? ""
        url = item["url"]?.string ?? ""
        bytesReceived = Self.count(item["bytesReceived"]) ?? 0
        totalBytes = Self.count(item["totalBytes"])
        error = item["error"]?.string
        paused = item["paused"]?.bool ?? false
        vanished = item["vanished"]?.bool ?? false
    }

    private static func count(_ value: JSONValue?) -> UInt64? {
        guard let number = value?.number, number >= 0, number < 9.0e15 else { return nil }
        return UInt64(number)
    }
}
