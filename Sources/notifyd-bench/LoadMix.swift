import NotifyTestingCore

/// The calls of the load section, and how often each comes in the mix.
///
/// The mix is what a desktop's clients do: mostly reads (docks and panels
/// reading badges, states and the daemon's properties), badge writes from
/// apps, workers reporting events for their sessions and apps completing
/// them soon after (as many completions as events, so that pending
/// handlers do not pile up over the run), and now and then a full listing
/// (`notifyctl sessions`).
enum LoadCall: String, CaseIterable, Hashable, Sendable {
    case getBadge = "GetBadge"
    case setBadge = "SetBadge"
    case incrementBadge = "IncrementBadge"
    case listBadges = "ListBadges"
    case handleEvents = "HandleEventsForBackgroundSession"
    case completeSession = "CompleteSession"
    case getState = "GetState"
    case listSessions = "ListSessions"
    case propertiesGet = "Properties.Get"

    /// Calls of this kind in every 100 calls of the mix.
    var share: Int {
        switch self {
        case .getBadge: 22
        case .setBadge: 8
        case .incrementBadge: 12
        case .listBadges: 5
        case .handleEvents: 13
        case .completeSession: 13
        case .getState: 12
        case .listSessions: 1
        case .propertiesGet: 14
        }
    }

    /// A key for the report's ids, e.g. `getbadge`, `properties_get`.
    var key: String {
        switch self {
        case .handleEvents: "handleevents"
        case .propertiesGet: "properties_get"
        default: rawValue.lowercased()
        }
    }

    /// The `count` calls of one client, in their order: blocks of 100 calls
    /// in the shares above, each block shuffled with a generator seeded by
    /// the client's index (so every run makes the same calls).
    ///
    /// A `CompleteSession` always finds a session with a pending handler:
    /// one that would come when none is pending is swapped with the next
    /// `HandleEventsForBackgroundSession` (each block has as many of those),
    /// or becomes one when none is left (only when `count` is not a
    /// multiple of 100).
    static func schedule(count: Int, client: Int) -> [LoadCall] {
        var generator = SplitMix64(seed: 0x6e6f_7469_6679_6400 &+ UInt64(client))
        let block = allCases.flatMap { Array(repeating: $0, count: $0.share) }
        var calls: [LoadCall] = []
        calls.reserveCapacity(count + block.count)
        while calls.count < count { calls += block.shuffled(using: &generator) }
        calls.removeLast(calls.count - count)
        var pending = 0
        for index in calls.indices {
            if calls[index] == .completeSession && pending == 0 {
                if let later = calls[(index + 1)...].firstIndex(of: .handleEvents) {
                    calls.swapAt(index, later)
                } else {
                    calls[index] = .handleEvents
                }
            }
            switch calls[index] {
            case .handleEvents: pending += 1
            case .completeSession: pending -= 1
            default: break
            }
        }
        return calls
    }
}
