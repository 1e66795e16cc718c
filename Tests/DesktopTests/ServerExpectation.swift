import NotifyTesting

/// Which sound hints a server really plays (whatever it lists).
enum ServerSound: Sendable, Hashable {
    /// It does not list `sound`: notifyd plays every sound (libcanberra) and sends no sound hint.
    case notListed
    /// It lists `sound` and plays nothing: notifyd plays every sound itself and sends `suppress-sound`.
    case listedButSilent
    /// It plays `sound-file` only: files go to the server; names notifyd plays itself, with `suppress-sound`.
    case filesOnly
}

/// What one real server is expected to receive and do: the data the
/// suite checks against (adjust here, nowhere else).
struct ServerExpectation: Sendable, Hashable {
    var command: NotificationServerCommand
    /// The name it gives in GetServerInformation.
    var name: String
    /// What GetCapabilities lists (compared as a set).
    var capabilities: Set<String>
    /// Whether it draws the `value` hint (a progress bar): no capability says so.
    var drawsValue: Bool
    /// False when a bubble replaced in place while queued is lost (notify-osd).
    var keepsQueuedReplacements: Bool
    var sound: ServerSound
    /// Whether the suite can read what the server shows (dunst's history).
    var readsDisplayedText: Bool
    /// Known limitations, by scenario: the cell of that scenario says so.
    var limitations: [DesktopScenario: ServerLimitation]
    /// Anything else it does differently, for its section of the document.
    var notes: [String]

    var hasActions: Bool { capabilities.contains("actions") }
    var readsBodyMarkup: Bool { capabilities.contains("body-markup") }
}

extension ServerExpectation {
    private static let noValueBar = ServerLimitation(
        server: "draws no `value` hint", notifyd: "posts no progress popup; progress shows on the dock (LauncherEntry)")
    private static let noActions = ServerLimitation(
        server: "has no `actions`", notifyd: "sends no actions: clicking the bubble does nothing")

    /// Every server, in the order they run and appear in the document.
    static let all: [ServerExpectation] = [
        ServerExpectation(
            command: NotificationServerCommand(key: "dunst", executable: "/usr/bin/dunst"),
            name: "dunst",
            capabilities: [
                "actions", "body", "body-hyperlinks", "icon-static", "synchronous", "private-synchronous",
                "x-canonical-private-synchronous", "x-dunst-stack-tag", "body-markup",
            ],
            drawsValue: true, keepsQueuedReplacements: true, sound: .notListed, readsDisplayedText: true,
            limitations: [:],
            notes: [
                "Draws the `value` hint as a progress bar under the body.",
                "Does not list `sound`: notifyd plays each sound with libcanberra.",
                "Actions are reached through dunst's context menu (`dunstctl context`), not buttons.",
            ]),
        ServerExpectation(
            command: NotificationServerCommand(
                key: "notification-daemon", executable: "/usr/lib/notification-daemon/notification-daemon"),
            name: "Notification Daemon",
            capabilities: [
                "actions", "body", "body-hyperlinks", "body-markup", "icon-static", "sound", "persistence", "action-icons",
            ],
            drawsValue: false, keepsQueuedReplacements: true, sound: .listedButSilent, readsDisplayedText: false,
            limitations: [
                .progress: noValueBar,
                .sound: ServerLimitation(
                    server: "lists `sound` but plays nothing",
                    notifyd: "plays every sound itself and sends `suppress-sound`"),
            ],
            notes: [
                "GNOME's fallback daemon (GNOME Flashback). Lists `sound`, yet 3.20 plays neither `sound-name` nor "
                    + "`sound-file`: notifyd treats it as a server without sound.",
            ]),
        ServerExpectation(
            command: NotificationServerCommand(
                key: "mate-notification-daemon",
                executable: "/usr/lib/mate-notification-daemon/mate-notification-daemon"),
            name: "Notification Daemon",
            capabilities: ["actions", "action-icons", "body", "body-hyperlinks", "body-markup", "icon-static", "sound"],
            drawsValue: false, keepsQueuedReplacements: true, sound: .filesOnly, readsDisplayedText: false,
            limitations: [
                .progress: noValueBar,
                .sound: ServerLimitation(
                    server: "plays `sound-file` only, never `sound-name`",
                    notifyd: "sends files to the server and plays names itself, with `suppress-sound`"),
            ],
            notes: [
                "Gives the same name as GNOME's daemon (`Notification Daemon`); the vendor (`MATE`) tells them apart.",
                "Plays `sound-file` with libcanberra; ignores `sound-name`.",
            ]),
        ServerExpectation(
            command: NotificationServerCommand(
                key: "xfce4-notifyd", executable: "/usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd"),
            name: "Xfce Notify Daemon",
            capabilities: [
                "action-icons", "actions", "body", "body-hyperlinks", "body-markup", "icon-static",
                "x-canonical-private-icon-only",
            ],
            drawsValue: true, keepsQueuedReplacements: true, sound: .notListed, readsDisplayedText: false,
            limitations: [:],
            notes: [
                "Draws the `value` hint as a progress bar.",
                "Does not list `sound`: notifyd plays each sound with libcanberra.",
            ]),
        ServerExpectation(
            command: NotificationServerCommand(key: "lxqt-notificationd", executable: "/usr/bin/lxqt-notificationd"),
            name: "lxqt-notificationd",
            capabilities: ["actions", "body", "body-hyperlinks", "body-images", "body-markup", "persistence"],
            drawsValue: false, keepsQueuedReplacements: true, sound: .notListed, readsDisplayedText: false,
            limitations: [.progress: noValueBar],
            notes: [
                "Does not list `sound`: notifyd plays each sound with libcanberra.",
            ]),
        ServerExpectation(
            command: NotificationServerCommand(
                key: "notify-osd", executable: "/usr/lib/x86_64-linux-gnu/notify-osd", needsCompositor: true),
            name: "notify-osd",
            capabilities: [
                "body", "body-markup", "icon-static", "image/svg+xml", "x-canonical-private-synchronous",
                "x-canonical-append", "x-canonical-private-icon-only", "x-canonical-truncation", "private-synchronous",
                "append", "private-icon-only", "truncation",
            ],
            drawsValue: false, keepsQueuedReplacements: false, sound: .notListed, readsDisplayedText: false,
            limitations: [
                .finished: noActions,
                .restart: noActions,
                .progress: ServerLimitation(
                    server: "draws `value` only as an icon-only gauge (volume OSD), not in a text bubble",
                    notifyd: "posts no progress popup; progress shows on the dock (LauncherEntry)"),
                .flood: ServerLimitation(
                    server: "drops a queued bubble that is replaced in place",
                    notifyd: "posts the summary once, with the final count, when the burst is over"),
            ],
            notes: [
                "Ubuntu's bubbles: no actions at all (a notification with actions becomes a dialog box), one "
                    + "bubble at a time, each shown for a fixed time.",
                "A bubble replaced in place while it waits in the queue is closed unseen: notifyd never updates a "
                    + "queued summary there.",
                "Needs a compositing manager (the suite runs xcompmgr).",
                "Does not list `sound`: notifyd plays each sound with libcanberra.",
            ]),
    ]
}
