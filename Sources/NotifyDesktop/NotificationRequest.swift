/// Which popup a request is about: posting again with the same key updates
/// that popup in place instead of adding one.
public struct NotificationKey: Sendable, Hashable, CustomStringConvertible {
    /// The app's desktop entry ID.
    public var app: String
    /// Which of the app's popups, e.g. `handler:42`, `burst:3`, `progress:SESSION`.
    public var slot: String

    public init(app: String, slot: String) {
        self.app = app
        self.slot = slot
    }

    public var description: String { "\(app)/\(slot)" }
}

/// How the notification server should treat a sound, decided by the daemon
/// from the server's capabilities.
public enum SoundHint: Sendable, Hashable {
    /// A sound theme name (`sound-name`, canberra `event.id`), e.g. `complete-download`.
    case name(String)
    /// A sound file (`sound-file`, canberra `media.filename`).
    case file(String)
    /// No sound at all (`suppress-sound`).
    case suppress
}

/// One popup to post, or to update in place when its key is already showing.
public struct NotificationRequest: Sendable, Hashable {
    /// Same key: the same notification, updated in place.
    public var key: NotificationKey
    /// Desktop entry ID without `.desktop`: the `desktop-entry` hint, and
    /// where the app's name and icon come from.
    public var appID: String
    public var summary: String
    public var body: String
    /// The `category` hint, e.g. `transfer.complete`, `transfer.error`.
    public var category: String?
    /// `sound-name`, `sound-file` or `suppress-sound` (only when the server
    /// has the `sound` capability; nil sends no sound hint). An empty name
    /// or file suppresses the sound.
    public var soundHint: SoundHint?
    /// The server has `actions`: add the default action (when the app has a
    /// desktop file) and, when ``openPath`` is set, an `open` action.
    public var withActions: Bool
    /// What the `open` action opens; the daemon acts on it.
    public var openPath: String?
    /// 0 to 100: the `value` hint (a progress bar).
    public var progress: Int32?
    /// The `transient` hint: keep it out of the server's history.
    public var transient: Bool

    public init(
        key: NotificationKey, appID: String, summary: String, body: String = "",
        category: String? = nil, soundHint: SoundHint? = nil, withActions: Bool = false,
        openPath: String? = nil, progress: Int32? = nil, transient: Bool = false
    ) {
        self.key = key
        self.appID = appID
        self.summary = summary
        self.body = body
        self.category = category
        self.soundHint = soundHint
        self.withActions = withActions
        self.openPath = openPath
        self.progress = progress
        self.transient = transient
    }
}

/// What happened to a notification, reported on the GLib thread through
/// the notifier's `events` callback.
public enum DesktopEvent: Sendable, Hashable {
    /// The server showed (or updated) it: its notification id and the app
    /// name it was posted under.
    case posted(NotificationKey, id: UInt32, appName: String)
    /// Posting failed (no server, an error reply, the notifier shut down).
    /// A popup already showing under the key stays known, so the next post
    /// still replaces it.
    case failed(NotificationKey, message: String)
    /// The user chose an action: `default` or `open`, with the activation
    /// token the server sent for it (to pass to the app launched), if any.
    case actionInvoked(NotificationKey, action: String, activationToken: String?)
    /// The server closed it (1 expired, 2 dismissed, 3 closed by a call,
    /// 4 undefined); the key is forgotten.
    case closed(NotificationKey, reason: Int32)
}

/// How a sound went.
public enum SoundOutcome: Sendable, Hashable {
    /// libcanberra accepted the sound and is playing it.
    case played
    /// libcanberra refused it (no audio device, unknown sound, ...).
    case failed(String)
}

/// An app's name and icon from its desktop file
/// (`$XDG_DATA_DIRS/applications/APP.desktop`), read through GIO.
public struct DesktopAppInfo: Sendable, Hashable {
    /// `Name`, else the app ID.
    public var name: String
    /// The `Icon`, as `g_icon_to_string` gives it (a theme name or a path).
    public var icon: String?
    /// Whether the app has a desktop file at all.
    public var hasDesktopFile: Bool

    public init(name: String, icon: String? = nil, hasDesktopFile: Bool) {
        self.name = name
        self.icon = icon
        self.hasDesktopFile = hasDesktopFile
    }
}
