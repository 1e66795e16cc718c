public import DBus
public import NotifyCore
public import NotifyDesktop
import Synchronization

/// What the desktop reports of popups and docks, each an input of the core
/// (``NotifyCore/NotifydState``'s popup and dock operations).
public enum DesktopReport: Sendable, Hashable {
    /// The server showed the oldest popup sent under the key.
    case posted(PopupKey, id: UInt32, appName: String)
    /// Sending the oldest popup of the key failed.
    case failed(PopupKey, message: String)
    /// The sound notifyd played for a popup went (or not).
    case soundFinished(PopupToken, played: Bool)
    /// A person clicked an action of a popup.
    case actionInvoked(PopupKey, action: String, activationToken: String?)
    /// The server closed a popup.
    case closed(PopupKey)
}

/// The desktop side of popups: carries out the core's ``NotifyCore/DesktopEffect``s
/// and reports back through the closure it was attached with. The daemon's
/// is ``DesktopPopups`` (libnotify and GIO on the GLib thread); a daemon
/// embedded in a test uses a ``RecordingDesktop``.
protocol PopupDesktop: AnyObject {
    /// Carries out one effect, on the bus loop.
    func carryOut(_ effect: DesktopEffect)
    /// Stops what the desktop side started (at shutdown).
    func shutDown()
}

/// A desktop with no GLib and no notification server, for a daemon
/// embedded in a test: it records what the core decided to post and
/// answers as a server that shows everything would (each popup posted
/// with the next ID, on the next turn of the loop), under the server
/// ``server`` describes. A test reads ``requests``, ``effects`` and
/// clicks a popup with ``click(_:on:)``.
public final class RecordingDesktop: @unchecked Sendable {
    // Unchecked: the mutable parts are behind the mutex, or set once by
    // the daemon before its loop runs.

    /// The server it stands for (its profile decides every quirk).
    public let server: NotificationServerMonitor.Server
    private let recorded = Mutex<[DesktopEffect]>([])
    private var loop: EventLoop?
    private var report: (DesktopReport) -> Void = { _ in }
    private var nextID: UInt32 = 1

    /// A desktop whose server says it is `name` with `capabilities`.
    public init(name: String = "recording", capabilities: [String] = ["actions", "body", "body-markup"]) {
        server = NotificationServerMonitor.Server(
            profile: NotificationServerProfile(name: name, vendor: "notifyd", version: "1", capabilities: capabilities),
            capabilities: capabilities, owner: ":recording")
    }

    /// Every effect carried out so far, in order.
    public var effects: [DesktopEffect] { recorded.withLock { $0 } }

    /// The popups posted so far, in order.
    public var requests: [PopupRequest] {
        effects.compactMap { if case .post(_, let request) = $0 { request } else { nil } }
    }

    /// Clicks `action` of the popup `key`, as a person would (from any thread).
    public func click(_ action: String, on key: PopupKey) {
        loop?.execute { [self] in report(.actionInvoked(key, action: action, activationToken: nil)) }
    }

    /// Called once by the daemon, on its loop, before the loop runs.
    func attach(loop: EventLoop, report: @escaping (DesktopReport) -> Void) {
        self.loop = loop
        self.report = report
    }
}

extension RecordingDesktop: PopupDesktop {
    func carryOut(_ effect: DesktopEffect) {
        recorded.withLock { $0.append(effect) }
        switch effect {
        case .post(_, let request):
            let id = nextID
            nextID += 1
            let report = self.report
            loop?.runSoon { report(.posted(request.key, id: id, appName: request.app.rawValue)) }
        case .playSound(let token, _):
            let report = self.report
            loop?.runSoon { report(.soundFinished(token, played: true)) }
        default:
            break
        }
    }

    /// Lets go of the daemon (a test keeps the desktop after it stopped).
    func shutDown() {
        loop = nil
        report = { _ in }
    }
}
