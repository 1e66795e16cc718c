/// Which sandboxed apps have been active on the bus lately: the rule for
/// senders that left before they could be identified.
///
/// A fire-and-forget sender (`gdbus emit`, `dbus-send` without a reply)
/// often leaves the bus before the bus can be asked who it was; nothing
/// about it can be learnt after that. Most such senders are scripts of the
/// user on the host, whose events must not be lost. A sandboxed app
/// reaches the bus through xdg-dbus-proxy, which notifyd identifies in
/// almost every case (the proxy's relay is slower than notifyd's question)
/// and which makes the app *active* here: for ``window`` after a sandboxed
/// app was last seen, a departed sender acting for another app is refused,
/// since it may be that app. Otherwise it is taken as a host process.
///
/// The clock is elapsed time of any origin (the daemon passes
/// `CLOCK_MONOTONIC`); the set is bounded by ``capacity``.
public struct SandboxActivity: Sendable {
    /// How long a sandboxed app counts as active after it was last seen.
    public static let window: Microseconds = 30_000_000
    /// Apps remembered at most; the oldest are forgotten first.
    public static let capacity = 256

    /// When each sandboxed app was last seen; `nil` stands for sandboxes
    /// whose `.flatpak-info` names no valid app.
    private var lastSeen: [AppID?: Microseconds] = [:]

    public init() {}

    /// A sandboxed connection of `app` appeared or sent a message.
    public mutating func noteSandboxed(_ app: AppID?, at now: Microseconds) {
        lastSeen[app] = now
        guard lastSeen.count > Self.capacity else { return }
        lastSeen = lastSeen.filter { now - $0.value < Self.window }
        while lastSeen.count > Self.capacity, let oldest = lastSeen.min(by: { $0.value < $1.value }) {
            lastSeen[oldest.key] = nil
        }
    }

    /// Why a sender that left unidentified may not act for `app` (a
    /// sentence naming the sandboxed app active most recently), or nil
    /// when it is taken as a host process.
    public func suspicion(ofDepartedSenderActingFor app: AppID, at now: Microseconds) -> String? {
        let suspects = lastSeen.filter { $0.key != app && now - $0.value < Self.window }
        guard let latest = suspects.max(by: { $0.value < $1.value }) else { return nil }
        let seconds = max(0, (now - latest.value) / 1_000_000)
        let who = latest.key.map { "the sandboxed app \($0)" } ?? "a sandboxed app with no valid app ID"
        return "\(who) was active on the bus \(seconds) s ago, and a sender that cannot be identified may be it"
    }
}
