import DBus
import NotifyTestingCore

/// Makes case number `index` of a run from the run's seed alone: the same
/// seed and index always give the same message and expectation.
struct CaseGenerator: Sendable {
    let seed: UInt64
    /// Families that may be generated.
    let families: Set<Family>
    /// Whether the legitimate state exists (badges at the maximum, a full
    /// app, legit sessions); cases that rely on it need it.
    let prepared: Bool
    /// Whether Peer takes part in the wrong-signature family (libdbus
    /// answers Peer calls itself, before notifyd sees them).
    var peerSignatures = true
    /// Fetch and task IDs running when the run began (another client's),
    /// and every transfer listed then: no case names them, so none is
    /// ended by the run.
    var busyIDs: Set<UInt64> = []
    /// The highest transfer ID when the run began: the run's own
    /// transfers (accepted-transfer) take the IDs above it.
    var highestTransferID: UInt64 = 0
    /// The legitimate transfers (``Legit/transferApp``) when prepared and found.
    var legitTransfers: (waiting: UInt64, suspended: UInt64)?

    /// Indices from here on are sent by connections that leave without
    /// reading their replies.
    static let deserterBase: UInt64 = 1 << 40
    /// One case in this many is a huge message (near libdbus's 128 MiB limit).
    static let hugeEvery: UInt64 = 20_000
    static let hugeOffset: UInt64 = 4_321

    /// Weights of the families, in `Family.allCases` order (huge messages go by index).
    static let weights: [Family: Int] = [
        .wrongSignature: 14, .unknownMember: 6, .properties: 5, .invalidAppId: 12, .invalidSessionId: 8,
        .outOfRange: 5, .badEvent: 18, .unknownSession: 5, .unknownID: 5, .invalidValue: 6, .foreignSession: 2, .limitExceeded: 2,
        .workerSignal: 12, .acceptedEvent: 4, .acceptedTransfer: 2, .benign: 4, .manyArguments: 2,
    ]

    static let needsPreparation: Set<Family> = [.foreignSession, .limitExceeded]

    /// The families a run can draw from.
    var drawable: [Family] {
        Family.allCases.filter { families.contains($0) && (Self.weights[$0] ?? 0) > 0 && (prepared || !Self.needsPreparation.contains($0)) }
    }

    func make(_ index: UInt64) -> FuzzCase {
        var rng = SplitMix64(seed: seed, stream: index)
        let deserter = index >= Self.deserterBase
        if !deserter, families.contains(.hugeMessage), index % Self.hugeEvery == Self.hugeOffset {
            return hugeMessage(index, &rng)
        }
        var candidates = drawable
        if deserter { candidates.removeAll { $0 == .acceptedEvent || $0 == .acceptedTransfer } }
        guard !candidates.isEmpty else { return benign(index, &rng) }
        let family = candidates[rng.weighted(candidates.map { Self.weights[$0] ?? 0 })]
        // A generated body the bus would refuse is drawn again from the same stream.
        while true {
            let made = build(family, index, &rng)
            if ValueMeasure.isSendable(made.arguments) { return made }
        }
    }

    func build(_ family: Family, _ index: UInt64, _ rng: inout SplitMix64) -> FuzzCase {
        switch family {
        case .wrongSignature: return wrongSignature(index, &rng)
        case .unknownMember: return unknownMember(index, &rng)
        case .properties: return properties(index, &rng)
        case .invalidAppId: return invalidAppID(index, &rng)
        case .invalidSessionId: return invalidSessionID(index, &rng)
        case .outOfRange: return outOfRange(index, &rng)
        case .badEvent: return badEvent(index, &rng)
        case .unknownSession: return unknownSession(index, &rng)
        case .unknownID: return unknownID(index, &rng)
        case .invalidValue: return invalidValue(index, &rng)
        case .foreignSession: return foreignSession(index, &rng)
        case .limitExceeded: return limitExceeded(index, &rng)
        case .workerSignal: return workerSignal(index, &rng)
        case .acceptedEvent: return acceptedEvent(index, &rng)
        case .acceptedTransfer: return acceptedTransfer(index, &rng)
        case .benign: return benign(index, &rng)
        case .manyArguments: return manyArguments(index, &rng)
        case .hugeMessage: return hugeMessage(index, &rng)
        }
    }

    // MARK: Shared pieces

    /// A call on the object that serves `interface` (notifyd's own, or the
    /// distributor's), or on `path`.
    func call(
        _ index: UInt64, _ family: Family, _ interface: String?, _ member: String, _ arguments: [DBusValue],
        _ expectation: Expectation, note: String, path: String? = nil
    ) -> FuzzCase {
        FuzzCase(
            index: index, family: family, kind: .call, path: path ?? Contract.path(for: interface), interface: interface,
            member: member,
            arguments: arguments, expectation: expectation, note: note)
    }

    /// A session ID nobody has used: unique to the case.
    func freshSession(_ index: UInt64, _ rng: inout SplitMix64, prefix: String = "fuzz-r") -> String {
        HostileStrings.validSessionID(&rng, tag: "\(prefix)-\(seed)-\(index)-")
    }

    /// A valid app ID for which nothing may be stored (or, when prepared,
    /// sometimes a legitimate app whose state must not change).
    func appForRefusal(_ rng: inout SplitMix64) -> String {
        if prepared, rng.chance(0.2) { return rng.pick([Legit.appA, Legit.appB, Legit.maxApp, Legit.nearApp]) }
        return HostileStrings.rejectedAppID(&rng)
    }

    /// A valid event with hostile unknown keys, as `a{sv}`.
    func validEvent(_ rng: inout SplitMix64, storing: Bool? = nil) -> (DBusValue, storesHandler: Bool) {
        var made = EventGenerator.valid(&rng)
        while let storing, made.storesHandler != storing { made = EventGenerator.valid(&rng) }
        let extra = rng.chance(0.4) ? EventGenerator.unknownKeys(&rng, count: rng.int(1...4), depthLeft: HostileValues.maximumDepth - 3) : []
        return (EventGenerator.dictionary(made.entries + extra, &rng), made.storesHandler)
    }

    /// An event with one defect SPEC refuses, sometimes with hostile unknown keys.
    func invalidEvent(_ rng: inout SplitMix64) -> (DBusValue, note: String) {
        let made = EventGenerator.invalid(&rng)
        let extra = rng.chance(0.3) ? EventGenerator.unknownKeys(&rng, count: rng.int(1...3), depthLeft: HostileValues.maximumDepth - 3) : []
        return (EventGenerator.dictionary(made.entries + extra, &rng), made.note)
    }
}
