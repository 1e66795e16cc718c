/// A notifyd method the benchmark's clients call in a mix (the load's and
/// the soak's), by its member name.
enum BenchCall: String, CaseIterable, Hashable, Sendable {
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

    /// The member called (`Get` for `Properties.Get`).
    var member: String { self == .propertiesGet ? "Get" : rawValue }

    /// A key for the report's ids, e.g. `getbadge`, `properties_get`.
    var key: String {
        switch self {
        case .handleEvents: "handleevents"
        case .propertiesGet: "properties_get"
        default: rawValue.lowercased()
        }
    }
}

/// A mix of calls: how many of each come in every block of 100 calls.
struct CallMix: Sendable {
    /// The calls of the mix, in the order the report lists them.
    let calls: [BenchCall]
    /// A block of 100 calls in the shares, in order, for a client to shuffle.
    let block: [BenchCall]

    /// A mix of these calls, each with its share of 100.
    init(shares: [(call: BenchCall, share: Int)]) {
        calls = shares.map(\.call)
        block = shares.flatMap { Array(repeating: $0.call, count: $0.share) }
    }
}
