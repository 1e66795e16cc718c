/// A background transfer, as stored (SPEC "Background transfers"): one
/// row per transfer not yet ended, and the last ended. Times are Unix µs;
/// `retryAt` and `lastProgress` move when the wall clock is set.
public struct StoredTransfer: Sendable, Hashable {
    public var id: UInt64
    public var app: String
    public var session: String
    /// `download` or `upload`.
    public var direction: String
    /// As given, credentials included (the database is the user's own,
    /// 0600; nothing shown reads it unstripped).
    public var url: String
    public var path: String
    /// `queued`, `waiting`, `running`, `suspended`, `completed`, `failed`, `cancelled`.
    public var state: String
    public var reason: String
    public var bytesDone: UInt64
    public var bytesTotal: UInt64
    public var attempts: UInt32
    public var validator: String?
    public var retryAt: Int64?
    public var lastProgress: Int64
    public var created: Int64
    public var ended: Int64?
    public var finalPath: String?
    public var options: Options

    /// The options of `Download` and `Upload`, as given.
    public struct Options: Sendable, Hashable {
        public var title: String?
        /// `Name: value` lines.
        public var headers: [String]
        public var method: String
        public var sha256: String?
        public var allowMetered: Bool
        public var discretionary: Bool
        public var notBefore: Int64?
        public var overwrite: Bool
        public var notify: Bool
        public var sound: String?
        public var badge: Int32?
        public var timeout: UInt32?

        public init(
            title: String?, headers: [String], method: String, sha256: String?, allowMetered: Bool,
            discretionary: Bool, notBefore: Int64?, overwrite: Bool, notify: Bool, sound: String?, badge: Int32?,
            timeout: UInt32?
        ) {
            self.title = title
            self.headers = headers
            self.method = method
            self.sha256 = sha256
            self.allowMetered = allowMetered
            self.discretionary = discretionary
            self.notBefore = notBefore
            self.overwrite = overwrite
            self.notify = notify
            self.sound = sound
            self.badge = badge
            self.timeout = timeout
        }
    }

    public init(
        id: UInt64, app: String, session: String, direction: String, url: String, path: String, state: String,
        reason: String, bytesDone: UInt64, bytesTotal: UInt64, attempts: UInt32, validator: String?,
        retryAt: Int64?, lastProgress: Int64, created: Int64, ended: Int64?, finalPath: String?, options: Options
    ) {
        self.id = id
        self.app = app
        self.session = session
        self.direction = direction
        self.url = url
        self.path = path
        self.state = state
        self.reason = reason
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.attempts = attempts
        self.validator = validator
        self.retryAt = retryAt
        self.lastProgress = lastProgress
        self.created = created
        self.ended = ended
        self.finalPath = finalPath
        self.options = options
    }
}
