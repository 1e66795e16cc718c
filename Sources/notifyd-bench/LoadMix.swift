import NotifyTestingCore

/// The calls of the load section (``CallMix/load``), and the order in
/// which each client makes them.
///
/// The mix is what a desktop's clients do: mostly reads (docks and panels
/// reading badges, states and the daemon's properties), badge writes from
/// apps, workers reporting events for their sessions and apps completing
/// them soon after (as many completions as events, so that pending
/// handlers do not pile up over the run), and now and then a full listing
/// (`notifyctl sessions`).
typealias LoadCall = BenchCall

extension CallMix {
    /// The load's calls in every 100.
    static let load = CallMix(shares: [
        (.getBadge, 22), (.setBadge, 8), (.incrementBadge, 12), (.listBadges, 5), (.handleEvents, 13),
        (.completeSession, 13), (.getState, 12), (.listSessions, 1), (.propertiesGet, 14),
    ])
}

extension BenchCall {
    /// The `count` calls of one load client, in their order: blocks of 100
    /// calls in the load's shares, each block shuffled with a generator
    /// seeded by the client's index (so every run makes the same calls).
    ///
    /// A `CompleteSession` always finds a session with a pending handler:
    /// one that would come when none is pending is swapped with the next
    /// `HandleEventsForBackgroundSession` (each block has as many of those),
    /// or becomes one when none is left (only when `count` is not a
    /// multiple of 100).
    static func schedule(count: Int, client: Int) -> [BenchCall] {
        var generator = SplitMix64(seed: 0x6e6f_7469_6679_6400 &+ UInt64(client))
        let block = CallMix.load.block
        var calls: [BenchCall] = []
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
