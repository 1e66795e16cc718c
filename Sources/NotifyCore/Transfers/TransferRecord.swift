/// A background transfer (SPEC "Background transfers"): iOS's background
/// `URLSession` task, which notifyd carries out itself for an app's
/// session, across lost networks and restarts.
public struct TransferRecord: Sendable, Hashable, Identifiable {
    /// Which way the bytes go.
    public enum Direction: String, Sendable, Hashable {
        case download, upload
    }

    /// Where a transfer is in its life.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Free to start, behind the transfers running.
        case queued
        /// Held by a condition (a network, power, its start time, a retry's wait), said in `reason`.
        case waiting
        case running
        /// Held by the user or the app; what was transferred is kept.
        case suspended
        case completed, failed, cancelled

        /// Whether the transfer is over (it is listed among the last ended).
        public var hasEnded: Bool { self == .completed || self == .failed || self == .cancelled }
    }

    public let id: UInt64
    public let app: AppID
    public let session: SessionID
    public let direction: Direction
    /// As given, with any user name and password (never shown: ``displayURL``).
    public let url: String
    /// Download: the destination file (or a directory ending in `/`, when
    /// notifyd names the file); upload: the file sent.
    public let path: String
    public let options: TransferOptions
    /// Unix µs of `Download` or `Upload`.
    public let created: Microseconds

    public internal(set) var state: State
    /// One sentence: why it is in its state.
    public internal(set) var reason: String
    public internal(set) var bytesDone: UInt64
    /// 0 while unknown.
    public internal(set) var bytesTotal: UInt64
    /// Attempts started (a wait for a network spends none).
    public internal(set) var attempts: UInt32
    /// Attempts started since a byte last moved (not stored): the retry's
    /// wait doubles with each.
    public internal(set) var attemptsSinceProgress: UInt32 = 0
    /// The strong ETag or Last-Modified of the bytes in the partial file:
    /// a later attempt resumes with `If-Range` on it.
    public internal(set) var validator: String?
    /// Wall-clock µs before which the next attempt may not start (a
    /// retry's wait); moved when the clock is set.
    public internal(set) var retryAt: Microseconds?
    /// Wall-clock µs of the last byte transferred (or of the start): 24
    /// hours after it without progress, a failing transfer fails for good.
    public internal(set) var lastProgress: Microseconds
    /// Wall-clock µs of its end, once ended.
    public internal(set) var ended: Microseconds?
    /// The file written, once known: for a directory path, the name notifyd chose.
    public internal(set) var finalPath: String?

    public init(
        id: UInt64, app: AppID, session: SessionID, direction: Direction, url: String, path: String,
        options: TransferOptions, created: Microseconds, state: State = .queued, reason: String = "queued",
        bytesDone: UInt64 = 0, bytesTotal: UInt64 = 0, attempts: UInt32 = 0, validator: String? = nil,
        retryAt: Microseconds? = nil, lastProgress: Microseconds? = nil, ended: Microseconds? = nil,
        finalPath: String? = nil
    ) {
        self.id = id
        self.app = app
        self.session = session
        self.direction = direction
        self.url = url
        self.path = path
        self.options = options
        self.created = created
        self.state = state
        self.reason = reason
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.attempts = attempts
        self.validator = validator
        self.retryAt = retryAt
        self.lastProgress = lastProgress ?? created
        self.ended = ended
        self.finalPath = finalPath
    }

    /// The URL without a user name or password: what listings, signals,
    /// popups and logs show.
    public var displayURL: String { Self.withoutCredentials(url) }

    /// The path shown: the file written when known, else the path given.
    public var shownPath: String { finalPath ?? path }

    /// The name for the popup: the `title` option, else the file's name.
    public var title: String {
        if let title = options.title { return title }
        let shown = shownPath.hasSuffix("/") ? displayURL : shownPath
        return shown.split(separator: "/").last.map(String.init) ?? shown
    }

    /// `url` with the user-information part (`user:password@`) taken out.
    public static func withoutCredentials(_ url: String) -> String {
        let bytes = Array(url.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: Array("://".utf8))
        else { return url }
        let authorityStart = colon + 3
        var authorityEnd = authorityStart
        while authorityEnd < bytes.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[authorityEnd]) {
            authorityEnd += 1
        }
        guard let at = bytes[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) else { return url }
        return String(decoding: bytes[..<authorityStart] + bytes[(at + 1)...], as: UTF8.self)
    }
}

/// The options of `Download` and `Upload` (SPEC "Background transfers"),
/// decoded and checked.
public struct TransferOptions: Sendable, Hashable {
    /// For the popup; nil: the file's name.
    public var title: String?
    /// Extra request headers, `Name: value` (checked: no line breaks).
    public var headers: [String]
    /// Uploads: `PUT` or `POST`.
    public var method: String
    /// Downloads: the expected SHA-256, lowercase hex.
    public var sha256: String?
    public var allowMetered: Bool
    /// Waits also for AC power and no power-saver mode.
    public var discretionary: Bool
    /// Unix µs (wall clock): not before this.
    public var notBefore: Microseconds?
    public var overwrite: Bool
    /// As in the event dictionary, for the final event.
    public var notify: Bool
    public var sound: String?
    public var badge: Int32?
    public var timeout: UInt32?

    public init(
        title: String? = nil, headers: [String] = [], method: String = "PUT", sha256: String? = nil,
        allowMetered: Bool = false, discretionary: Bool = false, notBefore: Microseconds? = nil,
        overwrite: Bool = false, notify: Bool = true, sound: String? = nil, badge: Int32? = nil,
        timeout: UInt32? = nil
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

/// What the system says that holds transfers: the fetch conditions and the power supply.
public struct TransferConditions: Sendable, Hashable {
    public var networkAvailable: Bool
    public var networkMetered: Bool
    public var powerSaver: Bool
    public var onBattery: Bool

    public init(networkAvailable: Bool = true, networkMetered: Bool = false, powerSaver: Bool = false, onBattery: Bool = false) {
        self.networkAvailable = networkAvailable
        self.networkMetered = networkMetered
        self.powerSaver = powerSaver
        self.onBattery = onBattery
    }

    /// What holds `transfer` now, as the end of "waiting for …"; nil when nothing does.
    func hold(for options: TransferOptions) -> String? {
        if !networkAvailable { return "a network" }
        if networkMetered && !options.allowMetered { return "a network that is not metered" }
        if options.discretionary && onBattery { return "AC power" }
        if options.discretionary && powerSaver { return "power-saver mode to end" }
        return nil
    }
}
