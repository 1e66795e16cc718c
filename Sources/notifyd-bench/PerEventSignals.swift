import DBus
import NotifyCore

/// The signals notifyd emits for each event of the bench's burst, as the
/// emitting receiver (`notifyd-bench receive --emit`) sends them: the wire
/// work notifyd cannot avoid for a worker event, on top of receiving it.
///
/// Each event of the burst (``EventBurst``) is of kind `finished` with only
/// a `title`: its badge delta is 1 and it stores a handler, so notifyd's
/// core (`NotifydState.recordEvent`) decides two effects, which its
/// `EffectRunner` carries out in this order, from notifyd's object path, on
/// its one connection:
///
/// 1. `org.notifyd.Notifyd1.Badges.BadgeChanged(s app_id, u count)`, the
///    badge one higher each time (a real change, so never left out);
/// 2. `org.notifyd.Notifyd1.Sessions.HandleEventsForBackgroundSession(s session_id, s app_id, t handler_id, a{sv} event)`,
///    the event being the worker's known keys echoed (`{"title": <"file-N">}`).
///
/// What else notifyd sends for the burst is not once per event, so it is
/// left out: the Unity `LauncherEntry.Update` of the new count is coalesced
/// to one per loop turn (from the app's own connection), and the popups
/// (with their `NotificationPosted` signals) are merged after the third
/// by the flood rule, at most one summary update per half second.
///
/// The signals are built from ``DBusValue`` arrays with
/// ``DBusConnection/emitSignal(path:interface:member:_:destination:)``,
/// as notifyd's `SignalEmitter` builds them, and nobody subscribes to them,
/// on this bus as on notifyd's: the bus reads and drops them.
struct PerEventSignals {
    /// Where notifyd emits from.
    static let path = NotifydNames.objectPath
    static let badgeMember = "BadgeChanged"
    static let handlerMember = "HandleEventsForBackgroundSession"
    /// Signals emitted per event.
    static let perEvent = 2

    /// The app's badge so far (it starts at 0, as on notifyd's fresh state).
    private var badge: UInt32 = 0
    /// The last handler ID given (notifyd's count from 1).
    private var handlerID: UInt64 = 0

    /// Emits the two signals for one decoded worker event; `event` is the
    /// dictionary as received (the bench sends only known keys, so it is
    /// what notifyd echoes).
    mutating func emit(
        session: String, app: String, event: [String: DBusValue], on connection: DBusConnection
    ) throws(DBusError) {
        badge &+= 1
        handlerID &+= 1
        try connection.emitSignal(
            path: Self.path, interface: NotifydNames.badgesInterface, member: Self.badgeMember,
            [.string(app), .uint32(badge)])
        try connection.emitSignal(
            path: Self.path, interface: NotifydNames.sessionsInterface, member: Self.handlerMember,
            [.string(session), .string(app), .uint64(handlerID), .vardict(event)])
    }
}
