/// The calls of the soak section, and how often each comes.
///
/// A desktop's traffic over a long session, with state that stays bounded
/// so that only a leak or a structure without a bound can make memory grow:
/// a fixed set of apps (each client owns its own), sessions completed soon
/// after their events (one in ten left for its handler to expire, after 10
/// or 20 s), fetches completed (one in twenty left to expire, after 30 s),
/// tasks begun and ended, activations and resignations, badges read and
/// written, and now and then a listing. Short-lived processes (`busctl`,
/// `gdbus emit`) come on top, from their own thread (``SoakSpawner``).
enum SoakCall: String, CaseIterable, Hashable, Sendable {
    case getBadge = "GetBadge"
    case setBadge = "SetBadge"
    case incrementBadge = "IncrementBadge"
    case listBadges = "ListBadges"
    case handleEvents = "HandleEventsForBackgroundSession"
    case completeSession = "CompleteSession"
    case didBecomeActive = "DidBecomeActive"
    case willResignActive = "WillResignActive"
    case getState = "GetState"
    case setFetchInterval = "SetFetchInterval"
    case fetchNow = "FetchNow"
    case completeFetch = "CompleteFetch"
    case getFetchSchedule = "GetFetchSchedule"
    case beginTask = "BeginBackgroundTask"
    case endTask = "EndBackgroundTask"
    case listSessions = "ListSessions"
    case propertiesGet = "Properties.Get"

    /// Calls of this kind in every 100 of the mix (a call that cannot be
    /// made now, e.g. `CompleteFetch` with no fetch running, is replaced by
    /// the one that makes it possible).
    var share: Int {
        switch self {
        case .getBadge: 14
        case .setBadge: 4
        case .incrementBadge: 8
        case .listBadges: 3
        case .handleEvents: 13
        case .completeSession: 12
        case .didBecomeActive: 5
        case .willResignActive: 3
        case .getState: 8
        case .setFetchInterval: 1
        case .fetchNow: 5
        case .completeFetch: 5
        case .getFetchSchedule: 3
        case .beginTask: 4
        case .endTask: 4
        case .listSessions: 1
        case .propertiesGet: 7
        }
    }

    /// A block of 100 calls in the shares above, for a client to shuffle.
    static let block: [SoakCall] = allCases.flatMap { Array(repeating: $0, count: $0.share) }
}
