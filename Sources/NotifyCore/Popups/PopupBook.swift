/// The popups of notifyd, decided (SPEC "Notifications", "Floods",
/// "Progress"): which popup an event posts, whether a flood merges it into
/// a summary, how often progress and summaries are updated, how a popup's
/// sound is played, and which popups wait for a notification server (the
/// newest ``queuedPerApp`` per app) and are posted when one appears.
///
/// Pure, like the rest of the core: each operation takes what happened and
/// the elapsed time (`CLOCK_BOOTTIME` µs: every interval here is elapsed
/// time), changes the book and returns the ``PopupEffect``s to carry out,
/// in order. Its timers are ``nextWake``: the daemon calls ``wake(at:)``
/// then. It knows the server only through ``serverChanged(to:at:)``.
public struct PopupBook: Sendable, Hashable {
    /// Popups kept per app while no server is on the bus.
    public static let queuedPerApp = 100
    /// The least time between two updates of a flood's summary.
    public static let summaryInterval: Microseconds = 500_000
    /// After a server refused a popup for want of a server while notifyd
    /// still sees one: when to try again (by then the owner change is known).
    public static let retryDelay: Microseconds = 1_000_000

    /// The server popups go to now; nil when none is on the bus.
    public private(set) var server: NotificationServerProfile?
    var flood = FloodGate()
    var progress = ProgressPopups()
    var summaries = SummaryPopups()
    /// Popups decided and not yet announced (or dropped).
    private var inFlight: [PopupToken: InFlightPopup] = [:]
    /// Popups sent, per key, oldest first, waiting for the server's answer.
    private var awaitingPost: [PopupKey: [PopupToken]] = [:]
    /// Popups waiting for a server, per app, oldest first.
    private var waitingForServer: [AppID: [PopupToken]] = [:]
    private var retryAt: Microseconds?
    private var nextToken: PopupToken = 1

    /// A book with no server and no popup.
    public init() {}

    /// When ``wake(at:)`` must next be called (elapsed µs); nil when nothing is due.
    public var nextWake: Microseconds? {
        [progress.nextDue, summaries.nextDue, retryAt].compactMap { $0 }.min()
    }

    /// Popups decided and not yet announced or dropped (waiting ones included).
    public var inFlightCount: Int { inFlight.count }

    /// Popups waiting for a server, per app.
    public func waitingCount(of app: AppID) -> Int { waitingForServer[app]?.count ?? 0 }

    /// A committed worker event: its popup posted, merged into its app's
    /// summary, or its progress shown; a finished or failed event ends the
    /// session's progress popup (or job).
    public mutating func eventRecorded(_ recorded: RecordedWorkerEvent, at now: Microseconds) -> [PopupEffect] {
        let event = recorded.event
        if event.kind == .progress {
            return updateProgress(recorded, at: now)
        }
        var effects = endProgress(session: recorded.session, app: recorded.app, failed: event.kind == .failed)
        guard let content = NotificationContent.forEvent(event) else { return effects }
        let slot = recorded.handlerID > 0 ? "handler:\(recorded.handlerID)" : "event:\(nextToken)"
        var draft = PopupDraft(
            key: PopupKey(app: recorded.app, slot: slot), session: recorded.session, kind: event.kind,
            summary: content.summary, body: content.body, category: content.category, sound: content.sound,
            withActions: true, openPath: content.openPath)
        switch flood.admit(app: recorded.app, kind: event.kind, title: event.title, at: now) {
        case .single:
            effects += submit(draft)
        case .merged(let summary):
            draft.key.slot = "burst:\(summary.burst)"
            draft.summary = summary.summary
            draft.body = summary.body
            draft.openPath = nil
            draft.merged = summary.merged
            // One sound per burst (its first popups had theirs).
            draft.sound = .silent
            effects += offerSummary(draft, settleFirst: server?.losesQueuedReplacements ?? false, at: now)
        }
        return effects
    }

    /// The notification server changed (`profile`), or left (nil): what
    /// waited is posted to the new one; with none, one is started on demand
    /// while popups wait.
    public mutating func serverChanged(to profile: NotificationServerProfile?, at now: Microseconds) -> [PopupEffect] {
        server = profile
        guard profile != nil else { return waitingForServer.isEmpty ? [.forgetJobs] : [.forgetJobs, .startServer] }
        retryAt = nil
        return [.forgetJobs] + postWaiting()
    }

    /// The server showed the oldest popup sent under `key`.
    public mutating func posted(_ key: PopupKey, id: UInt32, appName: String) -> [PopupEffect] {
        guard let token = takeAwaiting(key) else { return [] }
        inFlight[token]?.notificationID = id
        inFlight[token]?.appName = appName
        return announceIfComplete(token)
    }

    /// Sending the oldest popup of `key` failed with `message`. A server
    /// that has gone (as the message says, or as notifyd already knows)
    /// leaves the popup waiting for the next one; any other refusal drops it.
    public mutating func postFailed(_ key: PopupKey, message: String, at now: Microseconds) -> [PopupEffect] {
        guard let token = takeAwaiting(key), let popup = inFlight[token] else { return [] }
        guard server == nil || Self.meansNoServer(message) else {
            inFlight[token] = nil
            return [.dropped(popup.draft, reason: message)]
        }
        // The failure can reach notifyd before the bus says the server left.
        waitingForServer[popup.draft.app, default: []].insert(token, at: 0)
        guard server != nil else { return [.startServer] }
        if retryAt == nil { retryAt = now + Self.retryDelay }
        return []
    }

    /// How the sound notifyd played for `token` went.
    public mutating func soundFinished(_ token: PopupToken, played: Bool) -> [PopupEffect] {
        guard inFlight[token] != nil else { return [] }
        inFlight[token]?.soundBackend = played ? "canberra" : "failed"
        return announceIfComplete(token)
    }

    /// What is due at `now`: held progress values, summary updates, a retry.
    public mutating func wake(at now: Microseconds) -> [PopupEffect] {
        var effects: [PopupEffect] = []
        for session in progress.due(at: now) { effects += showProgress(session, at: now) }
        for draft in summaries.due(at: now) { effects += submit(draft) }
        if let retryAt, retryAt <= now {
            self.retryAt = nil
            effects += postWaiting()
        }
        return effects
    }

    /// Whether a failure to post says that there is no server to take it.
    public static func meansNoServer(_ message: String) -> Bool {
        ["ServiceUnknown", "NameHasNoOwner", "NoReply", "Disconnected", "NoServer", "not running"]
            .contains { message.contains($0) }
    }

    // MARK: Posting

    /// Posts `draft` now, or keeps it (the newest ``queuedPerApp`` of its
    /// app) until a server appears; with none, one is started on demand.
    mutating func submit(_ draft: PopupDraft) -> [PopupEffect] {
        let token = nextToken
        nextToken += 1
        inFlight[token] = InFlightPopup(draft: draft)
        guard server != nil else {
            var queue = waitingForServer[draft.app, default: []]
            queue.append(token)
            if queue.count > Self.queuedPerApp { inFlight[queue.removeFirst()] = nil }
            waitingForServer[draft.app] = queue
            return [.startServer]
        }
        return post(token)
    }

    /// Sends a popup; its sound is routed once, on the first attempt, so a
    /// popup held across a restart of the server is not heard twice.
    private mutating func post(_ token: PopupToken) -> [PopupEffect] {
        guard var popup = inFlight[token], let profile = server else { return [] }
        var effects: [PopupEffect] = []
        let route = popup.route ?? profile.route(popup.draft.sound)
        if popup.route == nil {
            popup.route = route
            if let sound = route.playedByNotifyd {
                effects.append(.playSound(token, sound))
            } else {
                popup.soundBackend = route.serverBackend
            }
        }
        inFlight[token] = popup
        awaitingPost[popup.draft.key, default: []].append(token)
        effects.append(.post(token, popup.draft, route: route, profile: profile))
        return effects
    }

    private mutating func postWaiting() -> [PopupEffect] {
        let waiting = waitingForServer
        waitingForServer.removeAll()
        var effects: [PopupEffect] = []
        for app in waiting.keys.sorted() {
            for token in waiting[app] ?? [] { effects += post(token) }
        }
        return effects
    }

    private mutating func takeAwaiting(_ key: PopupKey) -> PopupToken? {
        guard var tokens = awaitingPost[key], !tokens.isEmpty else { return nil }
        let token = tokens.removeFirst()
        awaitingPost[key] = tokens.isEmpty ? nil : tokens
        return token
    }

    /// `NotificationPosted` once both the server's ID and the sound's
    /// outcome are known.
    private mutating func announceIfComplete(_ token: PopupToken) -> [PopupEffect] {
        guard let popup = inFlight[token], let id = popup.notificationID, let backend = popup.soundBackend else {
            return []
        }
        inFlight[token] = nil
        return [
            .announce(
                PostedPopup(
                    draft: popup.draft, notificationID: id, appName: popup.appName ?? popup.draft.app.rawValue,
                    soundBackend: backend))
        ]
    }
}

/// A popup on its way, and what is known of it so far.
private struct InFlightPopup: Sendable, Hashable {
    var draft: PopupDraft
    /// How its sound goes, decided on the first attempt to send it.
    var route: SoundRoute?
    var soundBackend: String?
    var notificationID: UInt32?
    var appName: String?
}
