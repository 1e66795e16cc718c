import DBus
import Foundation
import NotifyTesting
import Testing

/// Memory at the limits, at a reduced scale (`notifyd-bench --only limits`
/// measures the full one; docs/PERFORMANCE.md, "Memory at the limits"):
/// what one pending handler, one badged app and one activation cost the
/// real notifyd, each under the budget that keeps the worst case at the
/// documented limits within the bound stated there, and the memory given
/// back once clients cleared what they added.
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
        // The finished sessions beyond the 1000 kept are forgotten when the next event is
        // recorded, not when they finish: until then the completed sessions stay.
        withKnownIssue("finished sessions beyond those kept are forgotten only at the next event") {
            try waitForMemory(within: 1.10, of: before, peak: withBadges, seconds: 2)
        }
        try fixture.event("mem-after", app: "org.example.Mem0", ["notify": .boolean(false), "badge": .int32(0)])
        try fixture.call(Fixture.sessions, "CompleteSession", [.string("mem-after")])
        // Then part of the heap is given back after the commit (trimmed), but not all: the
        // books' dictionaries keep the capacity they grew to, and SQLite's page cache has
        // filled (docs/PERFORMANCE.md, "Memory at the limits"). Wait for it, bounded.
        withKnownIssue("the books' collections keep their capacity once emptied", isIntermittent: true) {
            try waitForMemory(within: 1.10, of: before, peak: withBadges, seconds: 10)
        }
        #expect(try anonymousBytes() < withBadges, "memory given back after the clearing and one event")
    }

    /// Waits (bounded) until notifyd's `RssAnon` is within `ratio` of `before`.
    func waitForMemory(within ratio: Double, of before: Double, peak: Double, seconds: Double) throws {
        var after = try anonymousBytes()
        do {
            try waitUntil("notifyd's anonymous memory within \(ratio)x of before", seconds: seconds) {
                after = try anonymousBytes()
                return after <= before * ratio
            }
        } catch {
            Issue.record(
                "RssAnon \(Int(after / 1024)) kB once cleared against \(Int(before / 1024)) kB before (peak \(Int(peak / 1024)) kB)"
            )
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
