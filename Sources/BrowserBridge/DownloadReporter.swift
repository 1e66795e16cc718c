public import DBus
import NotifyCore

/// One call the host makes to notifyd.
public struct HostCall: Equatable, Sendable {
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]
}

/// Decides which calls to notifyd a browser message becomes (SPEC,
/// "Browser downloads"); the executable makes them.
///
/// Its only memory, bounded: when each running download last reported
/// progress (at most two progress events a second), and which downloads
/// ended (each end is reported once).
public struct DownloadReporter {
    /// The browser's app ID (desktop entry ID).
    public let app: String
    /// Tells apart the profiles of one browser in session IDs.
    public let profile: String
    private var lastProgress: [String: UInt64] = [:]
    /// Downloads whose end was reported: a second report of it (an
    /// extension that saw it twice) is dropped.
    private var ended: Set<String> = []
    /// Nanoseconds between two progress events of one download.
    static let progressInterval: UInt64 = 500_000_000
    static let rememberedDownloads = 4096

    public init(app: String, profile: String) {
        self.app = app
        self.profile = profile
    }

    /// The session of a download: unique per download and browser profile.
    public func sessionID(_ download: DownloadReport) -> String {
        "browser:\(profile):\(download.startTime):\(download.id)"
    }

    /// The calls for `message`, at monotonic time `now` (nanoseconds).
    public mutating func calls(for message: BrowserMessage, now: UInt64) -> [HostCall] {
        switch message {
        case .focus(let focused):
            return [HostCall(
                interface: NotifydNames.appsInterface, member: focused ? "DidBecomeActive" : "DidEnterBackground",
                arguments: [.string(app)])]
        case .download(let download):
            return calls(for: download, now: now)
        }
    }

    private mutating func calls(for download: DownloadReport, now: UInt64) -> [HostCall] {
        let session = sessionID(download)
        guard !ended.contains(session) else { return [] }
        var event: [WorkerEventKey: DBusValue] = [:]
        if !download.incognito {
            let name = download.filename.split(separator: "/").last.map(String.init) ?? ""
            if !name.isEmpty { event[.title] = .string(name) }
        }
        let ending: String
        if download.vanished || (download.state == .interrupted && download.error == "USER_CANCELED" && !download.paused) {
            // Cancelled in the browser (or gone): the session ends, without a popup.
            event = [.kind: .string(EventKind.failed.rawValue), .notify: .boolean(false), .badge: .int32(0), .sound: .string(""),
                     .error: .string("Cancelled")]
            ending = "CancelSession"
        } else if download.state == .complete {
            event[.kind] = .string(EventKind.finished.rawValue)
            if !download.incognito {
                if download.filename.hasPrefix("/"), download.filename.utf8.count <= WorkerEvent.maximumStringBytes {
                    event[.path] = .string(download.filename)
                }
                if Self.isReportable(url: download.url) { event[.uri] = .string(download.url) }
            }
            ending = "CompleteSession"
        } else if download.state == .interrupted && !download.paused {
            event[.kind] = .string(EventKind.failed.rawValue)
            event[.error] = .string(DownloadFailureReason.words(for: download.error))
            ending = "CompleteSession"
        } else {
            if let last = lastProgress[session], now &- last < Self.progressInterval { return [] }
            if lastProgress.count >= Self.rememberedDownloads { lastProgress.removeAll() }
            lastProgress[session] = now
            event[.kind] = .string(EventKind.progress.rawValue)
            event[.bytesWritten] = .uint64(download.bytesReceived)
            if let total = download.totalBytes, total > 0 { event[.bytesExpected] = .uint64(total) }
            return [report(session, event)]
        }
        lastProgress[session] = nil
        if ended.count >= Self.rememberedDownloads { ended.removeAll() }
        ended.insert(session)
        return [report(session, event),
                HostCall(interface: NotifydNames.sessionsInterface, member: ending, arguments: [.string(session)])]
    }

    private func report(_ session: String, _ event: [WorkerEventKey: DBusValue]) -> HostCall {
        let dictionary = Dictionary(uniqueKeysWithValues: event.map { ($0.key.name, $0.value) })
        return HostCall(
            interface: NotifydNames.sessionsInterface, member: "HandleEventsForBackgroundSession",
            arguments: [.string(session), .string(app), .vardict(dictionary)])
    }

    /// A web address worth keeping: http(s) or ftp and not long (a `data:`
    /// or `blob:` URL is the file itself, or nothing a person can use).
    static func isReportable(url: String) -> Bool {
        url.utf8.count <= 2048 && (url.hasPrefix("https://") || url.hasPrefix("http://") || url.hasPrefix("ftp://"))
    }
}
