import NotifyCore
import NotifyDesktop

extension NotificationDispatcher {
    /// A popup on its way: what was asked, in plain text and independent
    /// of any server, and what is known so far. It may wait for a server
    /// and be sent to a different one than was running when it was made,
    /// so everything that depends on the server is decided when it is sent.
    struct Popup {
        /// The popup as asked: plain text, actions wanted, no sound hint.
        var request: NotificationRequest
        var app: AppID
        var session: SessionID
        var kind: EventKind
        var merged: Int
        var sound: SoundRequest
        /// How its sound went, decided on the first attempt to send it.
        var route: SoundRoute?
        var soundBackend: String?
        var notificationID: UInt32?
        var appName: String?

        init(
            request: NotificationRequest, app: AppID, session: SessionID, kind: EventKind, merged: Int,
            sound: SoundRequest
        ) {
            self.request = request
            self.app = app
            self.session = session
            self.kind = kind
            self.merged = merged
            self.sound = sound
        }

        /// The request as `profile`'s server must get it: actions only
        /// where it has them, the body escaped where it reads markup, and
        /// the sound hint of `route`.
        func rendered(for profile: NotificationServerProfile, route: SoundRoute) -> NotificationRequest {
            var sent = request
            sent.withActions = request.withActions && profile.hasActions
            if profile.readsBodyMarkup { sent.body = MarkupText.escaped(request.body) }
            sent.soundHint =
                switch route.hint {
                case .named(let name)?: .name(name)
                case .file(let path)?: .file(path)
                case .silent?: .suppress
                case nil: nil
                }
            if !profile.drawsProgress { sent.progress = nil }
            return sent
        }
    }
}
