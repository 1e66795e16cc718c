import DBus
import Foundation
import NotifyCore
import NotifyTesting
import Testing

/// notifyd as a UnifiedPush distributor, against the daemon in the test's
/// process and connectors on the same private bus: registrations through
/// Distributor2 and Distributor1 (stored before the answer, which with no
/// push server set is REGISTRATION_FAILED / ACTION_REQUIRED), listing
/// without tokens, across a restart, Unregister and RemoveRegistrations
/// reaching the app's connector, and bad input refused.
@Suite struct PushInterfaceTests {
    static let push = "org.notifyd.Notifyd1.Push"
    let daemon: InProcessDaemon

    init() throws {
        daemon = try InProcessDaemon()
    }

    func distributor(_ interface: String, _ member: String, _ arguments: [DBusValue]) throws -> [DBusValue] {
        try daemon.client.call(
            destination: "org.unifiedpush.Distributor.notifyd", path: "/org/unifiedpush/Distributor",
            interface: "org.unifiedpush.\(interface)", member: member, arguments)
    }

    func register(_ app: String, token: String, description: String = "") throws -> [DBusValue] {
        try distributor(
            "Distributor2", "Register",
            [.vardict(["service": .string(app), "token": .string(token), "description": .string(description)])])
    }

    func registrations(of daemon: InProcessDaemon? = nil) throws -> [[DBusValue]] {
        let value: DBusValue = try (daemon ?? self.daemon).call(Self.push, "ListRegistrations").decode(0)
        guard case .array(_, let rows) = value else { throw TestFailure("ListRegistrations: \(value)") }
        return rows.map { row in if case .structure(let fields) = row { fields } else { [] } }
    }

    static func entry(_ row: [DBusValue], _ key: String) -> DBusValue? {
        guard row.count == 3, case .dictionary(_, _, let entries) = row[2] else { return nil }
        for entry in entries where entry.key == .string(key) {
            if case .variant(let inner) = entry.value { return inner }
            return entry.value
        }
        return nil
    }

    @Test func aRegistrationIsStoredAndAnsweredActionRequiredWithNoPushServer() throws {
        let answer = try register("org.example.Chat", token: "4d2b7a0e-0000-4000-8000-000000000001", description: "Chat")
        #expect(answer == [.vardict(["success": .string("REGISTRATION_FAILED"), "reason": .string("ACTION_REQUIRED")])])
        let rows = try registrations()
        #expect(rows.count == 1)
        #expect(rows.first?.prefix(2) == [.string("org.example.Chat"), .string("Chat")])
        #expect(Self.entry(rows[0], "endpoint") == .string(""))
        #expect(Self.entry(rows[0], "pending") == .uint32(0))
        #expect(!"\(rows)".contains("4d2b7a0e"), "the token is never listed")
        let status: DBusValue = try daemon.call(Self.push, "GetStatus").decode(0)
        #expect("\(status)".contains("not-configured"))
        // The same token again is the same registration.
        _ = try register("org.example.Chat", token: "4d2b7a0e-0000-4000-8000-000000000001", description: "Chat, renamed")
        #expect(try registrations().map { $0[1] } == [.string("Chat, renamed")])
        // Distributor1 answers in its own form.
        let first = try distributor("Distributor1", "Register", [.string("org.example.News"), .string("t-news"), .string("News")])
        #expect(first == [.string("REGISTRATION_FAILED"), .string("ACTION_REQUIRED")])
        #expect(try registrations().count == 2)
    }

    @Test func registrationsSurviveARestart() throws {
        _ = try register("org.example.Chat", token: "t1", description: "Chat")
        let bus = daemon.bus
        let directory = daemon.stateDirectory
        _ = daemon.stop()
        let restarted = try InProcessDaemon(bus: bus, stateDirectory: directory)
        #expect(try registrations(of: restarted).map { $0[0] } == [.string("org.example.Chat")])
    }

    @Test func unregisterAndRemoveRegistrationsReachTheAppsConnector() throws {
        let chat = try FakeConnector(address: daemon.bus.address, app: "org.example.Chat")
        let news = try FakeConnector(address: daemon.bus.address, app: "org.example.News", version: 1)
        _ = try register("org.example.Chat", token: "chat-1")
        _ = try register("org.example.Chat", token: "chat-2")
        _ = try distributor("Distributor1", "Register", [.string("org.example.News"), .string("news-1"), .string("")])

        #expect(try distributor("Distributor2", "Unregister", [.vardict(["token": .string("chat-1")])]) == [.vardict([:])])
        let unregistered = try chat.waitForCalls(count: 1)
        #expect(unregistered == [FakeConnector.Call(member: "Unregistered", arguments: [.vardict(["token": .string("chat-1")])])])
        #expect(try distributor("Distributor2", "Unregister", [.vardict(["token": .string("unknown")])]) == [.vardict([:])])

        let removed = try daemon.call(Self.push, "RemoveRegistrations", [.string("org.example.News")])
        #expect(removed == [.uint32(1)])
        // Connector1's form: the token, since the user (not the app) asked.
        #expect(try news.waitForCalls(count: 1) == [FakeConnector.Call(member: "Unregistered", arguments: [.string("news-1")])])
        #expect(try registrations().count == 1)
        try daemon.sync()
        #expect(chat.calls.count == 1, "an unknown token is ignored")
    }

    @Test(arguments: [
        ("", "org.example.Chat", "InvalidArgs"),
        (String(repeating: "t", count: 101), "org.example.Chat", "InvalidArgs"),
        ("token", "not an app", "InvalidAppId"),
    ])
    func badInputIsRefusedAndNothingIsStored(_ token: String, _ app: String, _ error: String) throws {
        let failure = #expect(throws: DBusError.self) { try register(app, token: token) }
        #expect(failure?.name.hasSuffix(error) == true, "\(String(describing: failure))")
        let missing = #expect(throws: DBusError.self) {
            try distributor("Distributor2", "Register", [.vardict(["service": .string("org.example.Chat")])])
        }
        #expect(missing?.message.contains("'token' is missing") == true)
        let wrongType = #expect(throws: DBusError.self) {
            try distributor(
                "Distributor2", "Register", [.vardict(["service": .uint32(1), "token": .string("t")])])
        }
        #expect(wrongType?.name.hasSuffix("InvalidArgs") == true)
        #expect(try registrations().isEmpty)
    }
}
