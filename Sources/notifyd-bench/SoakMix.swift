/// The calls of the soak section (``CallMix/soak``): every call of
/// ``BenchCall``.
///
/// A desktop's traffic over a long session, with state that stays bounded
/// so that only a leak or a structure without a bound can make memory grow:
/// a fixed set of apps (each client owns its own), sessions completed soon
/// after their events (one in ten left for its handler to expire, after 10
/// or 20 s), fetches completed (one in twenty left to expire, after 30 s),
/// tasks begun and ended, activations and resignations, badges read and
/// written, and now and then a listing. Short-lived processes (`busctl`,
/// `gdbus emit`) come on top, from their own thread (``SoakSpawner``).
typealias SoakCall = BenchCall

extension CallMix {
    /// The soak's calls in every 100 (a call that cannot be made now, e.g.
    /// `CompleteFetch` with no fetch running, is replaced by the one that
    /// makes it possible).
    static let soak = CallMix(shares: [
        (.getBadge, 14), (.setBadge, 4), (.incrementBadge, 8), (.listBadges, 3), (.handleEvents, 13),
        (.completeSession, 12), (.didBecomeActive, 5), (.willResignActive, 3), (.getState, 8),
        (.setFetchInterval, 1), (.fetchNow, 5), (.completeFetch, 5), (.getFetchSchedule, 3), (.beginTask, 4),
        (.endTask, 4), (.listSessions, 1), (.propertiesGet, 7),
    ])
}
