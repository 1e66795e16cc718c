import DBus
import Foundation
import NotifyTesting
import Testing

/// Memory at the limits, at a reduced scale (`notifyd-bench --only limits`
/// measures the full one; docs/PERFORMANCE.md, "Memory at the limits"):
/// what one pending handler, one badged app and one activation cost the
/// real notifyd, each under the budget that keeps the worst case at the
/// documented limits within the bound stated there, and the memory given
/// back once clients cleared what they added (part of it; at the full
/// scale the bench gives the figure).
@Suite(.serialized) struct MemoryAtLimitsTests {
    let fixture: Fixture

    /// Budgets per item, in bytes of anonymous resident memory (`RssAnon`),
    /// about twice what the release build measures, so that the debug
    /// build and a busy machine stay under them while a change that
    /// doubled a kind's cost would not.
    static let handlerBudget = 2_048.0
    static let badgeBudget = 1_024.0
    static let appBudget = 1_024.0

    /// Items of each kind: enough that a page more or less is noise.
    static let handlers = 10_000
    static let badgedApps = 1_000

    init() throws {
        fixture = try Fixture()
    }

    /// `RssAnon` of notifyd now, in bytes.
    func anonymousBytes() throws -> Double {
        let status = try String(contentsOfFile: "/proc/\(fixture.daemon.pid)/status", encoding: .utf8)
        for line in status.split(separator: "\n") where line.hasPrefix("RssAnon:") {
            if let kilobytes = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") {
                return kilobytes * 1024
            }
        }
        throw TestFailure("no RssAnon in /proc/\(fixture.daemon.pid)/status")
    }

    /// Sends `count` worker signals, each on a session of its own (no popup,
    /// no badge, a day's deadline), and waits until notifyd holds them
    /// (none is pending before).
    func storeHandlers(_ count: Int, from first: Int = 0) throws {
        for index in first..<(first + count) {
            try fixture.client.emitSignal(
                path: "/org/example/Worker", interface: Fixture.worker, member: "EventsForBackgroundSession",
                [
                    .string("mem-\(index)"), .string("org.example.Mem\(index % 2)"),
                    .vardict(["notify": .boolean(false), "badge": .int32(0), "timeout": .uint32(86_400)]),
                ])
        }
        fixture.client.flush()
        try waitUntil("notifyd holds \(count) handlers", seconds: 120) {
            try fixture.property("PendingHandlers") == .uint32(UInt32(count))
        }
    }

    @Test func eachKindCostsUnderItsBudgetAndClearingGivesTheMemoryBack() throws {
        // Warm up every path once, so that what is measured is the items, not the first use of the
        // code; the warm-up's badges stay, so that the docks' 64 connections are open already.
        try storeHandlers(100)
        for index in 0..<100 { try fixture.badges("SetBadge", [.string("org.example.Warm\(index)"), .uint32(1)]) }
        for index in 0..<100 { try fixture.call(Fixture.sessions, "CompleteSession", [.string("mem-\(index)")]) }
        let before = try anonymousBytes()

        try storeHandlers(Self.handlers, from: 100)
        let withHandlers = try anonymousBytes()
        let perHandler = (withHandlers - before) / Double(Self.handlers)
        #expect(perHandler < Self.handlerBudget, "a pending handler costs \(Int(perHandler)) B")

        for index in 0..<Self.badgedApps {
            try fixture.badges("SetBadge", [.string("org.example.Badged\(index)"), .uint32(UInt32(index % 9 + 1))])
        }
        let withBadges = try anonymousBytes()
        let perBadge = (withBadges - withHandlers) / Double(Self.badgedApps)
        #expect(perBadge < Self.badgeBudget, "a badged app costs \(Int(perBadge)) B")

        // Clients clear what they added: every session completed, every badge cleared.
        for index in 100..<(100 + Self.handlers) {
            try fixture.call(Fixture.sessions, "CompleteSession", [.string("mem-\(index)")])
        }
        #expect(try fixture.badges("ClearAllBadges") == [.uint32(UInt32(Self.badgedApps + 100))])
        #expect(try fixture.property("PendingHandlers") == .uint32(0))
        // Completions forget the finished sessions beyond the 1000 kept, as events do.
        let listed = try fixture.call(Fixture.sessions, "ListSessions")
        guard case .array(_, let rows)? = listed.first else { throw TestFailure("ListSessions answered \(listed)") }
        #expect(rows.count == 1_000, "the finished sessions kept, no more")
        // The clearing gives memory back (the emptied dictionary of sessions is compacted,
        // SQLite's cache released and the heap trimmed every 1000 items freed), not all of
        // it: the 1000 finished sessions kept stay, and pages the heap cannot return. At
        // the full scale the bench measures how much (docs/PERFORMANCE.md, "Memory at the
        // limits"); here, in the debug build, at least a fifth of what the state took.
        try waitForMemory(within: before + (withBadges - before) * 0.8, peak: withBadges, seconds: 10)
    }

    /// Waits (bounded) until notifyd's `RssAnon` is at most `limit` bytes.
    func waitForMemory(within limit: Double, peak: Double, seconds: Double) throws {
        var after = try anonymousBytes()
        do {
            try waitUntil("notifyd's anonymous memory at most \(Int(limit / 1024)) kB", seconds: seconds) {
                after = try anonymousBytes()
                return after <= limit
            }
        } catch {
            Issue.record("RssAnon \(Int(after / 1024)) kB once cleared, more than \(Int(limit / 1024)) kB (peak \(Int(peak / 1024)) kB)")
        }
    }

    @Test func anActivatedAppCostsUnderItsBudget() throws {
        try fixture.call("org.notifyd.Notifyd1.Apps", "DidBecomeActive", [.string("org.example.Warm")])
        let before = try anonymousBytes()
        let apps = 2_000
        for index in 0..<apps {
            try fixture.call("org.notifyd.Notifyd1.Apps", "DidBecomeActive", [.string("org.example.Active\(index)")])
        }
        let perApp = (try anonymousBytes() - before) / Double(apps)
        #expect(perApp < Self.appBudget, "an app with a state and an activation costs \(Int(perApp)) B")
    }
}
