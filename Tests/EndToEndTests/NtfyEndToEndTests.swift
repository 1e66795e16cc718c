import DBus
import Foundation
import Glibc
import NotifyTesting
import Testing

/// notifyd as a UnifiedPush distributor on an ntfy server. No real ntfy
/// server can be installed here: the server is the ntfy double
/// (`scripts/ntfy-double.py`, `docs/notes/unifiedpush/ntfy-double.md`),
/// which follows ntfy's published publish and subscribe API (`up=1`
/// publishing, base64 bodies, JSON lines, keepalives, `since=`). Apps are
/// D-Bus-activated python3-dbus connectors; an application server is a
/// `curl` POST to the endpoint.
@Suite(.serialized) struct NtfyEndToEndTests {
    static let push = "org.notifyd.Notifyd1.Push"

    /// POSTs `body` to `endpoint` as an application server does; the HTTP status.
    static func post(_ body: [UInt8], to endpoint: String, in directory: URL) throws -> Int {
        try StartedPost(body, to: endpoint, scratch: directory).status()
    }

    func setServer(_ fixture: Fixture, _ ntfy: NtfyDoubleServer) throws {
        try fixture.call(Self.push, "SetServer", [.string("ntfy"), .string(ntfy.baseURL), .vardict([:])])
    }

    func state(_ fixture: Fixture) throws -> DBusValue? {
        try fixture.call(Self.push, "GetStatus").first?.vardictEntries?["state"]
    }

    @Test func aBinaryPushThroughNtfyReachesTheAppByteForByte() throws {
        let ntfy = try NtfyDoubleServer()
        let fixture = try Fixture()
        try setServer(fixture, ntfy)
        let connector = try ActivatableConnector(bus: fixture.bus, app: "org.example.Chat")
        let answer = try connector.register(token: "chat-1", description: "Chat")
        #expect(answer.success == "REGISTRATION_SUCCEEDED", "\(answer)")
        let endpoint = try connector.waitFor("NewEndpoint") { $0.member == "NewEndpoint" }.endpoint
        #expect(endpoint.hasPrefix(ntfy.baseURL + "/up") && endpoint.hasSuffix("?up=1"), "\(endpoint)")
        try waitUntil("the stream open", seconds: 20) { try state(fixture) == .string("connected") }
        for body in [(0...255).map { UInt8($0) }, Array("a text message".utf8)] {
            let count = connector.records.count
            #expect(try Self.post(body, to: endpoint, in: fixture.bus.directory) == 200)
            let message = try connector.waitFor("the message", after: count) { $0.member == "Message" }
            #expect(message.message == body)
            #expect(!message.id.isEmpty, "ntfy's message id")
        }
    }

    /// Nothing published while notifyd was down is lost: the stream opened
    /// after the restart starts after the last message stored (`since=`),
    /// and what was stored but not taken is delivered at start-up.
    @Test func whatWasPublishedWhileNotifydWasDownArrivesAfterItsRestartOnce() throws {
        let ntfy = try NtfyDoubleServer()
        let fixture = try Fixture()
        try setServer(fixture, ntfy)
        let connector = try ActivatableConnector(bus: fixture.bus, app: "org.example.Mail")
        #expect(try connector.register(token: "mail-1").success == "REGISTRATION_SUCCEEDED")
        let endpoint = try connector.waitFor("NewEndpoint") { $0.member == "NewEndpoint" }.endpoint
        try waitUntil("the stream open", seconds: 20) { try state(fixture) == .string("connected") }
        #expect(try Self.post([1], to: endpoint, in: fixture.bus.directory) == 200)
        try connector.waitFor("the first message") { $0.member == "Message" && $0.message == [1] }
        try waitUntil("its delivery committed") {
            guard case .array(_, let rows)? = try fixture.call(Self.push, "ListRegistrations").first,
                case .structure(let fields)? = rows.first
            else { return false }
            return fields.last?.vardictEntries?["messages"] == .uint32(1)
        }
        _ = fixture.daemon.stop(signal: SIGKILL)
        try fixture.daemon.waitForName(present: false)
        #expect(try Self.post([2], to: endpoint, in: fixture.bus.directory) == 200)
        #expect(try Self.post([3], to: endpoint, in: fixture.bus.directory) == 200)
        try fixture.daemon.start()
        try connector.waitFor("the message published while notifyd was down") { $0.member == "Message" && $0.message == [3] }
        let messages = connector.records.filter { $0.member == "Message" }.map(\.message)
        #expect(messages == [[1], [2], [3]], "each once, in order")
    }

    @Test func badNtfySettingsAreRefusedInWords() throws {
        let fixture = try Fixture()
        for (address, options) in [
            ("http://ntfy.example.org", [String: DBusValue]()), ("ftp://ntfy.sh", [:]), ("https://ntfy.sh/?x=1", [:]),
            ("https://ntfy.sh", ["password": .string("x")]), ("https://ntfy.sh", ["port": .uint16(1)]),
            ("https://user:pw@ntfy.sh", [:]),
        ] {
            let error = #expect(throws: DBusError.self) {
                try fixture.call(Self.push, "SetServer", [.string("ntfy"), .string(address), .vardict(options)])
            }
            #expect(error?.name == "org.freedesktop.DBus.Error.InvalidArgs", "\(address) \(options)")
            #expect(error?.message.isEmpty == false)
        }
        #expect(try state(fixture) == .string("not-configured"))
    }
}
