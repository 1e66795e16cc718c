import DBus
import Foundation
import Glibc
import NotifyTesting
import Testing

/// A push that arrives when the state directory's disk is full: notifyd
/// cannot store it, so it must not say it took it, nor that the endpoint
/// is gone. XMPP: the application server gets 503 (try again later), and
/// the message sent again is delivered once the disk has room. ntfy, which
/// cannot be answered: the stream is read again, after a growing wait, from
/// the last message stored, and nothing published is lost.
///
/// The apps refuse messages while the disk fills, so that what is held
/// makes the database grow (a message delivered at once frees its pages
/// for the next, and a full disk would never show); once there is room
/// again they take them.
@Suite(.serialized) struct PushFullDiskTests {
    /// A 2-byte index, then 4,094 bytes: a page of the WAL each.
    static func body(_ index: Int) -> [UInt8] {
        [UInt8(index >> 8), UInt8(index & 0xff)] + [UInt8](repeating: UInt8(truncatingIfNeeded: index &* 7), count: 4_094)
    }

    static func pending(_ fixture: Fixture) throws -> DBusValue? {
        try fixture.call(PushServerEndToEndTests.push, "GetStatus").first?.vardictEntries?["pending-messages"]
    }

    @Test(.timeLimit(.minutes(3))) func anXMPPPushThatCannotBeStoredIsAnswered503AndArrivesWhenSentAgain() throws {
        guard let mount = try FaultTests.scratchDisk("a full disk under a push", { try ScratchMount.tmpfs(kilobytes: 8_192) })
        else { return }
        defer { mount.unmount() }
        let setup = try PushServerEndToEndTests.Setup(stateDirectory: mount.directory.appendingPathComponent("state"))
        defer { _ = setup.fixture.daemon.stop(signal: SIGKILL) }
        let app = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Full", refuseMessages: true)
        #expect(try app.register(token: "full-1").success == "REGISTRATION_SUCCEEDED")
        let endpoint = try app.waitFor("NewEndpoint") { $0.member == "NewEndpoint" }.endpoint
        let filler = mount.directory.appendingPathComponent("filler")
        try mount.fill(with: filler)

        var taken: [[UInt8]] = []
        var postponed: [UInt8]?
        for index in 0..<300 {
            let status = try setup.prosody.startPost(Self.body(index), to: endpoint).status()
            guard status == 201 else {
                #expect(status == 503, "a message that cannot be stored is 'try again later', not 'gone' (404)")
                postponed = Self.body(index)
                break
            }
            taken.append(Self.body(index))
        }
        let later = try #require(postponed, "300 messages of 4 KB were stored on a full disk of 8 MB")
        #expect(try Self.pending(setup.fixture) == .uint32(UInt32(taken.count)), "nothing of the refused one is kept")
        #expect(try setup.status()["state"] == .string("connected"))
        #expect(setup.fixture.daemon.log.contains("could not store a push message"))

        try FileManager.default.removeItem(at: filler)
        try app.takeMessagesFromNowOn()
        // The application server sends it again.
        #expect(try setup.prosody.startPost(later, to: endpoint).status() == 201)
        try waitUntil("every message delivered", seconds: 60) { try Self.pending(setup.fixture) == .uint32(0) }
        let delivered = app.records.filter { $0.member == "Message" }.map(\.message)
        #expect(delivered == taken + [later], "each once, in order")
    }

    @Test(.timeLimit(.minutes(3))) func anNtfyMessageThatCannotBeStoredIsReadAgainOnceTheDiskHasRoom() throws {
        guard let mount = try FaultTests.scratchDisk("a full disk under ntfy", { try ScratchMount.tmpfs(kilobytes: 8_192) })
        else { return }
        defer { mount.unmount() }
        let ntfy = try NtfyDoubleServer()
        let fixture = try Fixture(stateDirectory: mount.directory.appendingPathComponent("state"))
        defer { _ = fixture.daemon.stop(signal: SIGKILL) }
        try fixture.call(PushServerEndToEndTests.push, "SetServer", [.string("ntfy"), .string(ntfy.baseURL), .vardict([:])])
        let app = try ActivatableConnector(bus: fixture.bus, app: "org.example.FullNtfy", refuseMessages: true)
        #expect(try app.register(token: "full-ntfy-1").success == "REGISTRATION_SUCCEEDED")
        let endpoint = try app.waitFor("NewEndpoint") { $0.member == "NewEndpoint" }.endpoint
        try waitUntil("the stream open", seconds: 20) {
            try fixture.call(PushServerEndToEndTests.push, "GetStatus").first?.vardictEntries?["state"] == .string("connected")
        }
        let filler = mount.directory.appendingPathComponent("filler")
        try mount.fill(with: filler)

        // Published one at a time until one is not stored, then two more.
        var published: [[UInt8]] = []
        var failedAt: Int?
        for index in 0..<300 where failedAt.map({ index <= $0 + 2 }) ?? true {
            #expect(try NtfyEndToEndTests.post(Self.body(index), to: endpoint, in: fixture.bus.directory) == 200)
            published.append(Self.body(index))
            guard failedAt == nil else { continue }
            try waitUntil("message \(index) stored or refused by the disk", seconds: 20) {
                let stored = try Self.pending(fixture) == .uint32(UInt32(published.count))
                return stored || fixture.daemon.log.contains("could not store a push message")
            }
            if fixture.daemon.log.contains("could not store a push message") { failedAt = index }
        }
        #expect(failedAt != nil, "300 messages of 4 KB were stored on a full disk of 8 MB")

        try FileManager.default.removeItem(at: filler)
        try app.takeMessagesFromNowOn()
        // Nothing new is published: what was not stored comes again from
        // the server, and the app gets everything.
        try waitUntil("every message published delivered", seconds: 90) {
            Set(app.records.filter { $0.member == "Message" }.map(\.message)) == Set(published)
        }
        let delivered = app.records.filter { $0.member == "Message" }.map(\.message)
        #expect(delivered.count == published.count, "each once")
        try waitUntil("none held") { try Self.pending(fixture) == .uint32(0) }
    }
}
