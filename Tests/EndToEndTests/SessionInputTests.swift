import DBus
import Foundation
import Testing
import NotifyTesting

/// Worker input both ways, and everything SPEC refuses (nothing stored).
@Suite struct SessionInputTests {
    let fixture: Fixture
    init() throws { fixture = try Fixture() }

    func emitWorkerSignal(_ arguments: [DBusValue], path: String = "/org/example/Worker") throws {
        let worker = try DBusConnection.connect(to: .address(fixture.bus.address))
        try worker.emitSignal(path: path, interface: Fixture.worker, member: "EventsForBackgroundSession", arguments)
        worker.flush()
    }

    func waitForPending(_ session: String, _ count: UInt32) throws -> Bool {
        (try? waitUntil("\(session) has \(count) pending", seconds: 5) { try fixture.pending(session) == count }) != nil
    }

    @Test func theWorkerSignalFromAnyPathStoresAHandler() throws {
        try emitWorkerSignal([.string("sig-1"), .string("org.example.App"), .vardict(["title": .string("a")])])
        try emitWorkerSignal([.string("sig-1"), .string("org.example.App"), .vardict([:])], path: "/")
        #expect(try waitForPending("sig-1", 2))
        #expect(try fixture.badge("org.example.App") == 2)
    }

    @Test func aRefusedWorkerSignalIsLoggedWithSenderAndReason() throws {
        let worker = try DBusConnection.connect(to: .address(fixture.bus.address))
        try worker.emitSignal(
            path: "/w", interface: Fixture.worker, member: "EventsForBackgroundSession",
            [.string("bad"), .string("org.example.App"), .vardict(["kind": .string("exploded")])])
        try worker.emitSignal(
            path: "/w", interface: Fixture.worker, member: "EventsForBackgroundSession", [.string("wrong signature")])
        // A call from the same connection is handled after its signals (a
        // new connection's messages wait, in order, for it to be identified).
        _ = try worker.call(
            destination: Fixture.busName, path: Fixture.path, interface: Fixture.badges, member: "GetBadge",
            [.string("org.example.App")])
        let log = fixture.daemon.log
        #expect(log.contains("refused a worker signal from \(worker.uniqueName ?? "?")"))
        #expect(log.contains("exploded"))
        #expect(log.contains("signature 's'"))
        #expect(try fixture.sessions()["bad"] == nil)
    }

    static let refused: [(String, [String: DBusValue])] = [
        ("kind", ["kind": .int32(1)]), ("kind", ["kind": .string("done")]), ("title", ["title": .uint32(1)]),
        ("summary", ["summary": .boolean(true)]), ("body", ["body": .int32(0)]), ("path", ["path": .string("relative/file")]),
        ("path", ["path": .objectPath("/a")]), ("uri", ["uri": .int64(1)]), ("bytes-written", ["bytes-written": .uint32(1)]),
        ("bytes-expected", ["bytes-expected": .int64(1)]), ("error", ["error": .strings(["x"])]),
        ("result", ["kind": .string("fetch"), "result": .string("maybe")]), ("result", ["result": .uint32(0)]),
        ("sound", ["sound": .boolean(false)]), ("badge", ["badge": .uint32(1)]), ("notify", ["notify": .string("no")]),
        ("timeout", ["timeout": .int32(5)]), ("timeout", ["timeout": .uint32(0)]), ("timeout", ["timeout": .uint32(86401)]),
        ("title", ["title": .string(String(repeating: "x", count: 4097))]),
    ]

    @Test(arguments: refused.indices)
    func malformedEventsAreInvalidArgsAndStoreNothing(_ index: Int) throws {
        let (key, event) = Self.refused[index]
        let error = fixture.error(
            Fixture.sessions, "HandleEventsForBackgroundSession", [.string("r"), .string("app"), .vardict(event)])
        #expect(error?.name == "org.freedesktop.DBus.Error.InvalidArgs", "\(key)")
        #expect(error?.message.contains(key) == true, "the message names '\(key)': \(error?.message ?? "")")
        #expect(try fixture.sessions().isEmpty)
        #expect(try fixture.badge("app") == 0)
    }

    @Test func limitsOfStringsAreBytesNotCharacters() throws {
        let exactly = String(repeating: "é", count: 2048)  // 4096 bytes
        #expect(try fixture.event("ok", app: "app", ["title": .string(exactly)]) > 0)
        let over = exactly + "x"
        let error = fixture.error(
            Fixture.sessions, "HandleEventsForBackgroundSession", [.string("no"), .string("app"), .vardict(["body": .string(over)])])
        #expect(error?.name == "org.freedesktop.DBus.Error.InvalidArgs")
    }

    @Test func unknownKeysAreIgnored() throws {
        #expect(try fixture.event("u", app: "app", ["x-custom": .variant(.strings(["a"])), "priority": .int32(5)]) > 0)
    }

    @Test func invalidIdentifiersHaveTheirOwnErrors() {
        let app = fixture.error(Fixture.sessions, "HandleEventsForBackgroundSession", [.string("s"), .string("bad app"), .vardict([:])])
        #expect(app?.name == Fixture.errorPrefix + "InvalidAppId")
        let session = fixture.error(Fixture.sessions, "HandleEventsForBackgroundSession", [.string("tab\t"), .string("app"), .vardict([:])])
        #expect(session?.name == Fixture.errorPrefix + "InvalidSessionId")
        let empty = fixture.error(Fixture.sessions, "HandleEventsForBackgroundSession", [.string(""), .string("app"), .vardict([:])])
        #expect(empty?.name == Fixture.errorPrefix + "InvalidSessionId")
    }

    @Test func badgeDeltasAndNotifyFalse() throws {
        try fixture.event("b", app: "app", ["badge": .int32(5), "notify": .boolean(false)])
        #expect(try fixture.badge("app") == 5)
        try fixture.event("b", app: "app", ["kind": .string("fetch"), "result": .string("no-data")])
        #expect(try fixture.badge("app") == 5, "fetch without new data adds nothing")
        try fixture.event("b", app: "app", ["badge": .int32(-10)])
        #expect(try fixture.badge("app") == 0)
        #expect(try fixture.pending("b") == 3)
    }

    @Test func perAppLimitIsLimitExceededAndStoresNothing() throws {
        // 10,000 pending handlers for one app, pipelined.
        for index in 0..<10_000 {
            let message = try DBusMessage.methodCall(
                destination: Fixture.busName, path: Fixture.path, interface: Fixture.sessions,
                member: "HandleEventsForBackgroundSession",
                arguments: [.string("bulk-\(index % 100)"), .string("busy.app"), .vardict(["notify": .boolean(false)])])
            try fixture.client.send(message)
        }
        #expect(try fixture.property("PendingHandlers") == .uint32(10_000))
        let error = fixture.error(
            Fixture.sessions, "HandleEventsForBackgroundSession", [.string("one-more"), .string("busy.app"), .vardict([:])])
        #expect(error?.name == Fixture.errorPrefix + "LimitExceeded")
        #expect(try fixture.sessions()["one-more"] == nil)
        #expect(try fixture.event("other", app: "calm.app") > 0, "another app is not limited")
    }
}
