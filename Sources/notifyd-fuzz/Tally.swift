import Synchronization

/// What the run has sent and received, shared by every thread.
final class Tally: Sendable {
    /// Counts of one family.
    struct Counts: Sendable {
        var sent = 0
        var replies = 0
        var signals = 0
        var abandoned = 0
        var mismatches = 0
    }

    /// A reply that was not the expected one.
    struct Mismatch: Sendable, CustomStringConvertible {
        let testCase: String
        let got: String
        var description: String { "\(testCase)\n    got: \(got)" }
    }

    private struct State {
        var families: [Family: Counts] = [:]
        var mismatches: [Mismatch] = []
        var mismatchCount = 0
        var acceptedHandlers = 0
        var acceptedSignalHandlers = 0
        var acceptedBuckets = Set<Int>()
        var sendFailures: [String] = []
        var sendFailureCount = 0
        var coverage = MemberCoverage()
    }

    private let state = Mutex(State())
    /// At most this many mismatches are kept for the report (all are counted).
    static let keptMismatches = 200

    func sent(_ testCase: FuzzCase, abandoned: Bool = false) {
        let reached = MemberCoverage.members(of: testCase)
        state.withLock { state in
            state.families[testCase.family, default: Counts()].sent += 1
            state.coverage.add(reached)
            if testCase.family == .acceptedEvent { state.acceptedBuckets.insert(Legit.accepted(testCase.index).bucket) }
            if abandoned {
                state.families[testCase.family, default: Counts()].abandoned += 1
            } else if testCase.kind == .signal {
                state.families[testCase.family, default: Counts()].signals += 1
                if testCase.storesHandler { state.acceptedSignalHandlers += 1 }
            }
        }
    }

    func replied(_ testCase: FuzzCase, storedHandler: Bool = false) {
        state.withLock { state in
            state.families[testCase.family, default: Counts()].replies += 1
            if storedHandler { state.acceptedHandlers += 1 }
        }
    }

    func mismatch(_ testCase: FuzzCase, got: String) {
        state.withLock { state in
            state.families[testCase.family, default: Counts()].mismatches += 1
            state.mismatchCount += 1
            if state.mismatches.count < Self.keptMismatches {
                state.mismatches.append(Mismatch(testCase: testCase.description, got: got))
            }
        }
    }

    /// A message that could not even be queued (the fuzzer's own fault, or a lost bus).
    func sendFailed(_ what: String) {
        state.withLock { state in
            state.sendFailureCount += 1
            if state.sendFailures.count < 20 { state.sendFailures.append(what) }
        }
    }

    var families: [Family: Counts] { state.withLock { $0.families } }
    /// The declared members the messages sent reached.
    var coverage: MemberCoverage { state.withLock { $0.coverage } }
    /// The accepted apps (by bucket) that cases were sent to.
    var acceptedBuckets: Set<Int> { state.withLock { $0.acceptedBuckets } }
    var mismatches: [Mismatch] { state.withLock { $0.mismatches } }
    var mismatchCount: Int { state.withLock { $0.mismatchCount } }
    /// The first 20 problems sending, and how many there were in all.
    var sendFailures: (first: [String], count: Int) { state.withLock { ($0.sendFailures, $0.sendFailureCount) } }
    /// Handlers stored by accepted events: answered with a handler ID, plus signals whose kind stores one.
    var acceptedHandlers: Int { state.withLock { $0.acceptedHandlers + $0.acceptedSignalHandlers } }

    /// Totals over every family.
    var total: Counts {
        families.values.reduce(into: Counts()) { sum, counts in
            sum.sent += counts.sent
            sum.replies += counts.replies
            sum.signals += counts.signals
            sum.abandoned += counts.abandoned
            sum.mismatches += counts.mismatches
        }
    }
}
