import DBus
import Foundation
import Testing
import NotifyTesting

/// Sessions and completion handlers (SPEC "Sessions") against the real daemon.
@Suite struct SessionMethodTests {
    let fixture: Fixture
    let recorder: SignalRecorder

    init() throws {
        fixture = try Fixture()
        recorder = try SignalRecorder(
            address: fixture.bus.address,
            rules: [
                DBusMatchRule(interface: Fixture.sessions, member: "SessionCompleted"),
                DBusMatchRule(interface: Fixture.sessions, member: "HandleEventsForBackgroundSession"),
            ])
    }

    func completions(until handler: UInt64) throws -> [[DBusValue]] {
        let signals = try #require(recorder.wait(seconds: 10) {
            $0.member == "SessionCompleted" && $0.arguments.count == 4 && $0.arguments[2] == .uint64(handler)
        })
        return signals.filter { $0.member == "SessionCompleted" }.map(\.arguments)
    }

    @Test func eachEventStoresItsOwnHandler() throws {
        let first = try fixture.event("dl-1", app: "org.example.App", ["title": .string("a.iso")])
        let second = try fixture.event("dl-1", app: "org.example.App", ["kind": .string("failed"), "error": .string("disk full")])
        let third = try fixture.event("dl-1", app: "org.example.App", ["kind": .string("fetch"), "result": .string("new-data")])
        #expect(first > 0 && second > first && third > second)
        #expect(try fixture.pending("dl-1") == 3)
        #expect(try fixture.property("PendingHandlers") == .uint32(3))
        #expect(try fixture.badge("org.example.App") == 3)
    }

    @Test func progressStoresNoHandler() throws {
        let handler = try fixture.event(
            "dl-2", app: "app", ["kind": .string("progress"), "bytes-written": .uint64(5), "bytes-expected": .uint64(10)])
        #expect(handler == 0)
        let session = try #require(try fixture.sessions()["dl-2"])
        #expect(session.pending == 0)
        #expect(session.details["progress"] == .double(0.5))
        #expect(try fixture.badge("app") == 0)
    }

    @Test func completeInvokesEveryPendingHandlerInOrder() throws {
        let a = try fixture.event("s", app: "app")
        let b = try fixture.event("s", app: "app")
        #expect(try fixture.call(Fixture.sessions, "CompleteSession", [.string("s")]) == [.uint32(2)])
        #expect(try completions(until: b) == [
            [.string("s"), .string("app"), .uint64(a), .string("completed")],
            [.string("s"), .string("app"), .uint64(b), .string("completed")],
        ])
        #expect(try fixture.call(Fixture.sessions, "CompleteSession", [.string("s")]) == [.uint32(0)])
        #expect(try fixture.pending("s") == 0)
    }

    @Test func cancelGivesCancelled() throws {
        let a = try fixture.event("s", app: "app")
        #expect(try fixture.call(Fixture.sessions, "CancelSession", [.string("s")]) == [.uint32(1)])
        #expect(try completions(until: a).last?.last == .string("cancelled"))
    }

    @Test func deadlinesExpireHandlersOnTime() throws {
        let short = try fixture.event("s", app: "app", ["timeout": .uint32(1)])
        let long = try fixture.event("t", app: "app", ["timeout": .uint32(3600)])
        let started = Date()
        #expect(try completions(until: short).last == [.string("s"), .string("app"), .uint64(short), .string("expired")])
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(try fixture.pending("t") == 1, "the later deadline is still pending")
        #expect(try fixture.call(Fixture.sessions, "CompleteSession", [.string("t")]) == [.uint32(1)])
        #expect(try completions(until: long).last?.last == .string("completed"))
    }

    @Test func aHandlerIsInvokedExactlyOnce() throws {
        let a = try fixture.event("s", app: "app", ["timeout": .uint32(1)])
        _ = try fixture.call(Fixture.sessions, "CompleteSession", [.string("s")])
        // Barrier: a later handler with the same timeout expires after the
        // completed one's deadline would have fired.
        let probe = try fixture.event("probe", app: "app", ["timeout": .uint32(1)])
        #expect(try completions(until: probe).last?.last == .string("expired"))
        let invocations = recorder.received.filter { $0.member == "SessionCompleted" && $0.arguments[2] == .uint64(a) }
        #expect(invocations.count == 1)
        #expect(invocations.first?.arguments[3] == .string("completed"))
    }

    @Test func waitForSessionAnswersWhenNothingIsPending() throws {
        _ = try fixture.event("w", app: "app")
        let address = fixture.bus.address
        let result = Locked<String?>(nil)
        let thread = Thread {
            // The connection lives and dies on this thread.
            guard let waiter = try? DBusConnection.connect(to: .address(address)) else { return result.set("error") }
            let reply = try? waiter.call(
                destination: Fixture.busName, path: Fixture.path, interface: Fixture.sessions, member: "WaitForSession",
                [.string("w")], timeoutMilliseconds: 10_000)
            result.set((try? reply?.decode(0, as: String.self)) ?? "error")
        }
        // Barrier: the bus has routed the WaitForSession call to notifyd,
        // which answers the ListSessions after it; an answer to the wait
        // would have been routed before that one.
        let bus = try DBusMonitor(
            bus: .address(address),
            rules: [
                "type='method_call',interface='\(Fixture.sessions)',member='WaitForSession'", "type='method_return'",
                "type='error'",
            ])
        thread.start()
        let wait = try bus.waitFor("the WaitForSession call") { $0.member == "WaitForSession" }
        #expect(try fixture.pending("w") == 1)
        var answered = false
        while let message = try bus.next(timeoutMilliseconds: 0) {
            if message.destination == wait.sender && message.replySerial == wait.serial { answered = true }
        }
        #expect(!answered && result.get() == nil, "still waiting while a handler is pending")
        _ = try fixture.call(Fixture.sessions, "CancelSession", [.string("w")])
        try? waitUntil("WaitForSession is answered", seconds: 5) { result.get() != nil }
        #expect(result.get() == "cancelled")
        #expect(try fixture.call(Fixture.sessions, "WaitForSession", [.string("w")]) == [.string("cancelled")])
    }

    @Test func unknownSessionErrors() {
        for member in ["WaitForSession", "CompleteSession", "CancelSession"] {
            let error = fixture.error(Fixture.sessions, member, [.string("never-seen")])
            #expect(error?.name == Fixture.errorPrefix + "UnknownSession", "\(member)")
        }
    }

    @Test func aSessionBelongsToTheAppThatFirstUsedIt() throws {
        try fixture.event("mine", app: "first.app")
        let error = fixture.error(
            Fixture.sessions, "HandleEventsForBackgroundSession", [.string("mine"), .string("other.app"), .vardict([:])])
        #expect(error?.name == "org.freedesktop.DBus.Error.InvalidArgs")
        #expect(try fixture.pending("mine") == 1)
    }

    @Test func theRunningAppHearsEachEvent() throws {
        let handler = try fixture.event("e", app: "app", ["title": .string("x"), "custom-key": .int32(7)])
        let signal = try #require(recorder.wait { $0.member == "HandleEventsForBackgroundSession" })
        let arguments = try #require(signal.last?.arguments)
        #expect(Array(arguments.prefix(3)) == [.string("e"), .string("app"), .uint64(handler)])
        #expect(signal.last?.signature == "ssta{sv}")
    }

    @Test func listSessionsHasTheSpecifiedDetails() throws {
        try fixture.event("l", app: "app")
        let session = try #require(try fixture.sessions()["l"])
        #expect(session.app == "app")
        #expect(session.details["events"] == .uint32(1))
        guard case .int64(let microseconds)? = session.details["last-event"] else {
            Issue.record("last-event is not an int64")
            return
        }
        #expect(abs(Double(microseconds) / 1e6 - Date().timeIntervalSince1970) < 60)
    }
}

/// A value shared between a test and a thread it started.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
