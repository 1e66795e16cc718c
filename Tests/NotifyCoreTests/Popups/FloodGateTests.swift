import NotifyCore
import Testing

@Suite struct FloodGateTests {
    let app = try! AppID("org.example.Downloads")
    let other = try! AppID("org.example.Mail")
    static let ms: Microseconds = 1_000

    /// Admits `count` events of `kind` 100 ms apart from `start`, titled t1, t2, ...
    func burst(
        _ gate: inout FloodGate, _ count: Int, kind: EventKind = .finished, from start: Microseconds = 0
    ) -> [FloodDecision] {
        (1...count).map {
            gate.admit(app: app, kind: kind, title: "t\($0)", at: start + Microseconds($0 - 1) * 100 * Self.ms)
        }
    }

    func merged(_ decision: FloodDecision?) -> MergedSummary? {
        if case .merged(let summary)? = decision { summary } else { nil }
    }

    @Test func threeSinglesThenMerged() {
        var gate = FloodGate()
        let decisions = burst(&gate, 4)
        #expect(Array(decisions.prefix(3)) == [.single, .single, .single])
        #expect(
            decisions[3]
                == .merged(MergedSummary(burst: 1, merged: 1, summary: "4 downloads complete", body: "t4\nt3\nt2\nt1")))
    }

    @Test func twelveEventsMakeNineMergedPopups() {
        var gate = FloodGate()
        let summary = merged(burst(&gate, 12).last)
        #expect(summary?.summary == "12 downloads complete")
        #expect(summary?.merged == 9)
        #expect(summary?.body == "t12\nt11\nt10\nt9\nt8\nand 7 more")
        #expect(summary?.burst == 1)
    }

    @Test func bodyListsAllWhenFew() {
        var gate = FloodGate()
        #expect(merged(burst(&gate, 5).last)?.body == "t5\nt4\nt3\nt2\nt1")
    }

    /// The flood of 10: the number counts every event, the list
    /// and its "and K more" add up to it.
    @Test func theNumberAndTheListAgree() {
        var gate = FloodGate()
        for decision in burst(&gate, 10) {
            guard let summary = merged(decision) else { continue }
            let total = Int(summary.summary.split(separator: " ")[0])!
            let lines = summary.body.split(separator: "\n")
            let rest = lines.last.flatMap { $0.hasPrefix("and ") ? Int($0.split(separator: " ")[1]) : nil } ?? 0
            #expect(lines.count - (rest > 0 ? 1 : 0) + rest == total, "\(summary)")
        }
    }

    @Test func bodySkipsMissingTitles() {
        var gate = FloodGate()
        for step in 0..<6 {
            _ = gate.admit(app: app, kind: .fetch, title: step == 4 ? "news" : nil, at: Microseconds(step))
        }
        #expect(merged(gate.admit(app: app, kind: .fetch, title: nil, at: 10))?.body == "news\nand 6 more")
        var untitled = FloodGate()
        for step in 0..<5 { _ = untitled.admit(app: app, kind: .fetch, title: nil, at: Microseconds(step)) }
        #expect(merged(untitled.admit(app: app, kind: .fetch, title: nil, at: 9))?.body == "")
    }

    @Test(arguments: [
        (EventKind.failed, "5 downloads failed"), (.fetch, "5 updates with new content"),
        (.finished, "5 downloads complete"),
    ])
    func summaryByKind(kind: EventKind, text: String) {
        var gate = FloodGate()
        #expect(merged(burst(&gate, 5, kind: kind).last)?.summary == text)
    }

    @Test func mixedKindsAreTransfers() {
        var gate = FloodGate()
        _ = burst(&gate, 3, kind: .failed)
        #expect(
            merged(gate.admit(app: app, kind: .finished, title: nil, at: 400 * Self.ms))?.summary
                == "4 transfers finished")
    }

    @Test func windowSlides() {
        var gate = FloodGate()
        let second: Microseconds = 1_000_000
        #expect(gate.admit(app: app, kind: .finished, title: nil, at: 0) == .single)
        #expect(gate.admit(app: app, kind: .finished, title: nil, at: second) == .single)
        #expect(gate.admit(app: app, kind: .finished, title: nil, at: 1_900 * Self.ms) == .single)
        // The event at 0 is 2.5 s old: only two in the window.
        #expect(gate.admit(app: app, kind: .finished, title: nil, at: 2_500 * Self.ms) == .single)
        #expect(
            merged(gate.admit(app: app, kind: .finished, title: nil, at: 2_600 * Self.ms))?.summary
                == "4 downloads complete")
    }

    @Test func burstLastsWhileGapsStayUnderTheWindow() {
        var gate = FloodGate()
        _ = burst(&gate, 4)
        var now: Microseconds = 300 * Self.ms
        for _ in 0..<3 {
            now += FloodGate.window - 1
            #expect(merged(gate.admit(app: app, kind: .finished, title: nil, at: now))?.burst == 1)
        }
        #expect(
            merged(gate.admit(app: app, kind: .finished, title: nil, at: now + 1))?.summary == "8 downloads complete")
    }

    @Test func aGapOfTheWindowStartsAfresh() {
        var gate = FloodGate()
        _ = burst(&gate, 6)
        let after = 500 * Self.ms + FloodGate.window
        let decisions = burst(&gate, 4, from: after)
        #expect(Array(decisions.prefix(3)) == [.single, .single, .single])
        #expect(
            merged(decisions[3])
                == MergedSummary(burst: 2, merged: 1, summary: "4 downloads complete", body: "t4\nt3\nt2\nt1"))
    }

    @Test func appsAreIndependent() {
        var gate = FloodGate()
        _ = burst(&gate, 5)
        #expect(gate.admit(app: other, kind: .fetch, title: "x", at: 450 * Self.ms) == .single)
        #expect(merged(gate.admit(app: app, kind: .finished, title: nil, at: 500 * Self.ms))?.merged == 3)
    }

    @Test func pruneForgetsIdleApps() throws {
        var gate = FloodGate()
        _ = gate.admit(app: app, kind: .finished, title: nil, at: 0)
        _ = gate.admit(app: other, kind: .finished, title: nil, at: 1_000 * Self.ms)
        gate.prune(at: FloodGate.window)
        #expect(gate.trackedAppCount == 1)
        gate.prune(at: 3_000 * Self.ms)
        #expect(gate.trackedAppCount == 0)
    }

    @Test func stateStaysBoundedWithoutExplicitPruning() throws {
        var gate = FloodGate()
        for index in 0..<1_000 {
            let app = try AppID("app\(index)")
            _ = gate.admit(app: app, kind: .finished, title: nil, at: Microseconds(index) * FloodGate.window)
        }
        #expect(gate.trackedAppCount <= 128)
    }
}
