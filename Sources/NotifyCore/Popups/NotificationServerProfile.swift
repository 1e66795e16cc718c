/// What a notification server really does with what notifyd sends, where
/// its capabilities do not tell the whole truth.
///
/// Built from `GetServerInformation` and `GetCapabilities`; the quirks are
/// those measured on the real servers (docs/DESKTOPS.md, checked by the
/// desktop suite). Everything here decides: the daemon asks, and sends
/// what it is told.
public struct NotificationServerProfile: Sendable, Hashable {
    /// Which sound hints the server plays itself.
    public enum SoundSupport: Sendable, Hashable {
        /// `sound-name` and `sound-file`.
        case namesAndFiles
        /// Only `sound-file` (MATE's daemon ignores `sound-name`).
        case filesOnly
        /// None: notifyd plays every sound.
        case none
    }

    /// The server's name, e.g. `dunst`, `Notification Daemon`.
    public var name: String
    /// Its vendor, e.g. `knopwob`, `GNOME`, `MATE`.
    public var vendor: String
    /// Its version, e.g. `1.9.0 (2022-06-27)`.
    public var version: String
    public var capabilities: Set<String>
    /// What it plays: from the `sound` capability, corrected by what the
    /// server really does.
    public var sound: SoundSupport
    /// Whether it draws the `value` hint as a progress bar (no capability
    /// says so: known servers only).
    public var drawsProgress: Bool
    /// Whether a popup replaced in place before the server drew it is lost
    /// (notify-osd closes such a queued bubble unseen): then a popup that
    /// changes often is posted once, when it has settled.
    public var losesQueuedReplacements: Bool
    /// Whether the desktop shows transfers as jobs of its own (KDE Plasma's
    /// `org.kde.JobViewServerV2`: a progress bar in the notification area
    /// and on the app's task), which its users expect for downloads rather
    /// than a popup: Plasma draws no `value` hint.
    public var showsTransfersAsJobs: Bool

    /// The profile of a server, from what it says of itself.
    public init(name: String, vendor: String, version: String, capabilities: [String]) {
        self.name = name
        self.vendor = vendor
        self.version = version
        self.capabilities = Set(capabilities)
        let listsSound = self.capabilities.contains("sound")
        switch (name, vendor) {
        case ("Notification Daemon", "GNOME"):
            // 3.20 lists `sound` but plays nothing at all.
            sound = .none
        case ("Notification Daemon", "MATE"):
            // 1.26 plays `sound-file` with libcanberra, never `sound-name`.
            sound = listsSound ? .filesOnly : .none
        default:
            sound = listsSound ? .namesAndFiles : .none
        }
        drawsProgress = Self.serversDrawingProgress.contains(name)
        losesQueuedReplacements = name == "notify-osd"
        showsTransfersAsJobs = name == "Plasma" && vendor == "KDE"
    }

    /// Servers that draw the `value` hint, by the name they give.
    static let serversDrawingProgress: Set<String> = [
        "dunst", "mako", "swaync", "SwayNotificationCenter", "Xfce Notify Daemon", "xfce4-notifyd", "fnott",
    ]

    /// `name version`, as logs and `notifyctl status` show it.
    public var description: String { version.isEmpty ? name : "\(name) \(version)" }

    /// The server offers actions (a default action, `Open`).
    public var hasActions: Bool { capabilities.contains("actions") }

    /// The server reads body text as markup: text from callers must be escaped.
    public var readsBodyMarkup: Bool { capabilities.contains("body-markup") }

    /// How the sound of a popup is played, and which hint goes with it.
    public func route(_ sound: SoundRequest) -> SoundRoute {
        let listsSound = capabilities.contains("sound")
        switch (sound, self.sound) {
        case (.silent, _):
            return SoundRoute(hint: listsSound ? .silent : nil, playedByNotifyd: nil)
        case (.named, .namesAndFiles), (.file, .namesAndFiles), (.file, .filesOnly):
            return SoundRoute(hint: sound, playedByNotifyd: nil)
        case (.named, _), (.file, _):
            // The server must not play a sound of its own on top of ours.
            return SoundRoute(hint: listsSound ? .silent : nil, playedByNotifyd: sound)
        }
    }
}

/// Where a popup's sound comes from (SPEC "Notifications", Sound).
public struct SoundRoute: Sendable, Hashable {
    /// The hint to send: a name or file the server plays, `.silent` for
    /// `suppress-sound`, nil for none.
    public var hint: SoundRequest?
    /// The sound notifyd plays itself with libcanberra, if any.
    public var playedByNotifyd: SoundRequest?

    public init(hint: SoundRequest?, playedByNotifyd: SoundRequest?) {
        self.hint = hint
        self.playedByNotifyd = playedByNotifyd
    }

    /// The `sound-backend` of `NotificationPosted` when nothing is played
    /// by notifyd: `server` or `none`.
    public var serverBackend: String {
        switch hint {
        case .named, .file: "server"
        case .silent, nil: "none"
        }
    }
}
