import DBus
import NotifyTestingCore

/// Families about argument values, for any declared method that takes the
/// argument: identifiers, counts, fetch results, task names, malformed
/// events, and sessions, fetches and tasks that are unknown, another
/// app's, or of an app at its limit.
extension CaseGenerator {
    /// Any method with an app ID, well-formed, with an invalid app ID.
    func invalidAppID(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        let (app, why) = HostileStrings.invalidAppID(&rng)
        precondition(!HostileStrings.isValidAppID(app), "generator made a valid app ID: \(app)")
        return hostileArgument(index, .invalidAppId, .string(app), at: "app_id", .error(Contract.Error.invalidAppId), note: why, &rng)
    }

    /// Any method with a session ID, well-formed, with an invalid session ID.
    func invalidSessionID(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        let (session, why) = HostileStrings.invalidSessionID(&rng)
        precondition(!HostileStrings.isValidSessionID(session), "generator made a valid session ID")
        return hostileArgument(
            index, .invalidSessionId, .string(session), at: "session_id", .error(Contract.Error.invalidSessionId), note: why, &rng)
    }

    /// A fetch, task or transfer ID that no fetch or task running and no
    /// transfer has (not ended, or among the last ended), for any method
    /// that takes one.
    func unknownID(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        let (argument, error) = rng.pick([
            ("fetch_id", Contract.Error.unknownFetch), ("task_id", Contract.Error.unknownTask),
            ("transfer_id", Contract.Error.unknownTransfer),
        ])
        let id = argument == "transfer_id" ? unknownTransferID(&rng) : likelyID(&rng)
        return hostileArgument(index, .unknownID, .uint64(id), at: argument, .error(error), note: "\(argument) \(id), unknown", &rng)
    }

    /// A value outside what an argument takes: a fetch result, a task name,
    /// a transfer's URL, path or options.
    func invalidValue(_ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        if rng.chance(0.4) {
            let input = invalidTransferInput(index, &rng)
            let methods = Contract.methods(taking: input.argument).filter {
                $0.interface == Contract.transfers && (!input.uploadOnly || $0.member == "Upload")
            }
            return hostileArgument(
                index, .invalidValue, input.value, at: input.argument, .error(Contract.Error.invalidArgs), note: input.why, in: methods, &rng)
        }
        if rng.chance(0.5) {
            let result = invalidFetchResult(&rng)
            return hostileArgument(
                index, .invalidValue, .string(result), at: "result", .error(Contract.Error.invalidArgs),
                note: "result \(Describe.string(result))", &rng)
        }
        let (name, why) = invalidTaskName(&rng)
        return hostileArgument(index, .invalidValue, .string(name), at: "name", .error(Contract.Error.invalidArgs), note: why, &rng)
    }

    /// A well-formed call of a method that takes `argument`, with `value` there.
    private func hostileArgument(
        _ index: UInt64, _ family: Family, _ value: DBusValue, at argument: String, _ expected: Expectation, note: String,
        in methods: [Contract.Method]? = nil, _ rng: inout SplitMix64
    ) -> FuzzCase {
        guard let made = wellFormedCall(methods ?? Contract.methods(taking: argument), hostile: value, at: argument, index, &rng) else {
            return benign(index, &rng)
        }
        return call(index, family, made.method.interface, made.method.member, made.arguments, expected, note: note)
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
        if rng.chance(0.4) {
            let longest = Contract.longestFetchInterval
            let seconds = rng.chance(0.3) ? rng.pick([longest + 1, .max]) : UInt32(rng.int(Int(longest) + 1...Int(UInt32.max)))
            let app = prepared && rng.chance(0.3) ? Legit.fetchApp : appForRefusal(&rng)
            return call(index, .outOfRange, Contract.fetch, "SetFetchInterval", [.string(app), .uint32(seconds)], expected,
                        note: "interval \(seconds) s")
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
        let method = rng.pick(Contract.sessionMethods)
        return call(index, .unknownSession, method.interface, method.member, [.string(freshSession(index, &rng, prefix: "fuzz-u"))],
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
