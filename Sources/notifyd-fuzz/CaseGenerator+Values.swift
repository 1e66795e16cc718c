import DBus
import NotifyTestingCore

/// Families about argument values: identifiers, counts, malformed events,
/// and sessions that are unknown, another app's, or of an app at its limit.
extension CaseGenerator {
    /// Valid arguments after the app ID of `member`.
    private func restOfAppCall(_ member: String, _ rng: inout SplitMix64) -> [DBusValue] {
        switch member {
        case "SetBadge": [.uint32(UInt32(rng.int(0...Int(Contract.maximumBadge))))]
        case "IncrementBadge": [.int32(Int32(rng.int(-1000...1000)))]
        default: []
        }
    }

    func invalidAppID(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        let (app, why) = HostileStrings.invalidAppID(&rng)
        precondition(!HostileStrings.isValidAppID(app), "generator made a valid app ID: \(app)")
        let expected = Expectation.error(Contract.Error.invalidAppId)
        if rng.chance(0.2) {
            let arguments: [DBusValue] = [.string(freshSession(index, &rng)), .string(app), validEvent(&rng).0]
            return call(index, .invalidAppId, Contract.sessions, "HandleEventsForBackgroundSession", arguments, expected, note: why)
        }
        let method = rng.pick(Contract.appMethods)
        return call(index, .invalidAppId, method.interface, method.member, [.string(app)] + restOfAppCall(method.member, &rng), expected, note: why)
    }

    func invalidSessionID(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        let (session, why) = HostileStrings.invalidSessionID(&rng)
        precondition(!HostileStrings.isValidSessionID(session), "generator made a valid session ID")
        let expected = Expectation.error(Contract.Error.invalidSessionId)
        if rng.chance(0.3) {
            let arguments: [DBusValue] = [.string(session), .string(appForRefusal(&rng)), validEvent(&rng).0]
            return call(index, .invalidSessionId, Contract.sessions, "HandleEventsForBackgroundSession", arguments, expected, note: why)
        }
        return call(index, .invalidSessionId, Contract.sessions, rng.pick(Contract.sessionMethods), [.string(session)], expected, note: why)
    }

    func outOfRange(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        let expected = Expectation.error(Contract.Error.outOfRange)
        if prepared, rng.chance(0.5) {
            let atMaximum = rng.chance(0.5)
            let app = atMaximum ? Legit.maxApp : Legit.nearApp
            let headroom = Int(Contract.maximumBadge - (atMaximum ? Contract.maximumBadge : Legit.nearBadge))
            let delta = rng.chance(0.3) ? Int32.max : Int32(rng.int((headroom + 1)...Int(Int32.max)))
            return call(index, .outOfRange, Contract.badges, "IncrementBadge", [.string(app), .int32(delta)], expected,
                        note: "increment by \(delta) past the maximum")
        }
        let count = rng.chance(0.3) ? rng.pick([Contract.maximumBadge + 1, .max]) : UInt32(rng.int(Int(Contract.maximumBadge) + 1...Int(UInt32.max)))
        return call(index, .outOfRange, Contract.badges, "SetBadge", [.string(appForRefusal(&rng)), .uint32(count)], expected, note: "count \(count)")
    }

    func badEvent(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        let (event, note) = invalidEvent(&rng)
        let (session, app) = prepared && rng.chance(0.2) ? (Legit.pendingSession, Legit.appA) : (freshSession(index, &rng), appForRefusal(&rng))
        return call(index, .badEvent, Contract.sessions, "HandleEventsForBackgroundSession", [.string(session), .string(app), event],
                    .error(Contract.Error.invalidArgs), note: note)
    }

    func unknownSession(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        call(index, .unknownSession, Contract.sessions, rng.pick(Contract.sessionMethods), [.string(freshSession(index, &rng, prefix: "fuzz-u"))],
             .error(Contract.Error.unknownSession), note: "a session nobody reported")
    }

    func foreignSession(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        let session = rng.pick([Legit.pendingSession, Legit.doneSession, Legit.progressSession, Legit.fullSession])
        return call(index, .foreignSession, Contract.sessions, "HandleEventsForBackgroundSession",
                    [.string(session), .string(HostileStrings.rejectedAppID(&rng)), validEvent(&rng).0],
                    .error(Contract.Error.invalidArgs), note: "session of another app")
    }

    func limitExceeded(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        let session = rng.chance(0.5) ? Legit.fullSession : freshSession(index, &rng)
        return call(index, .limitExceeded, Contract.sessions, "HandleEventsForBackgroundSession",
                    [.string(session), .string(Legit.fullApp), validEvent(&rng, storing: true).0],
                    .error(Contract.Error.limitExceeded), note: "app at 10000 pending handlers")
    }
}
