/// One popup as the server in use must get it, every quirk of that server
/// already applied by the core (``NotifydState/decidePopups(_:)``): the
/// body escaped where it reads markup, actions only where it has them, the
/// progress only where it draws it, the sound hint routed. The desktop
/// adapter sends it as it is.
public struct PopupRequest: Sendable, Hashable {
    /// Same key: the same popup, updated in place.
    public var key: PopupKey
    public var summary: String
    public var body: String
    /// The `category` hint, e.g. `transfer.complete`.
    public var category: String?
    /// `sound-name`, `sound-file` or `suppress-sound`; nil: no sound hint.
    public var soundHint: SoundRequest?
    /// The default action (activate the app) and, with ``openPath``, `Open`.
    public var withActions: Bool
    /// What `Open` opens.
    public var openPath: String?
    /// 0 to 100: the `value` hint.
    public var progress: Int32?
    /// The `transient` hint.
    public var transient: Bool

    public var app: AppID { key.app }

    /// `draft` as the server of `profile` must get it, with the sound hint of `route`.
    public init(_ draft: PopupDraft, route: SoundRoute, profile: NotificationServerProfile) {
        key = draft.key
        summary = draft.summary
        body = profile.readsBodyMarkup ? MarkupText.escaped(draft.body) : draft.body
        category = draft.category
        soundHint = route.hint
        withActions = draft.withActions && profile.hasActions
        openPath = draft.openPath
        progress = profile.drawsProgress ? draft.progress : nil
        transient = draft.transient
    }
}

/// What the desktop adapter carries out for the core: popups, sounds,
/// desktop jobs, and what a click on a popup asks for. It decides nothing.
public enum DesktopEffect: Sendable, Hashable {
    /// Sends a popup, creating it or replacing the one of its key.
    case post(PopupToken, PopupRequest)
    /// Plays a sound with libcanberra; the outcome comes back as
    /// ``NotifydState/popupSoundFinished(_:played:)``.
    case playSound(PopupToken, SoundRequest)
    /// Closes the popup of the key.
    case close(PopupKey)
    /// No server is on the bus and popups wait: asks D-Bus to start one.
    case startServer
    /// Shows a session's progress as a desktop job (KDE Plasma's job views).
    case updateJob(JobProgress)
    /// Ends the session's job.
    case endJob(session: SessionID, failed: Bool)
    /// A new server: the job views of the old one are gone.
    case forgetJobs
    /// Launches the app (a click on its popup), with the server's activation token.
    case launchApp(AppID, activationToken: String?)
    /// Opens a file with the user's default handler (a click on `Open`).
    case openPath(String, activationToken: String?)
}
