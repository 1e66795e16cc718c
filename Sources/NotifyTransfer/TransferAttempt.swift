/// Which way a transfer's bytes go.
public enum TransferDirection: String, Sendable {
    /// From the server into a file.
    case download
    /// From a file to the server.
    case upload
}

/// One attempt of one transfer, as the daemon asks for it.
public struct TransferAttempt: Sendable, Equatable {
    /// The daemon's id of the transfer (`t transfer_id`).
    public var id: UInt64
    /// Download or upload.
    public var direction: TransferDirection
    /// `http` or `https` only (the daemon checked).
    public var url: String
    /// Download: the destination file, or a directory ending in "/" (then
    /// the engine names the file); upload: the source file.
    public var path: String
    /// Extra request headers, "Name: value", already validated by the
    /// daemon (no CR, LF or NUL).
    public var headers: [String]
    /// Uploads: "PUT" or "POST"; ignored for downloads.
    public var method: String
    /// Downloads: the strong ETag or the Last-Modified of the bytes already
    /// in the partial file (from ``TransferEngineEvent/responded(id:resumedFrom:total:validator:)``
    /// of an earlier attempt, possibly before a restart); nil: start over.
    public var validator: String?
    /// Downloads: the expected SHA-256 digest, lowercase hex.
    public var sha256: String?
    /// Whether an existing file at the destination may be replaced.
    public var overwrite: Bool

    /// An attempt with every field given.
    public init(
        id: UInt64, direction: TransferDirection, url: String, path: String, headers: [String] = [],
        method: String = "PUT", validator: String? = nil, sha256: String? = nil, overwrite: Bool = false
    ) {
        self.id = id
        self.direction = direction
        self.url = url
        self.path = path
        self.headers = headers
        self.method = method
        self.validator = validator
        self.sha256 = sha256
        self.overwrite = overwrite
    }
}

/// What the engine tells the daemon of an attempt, on the engine's thread.
public enum TransferEngineEvent: Sendable, Equatable {
    /// The server answered and the body starts: `resumedFrom` bytes kept
    /// from the partial file (0 = started over), `total` the whole size when
    /// known, `validator` what to store for a later resume (nil when the
    /// response had none usable). For an upload: its body starts going out
    /// (`resumedFrom` 0, `total` the file's size, no validator).
    case responded(id: UInt64, resumedFrom: UInt64, total: UInt64?, validator: String?)
    /// At most twice a second per transfer while running: the bytes in the
    /// partial file (download) or handed to the server (upload).
    case progress(id: UInt64, done: UInt64, total: UInt64?)
    /// The attempt is over: exactly one per ``TransferEngine/start(_:)``
    /// (none for the attempts that ``TransferEngine/shutdown()`` ends).
    case ended(id: UInt64, TransferAttemptEnd)
}

/// How an attempt ended.
public enum TransferAttemptEnd: Sendable, Equatable {
    /// Download: in place at `path` (the final file path, which for a
    /// directory path is the name chosen), fsync'ed (file and directory),
    /// sha256-verified. Upload: the server answered 2xx; `path` is the source.
    case completed(path: String, bytes: UInt64)
    /// Worth another attempt (connection lost, refused or reset, DNS
    /// failure, no data for 60 s, HTTP 408, 429, 5xx): `reason` is one
    /// sentence for a person; `retryAfter` from the server's Retry-After
    /// (seconds or HTTP date) when given. The partial file is kept.
    case retry(reason: String, retryAfter: Duration?)
    /// Not worth retrying (another HTTP error, an untrusted certificate, a
    /// checksum mismatch, a full disk, an existing destination without
    /// overwrite, a symbolic link in the way, a redirect to a scheme other
    /// than http(s) or more than 10). The partial file is already removed.
    case failed(reason: String)
    /// Ended by ``TransferEngine/stop(id:discardingPartial:)``.
    case stopped
}
