import Foundation
import NotifyTesting

/// Which sound hints a server really plays (whatever it lists).
enum ServerSound: Sendable, Hashable {
    /// It does not list `sound`: notifyd plays every sound (libcanberra) and sends no sound hint.
    case notListed
    /// It lists `sound` and plays nothing: notifyd plays every sound itself and sends `suppress-sound`.
    case listedButSilent
    /// It plays `sound-file` only: files go to the server; names notifyd plays itself, with `suppress-sound`.
    case filesOnly
    /// It plays both `sound-name` and `sound-file`: every sound goes to the server.
    case namesAndFiles
}

/// What one real server is expected to receive and do: the data the
/// suite checks against (adjust here, nowhere else).
struct ServerExpectation: Sendable, Hashable {
    var launch: ServerLaunch
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

/// How the suite starts a server: a server of its own on an Xvfb display,
/// or a whole desktop whose shell is the server.
enum ServerLaunch: Sendable, Hashable {
    case server(NotificationServerCommand)
    /// GNOME Shell 43 headless, with Dash to Dock (``GnomeShellSession``).
    case gnomeShell
    /// KDE Plasma 5.27 under Xvfb (``PlasmaSession``).
    case plasma

    /// A short key for logs and file names, e.g. `dunst`.
    var key: String {
        switch self {
        case .server(let command): command.key
        case .gnomeShell: "gnome-shell"
        case .plasma: "plasma"
        }
    }

    /// What runs, for the document.
    var description: String {
        switch self {
        case .server(let command): "`\(command.executable)`"
        case .gnomeShell:
            "`gnome-shell --headless --unsafe-mode`, its helper `org.gnome.Shell.Notifications` started by the bus"
        case .plasma: "`plasmashell` with `kwin_x11` and `kactivitymanagerd` (server restart: plasmashell restarted)"
        }
    }

    /// Starts it on the test's bus; `data` holds the apps' desktop files.
    func start(bus: TestBus, directory: URL, data: URL) throws -> any NotificationServerHost {
        switch self {
        case .server(let command):
            try NotificationServerSession(command: command, busAddress: bus.address, directory: directory)
        case .gnomeShell:
            try GnomeShellSession(bus: bus, directory: directory, dataDirectories: [data])
        case .plasma:
            try PlasmaSession(bus: bus, directory: directory, dataDirectories: [data])
        }
    }
}

extension ServerExpectation {
    private static let noValueBar = ServerLimitation(
        server: "draws no `value` hint", notifyd: "posts no progress popup; progress shows on the dock (LauncherEntry)")
    private static let noActions = ServerLimitation(
        server: "has no `actions`", notifyd: "sends no actions: clicking the bubble does nothing")

    /// Every server, in the order they run and appear in the document.
    static let all: [ServerExpectation] = [
        ServerExpectation(
            launch: .server(NotificationServerCommand(key: "dunst", executable: "/usr/bin/dunst")),
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
            launch: .server(NotificationServerCommand(
                key: "notification-daemon", executable: "/usr/lib/notification-daemon/notification-daemon")),
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
            launch: .server(NotificationServerCommand(
                key: "mate-notification-daemon",
                executable: "/usr/lib/mate-notification-daemon/mate-notification-daemon")),
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
            launch: .server(NotificationServerCommand(
                key: "xfce4-notifyd", executable: "/usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd")),
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
            launch: .server(NotificationServerCommand(key: "lxqt-notificationd", executable: "/usr/bin/lxqt-notificationd")),
            name: "lxqt-notificationd",
            capabilities: ["actions", "body", "body-hyperlinks", "body-images", "body-markup", "persistence"],
            drawsValue: false, keepsQueuedReplacements: true, sound: .notListed, readsDisplayedText: false,
            limitations: [.progress: noValueBar],
            notes: [
                "Does not list `sound`: notifyd plays each sound with libcanberra.",
            ]),
        ServerExpectation(
            launch: .server(NotificationServerCommand(
                key: "notify-osd", executable: "/usr/lib/x86_64-linux-gnu/notify-osd", needsCompositor: true)),
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
        ServerExpectation(
            launch: .gnomeShell,
            name: "gnome-shell",
            capabilities: ["actions", "body", "body-markup", "icon-static", "persistence", "sound"],
            drawsValue: false, keepsQueuedReplacements: true, sound: .namesAndFiles, readsDisplayedText: false,
            limitations: [.progress: noValueBar],
            notes: [
                "GNOME Shell 43.9 with Dash to Dock 75, headless (Mesa's llvmpipe). Its notification server is a "
                    + "helper, `org.gnome.Shell.Notifications` (gjs), which owns `org.freedesktop.Notifications` and "
                    + "hands each call to the shell; GNOME 43 has no activation file for the name itself, so after "
                    + "the helper crashed nothing started it again: notifyd starts the helper on demand while GNOME "
                    + "Shell runs (server restart: the helper is killed).",
                "The helper owns its name a moment before it exports its object: a query in between is answered "
                    + "`UnknownMethod`; notifyd asks again.",
                "The default action is the banner itself (a click anywhere on it), never a button; `Open` is a "
                    + "button, shown when the banner expands (on hover). Buttons are matched by label.",
                "Plays `sound-name` and `sound-file` itself (when the banner shows); ignores `suppress-sound`.",
                "Body markup: `<b>`, `<i>`, `<u>` rendered, `<a>` shown literally; URLs in the text become links. "
                    + "The summary is plain text.",
                "Keeps at most 3 notifications per app in the tray: a fourth closes the oldest (reason 1); "
                    + "a flood's summary is one of the three.",
                "The tray names the source from the app's desktop file (the `desktop-entry` hint), with its icon.",
            ]),
        ServerExpectation(
            launch: .plasma,
            name: "Plasma",
            capabilities: [
                "actions", "body", "body-hyperlinks", "body-images", "body-markup", "icon-static", "inhibitions",
                "inline-reply", "persistence", "x-kde-display-appname", "x-kde-origin-name", "x-kde-urls",
            ],
            drawsValue: false, keepsQueuedReplacements: true, sound: .notListed, readsDisplayedText: false,
            limitations: [
                .progress: ServerLimitation(
                    server: "draws no `value` hint",
                    notifyd: "shows the transfer as a Plasma job (`org.kde.JobViewServerV2`), as KDE's own downloads "
                        + "are, and no progress popup")
            ],
            notes: [
                "KDE Plasma 5.27.5: plasmashell is the notification server and owns `com.canonical.Unity` for its "
                    + "task manager, under kwin_x11 on Xvfb.",
                "Plays no sound (no `sound` capability; `sound-name` and `sound-file` do nothing): notifyd plays "
                    + "each sound with libcanberra.",
                "Ignores the `value` hint. A session in progress is a job of Plasma's (`org.kde.JobViewServerV2`, "
                    + "what Dolphin and KIO use): the file's name, a progress bar, on the app's task too; it ends "
                    + "without an entry of its own (`transient`) when notifyd's popup says how it went. Plasma "
                    + "clears the app's task badge when a job of it ends: notifyd sends it again.",
                "The default action is the popup's body (a click on it); other actions are buttons. "
                    + "`desktop-entry` gives the popup the app's icon.",
                "Body markup: `<b>`, `<i>`, `<u>` and links rendered; an escaped `&lt;b&gt;` shows as `<b>`. "
                    + "The summary is plain text.",
                "A restart of plasmashell loses its popups without `NotificationClosed`, and its badges: "
                    + "notifyd sends every badge again when `com.canonical.Unity` gets its new owner.",
                "Keeps a badge after the connection that sent it closed: notifyd retracts an entry "
                    + "(`count-visible` false) before it closes the entry's connection.",
            ]),
    ]
}
