/// Which popup of an app: a popup posted again under the same key replaces
/// the one showing, in place.
public struct PopupKey: Sendable, Hashable, CustomStringConvertible {
    /// The app whose popup it is.
    public var app: AppID
    /// Which of the app's popups: `handler:42`, `event:7`, `burst:3`, `progress:SESSION`.
    public var slot: String

    public init(app: AppID, slot: String) {
        self.app = app
        self.slot = slot
    }

    public var description: String { "\(app.rawValue)/\(slot)" }
}

/// Identifies one popup on its way to the server, from the decision to post
/// it until `NotificationPosted` (or its drop).
public typealias PopupToken = UInt64

/// A popup as the core decided it: plain text, independent of any server.
/// It may wait for a server and go to another one than was running when it
/// was made, so what depends on the server (actions, markup, the sound
/// hint) is applied to it when it is sent (see ``PopupEffect/post(_:_:route:profile:)``).
public struct PopupDraft: Sendable, Hashable {
    public var key: PopupKey
    /// The session of the event it is about.
    public var session: SessionID
    public var kind: EventKind
    public var summary: String
    public var body: String
    /// The `category` hint, e.g. `transfer.complete`.
    public var category: String?
    /// The sound it asks for (routed when it is first sent).
    public var sound: SoundRequest
    /// Whether it gets the default action (and `Open` with ``openPath``)
    /// where the server has actions.
    public var withActions: Bool
    /// What `Open` opens.
    public var openPath: String?
    /// 0 to 100: the `value` hint, for servers that draw it.
    public var progress: Int32?
    /// The `transient` hint.
    public var transient: Bool
    /// For a flood's summary, the popups merged into it so far.
    public var merged: Int

    public init(
        key: PopupKey, session: SessionID, kind: EventKind, summary: String, body: String, category: String? = nil,
        sound: SoundRequest = .silent, withActions: Bool = false, openPath: String? = nil, progress: Int32? = nil,
        transient: Bool = false, merged: Int = 0
    ) {
        self.key = key
        self.session = session
        self.kind = kind
        self.summary = summary
        self.body = body
        self.category = category
        self.sound = sound
        self.withActions = withActions
        self.openPath = openPath
        self.progress = progress
        self.transient = transient
        self.merged = merged
    }

    /// The app whose popup it is.
    public var app: AppID { key.app }
}

/// A popup the server showed, for `NotificationPosted`.
public struct PostedPopup: Sendable, Hashable {
    public var draft: PopupDraft
    /// The server's notification ID.
    public var notificationID: UInt32
    /// The app name it was posted under (the desktop file's `Name`, or the app ID).
    public var appName: String
    /// `server`, `canberra`, `none` or `failed`.
    public var soundBackend: String

    public init(draft: PopupDraft, notificationID: UInt32, appName: String, soundBackend: String) {
        self.draft = draft
        self.notificationID = notificationID
        self.appName = appName
        self.soundBackend = soundBackend
    }
}

/// What the popup book decided must happen on the desktop; the daemon's
/// desktop adapter carries it out, and reports back what the desktop did
/// (``PopupBook/posted(_:id:appName:)``, ``PopupBook/postFailed(_:message:at:)``,
/// ``PopupBook/soundFinished(_:played:)``).
public enum PopupEffect: Sendable, Hashable {
    /// Sends `draft` to the server `profile` describes, with the sound
    /// hint of `route`, creating the popup or replacing the one of its key.
    case post(PopupToken, PopupDraft, route: SoundRoute, profile: NotificationServerProfile)
    /// `NotificationPosted`.
    case announce(PostedPopup)
    /// The server refused the popup for another reason than having gone:
    /// it is dropped (logged with `reason`).
    case dropped(PopupDraft, reason: String)
    /// What the desktop carries out as it is: a sound, a close, a server
    /// started on demand, a job (the outcome of a sound comes back to
    /// ``PopupBook/soundFinished(_:played:)``).
    case desktop(DesktopEffect)

    public static func playSound(_ token: PopupToken, _ sound: SoundRequest) -> PopupEffect {
        .desktop(.playSound(token, sound))
    }
    public static func close(_ key: PopupKey) -> PopupEffect { .desktop(.close(key)) }
    public static var startServer: PopupEffect { .desktop(.startServer) }
    public static func updateJob(_ job: JobProgress) -> PopupEffect { .desktop(.updateJob(job)) }
    public static func endJob(session: SessionID, failed: Bool) -> PopupEffect {
        .desktop(.endJob(session: session, failed: failed))
    }
    public static var forgetJobs: PopupEffect { .desktop(.forgetJobs) }
}

/// A session's progress as a desktop job shows it.
public struct JobProgress: Sendable, Hashable {
    public var session: SessionID
    public var app: AppID
    public var title: String
    /// 0 to 100.
    public var percent: UInt32
    public var bytesWritten: UInt64?
    public var bytesExpected: UInt64?

    public init(
        session: SessionID, app: AppID, title: String, percent: UInt32, bytesWritten: UInt64?, bytesExpected: UInt64?
    ) {
        self.session = session
        self.app = app
        self.title = title
        self.percent = percent
        self.bytesWritten = bytesWritten
        self.bytesExpected = bytesExpected
    }
}
