import DBus
import Foundation
import Glibc
import NotifyTesting
import NotifyTestingCore
import Testing

/// notifyd as a UnifiedPush distributor with a real push server: a private
/// Prosody with `mod_unified_push`, connected over STARTTLS verified
/// against a CA made for the test. Apps are separate python3-dbus
/// connectors that D-Bus starts on demand (``ActivatableConnector``);
/// pushes are POSTed by `curl` processes, as an application server does.
@Suite(.serialized) struct PushServerEndToEndTests {
    static let push = "org.notifyd.Notifyd1.Push"

    /// notifyd, Prosody, and notifyd set to the Prosody account, connected.
    final class Setup: Sendable {
        let prosody: ProsodyServer
        let fixture: Fixture

        init(extraEnvironment: [String: String] = [:], registrationSeconds: Int = 3_600, stateDirectory: URL? = nil) throws {
            prosody = try ProsodyServer(registrationSeconds: registrationSeconds)
            fixture = try Fixture(extraEnvironment: extraEnvironment, stateDirectory: stateDirectory)
            try fixture.call(
                PushServerEndToEndTests.push, "SetServer",
                [
                    .string("xmpp"), .string(prosody.jid),
                    .vardict([
                        "password": .string(ProsodyServer.password), "host": .string("127.0.0.1"),
                        "port": .uint16(prosody.clientPort), "ca-file": .string(prosody.caFile),
                    ]),
                ])
            try waitUntil("notifyd connected to Prosody", seconds: 20) { try self.status()["state"] == .string("connected") }
        }

        func status() throws -> [String: DBusValue] {
            try fixture.call(PushServerEndToEndTests.push, "GetStatus").first?.vardictEntries ?? [:]
        }

        /// The details ListRegistrations gives the registration of `app`.
        func details(of app: String) throws -> [String: DBusValue] {
            guard case .array(_, let rows)? = try fixture.call(PushServerEndToEndTests.push, "ListRegistrations").first else { return [:] }
            for case .structure(let fields) in rows where fields.first == .string(app) {
                return fields.last?.vardictEntries ?? [:]
            }
            return [:]
        }
    }

    @Test func aPushReachesAConnectorThatDBusStartsByteForByte() throws {
        let setup = try Setup()
        let connector = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Chat")
        let answer = try connector.register(token: "chat-token-1", description: "Chat")
        #expect(answer.success == "REGISTRATION_SUCCEEDED" && answer.reason == "", "\(answer)")
        let endpoint = try connector.waitFor("NewEndpoint") { $0.member == "NewEndpoint" }
        #expect(endpoint.token == "chat-token-1")
        #expect(endpoint.endpoint.hasPrefix("http://localhost:\(setup.prosody.httpPort)/push/"), "\(endpoint.endpoint)")
        #expect(try setup.details(of: "org.example.Chat")["endpoint"] == .string(endpoint.endpoint))

        for body in [(0...255).map { UInt8($0) }, (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }] {
            let count = connector.records.count
            let post = try setup.prosody.startPost(body, to: endpoint.endpoint)
            #expect(try post.status() == 201)
            let message = try connector.waitFor("the message", after: count) { $0.member == "Message" }
            #expect(message.message == body)
            #expect(message.token == "chat-token-1")
            #expect(!message.id.isEmpty)
        }
        try waitUntil("both messages counted as delivered") {
            try setup.details(of: "org.example.Chat")["messages"] == .uint32(2)
        }
        #expect(try setup.details(of: "org.example.Chat")["pending"] == .uint32(0))

        // The app crashed: the next push starts it again.
        try connector.kill()
        let count = connector.records.count
        let post = try setup.prosody.startPost([42], to: endpoint.endpoint)
        #expect(try post.status() == 201)
        try connector.waitFor("a message after its restart", after: count) { $0.member == "Message" && $0.message == [42] }
        #expect(connector.records.filter { $0.member == "started" }.count == 2)
    }

    /// A real application server: pywebpush encrypts (RFC 8291) and signs
    /// (VAPID) for the app's subscription; notifyd hands the ciphertext on
    /// untouched, and the app decrypts it with `http_ece`.
    @Test func aWebPushFromARealSenderIsDecryptedByTheApp() throws {
        let setup = try Setup()
        let directory = setup.fixture.bus.directory.appendingPathComponent("webpush")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let subscription = try WebPushSender.makeSubscription(in: directory)
        #expect(subscription.vapidPublicKey.count == 87)
        let connector = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Tuba", webPush: subscription)
        let answer = try connector.register(token: "tuba-1", description: "Tuba", vapid: subscription.vapidPublicKey)
        #expect(answer.success == "REGISTRATION_SUCCEEDED", "\(answer)")
        let endpoint = try connector.waitFor("NewEndpoint") { $0.member == "NewEndpoint" }.endpoint
        let plaintext = Array(#"{"title":"Nouveau message","body":"Ça marche ✓"}"#.utf8)
        #expect(try WebPushSender.send(plaintext, to: endpoint, for: subscription) == 201)
        let message = try connector.waitFor("the Web Push message") { $0.member == "Message" }
        #expect(message.plaintext == plaintext)
        #expect(message.message.count > plaintext.count, "the app got the ciphertext, not the text")
        #expect(!String(decoding: message.message, as: UTF8.self).contains("Nouveau"))
    }

    @Test func whenProsodyRestartsNotifydSaysSoThenReconnectsByItselfAndTheEndpointStillWorks() throws {
        let setup = try Setup()
        let connector = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Steady")
        #expect(try connector.register(token: "steady-1").success == "REGISTRATION_SUCCEEDED")
        let endpoint = try connector.waitFor("NewEndpoint") { $0.member == "NewEndpoint" }.endpoint
        setup.prosody.stop()
        var status: [String: DBusValue] = [:]
        try waitUntil("disconnected", seconds: 20) {
            status = try setup.status()
            return status["state"] == .string("disconnected")
        }
        #expect("\(status["reason"] ?? .string(""))".contains("tries again"), "\(status)")
        // A registration now is kept and answered NETWORK.
        let other = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Later")
        let later = try other.register(token: "later-1")
        #expect(later.success == "REGISTRATION_FAILED" && later.reason == "NETWORK", "\(later)")
        try setup.prosody.start()
        try waitUntil("connected again", seconds: 30) { try setup.status()["state"] == .string("connected") }
        // The registration made meanwhile is completed with NewEndpoint.
        try other.waitFor("its endpoint once connected") { $0.member == "NewEndpoint" }
        let count = connector.records.count
        #expect(try setup.prosody.startPost([7, 7], to: endpoint).status() == 201)
        try connector.waitFor("a message after the restart", after: count) { $0.member == "Message" && $0.message == [7, 7] }
    }

    /// SPEC: a message not taken is retried "when the app's name appears":
    /// the fixed app is started by someone else (here D-Bus, asked to by a
    /// short-lived dbus-send), and never registers again.
    @Test func aHeldMessageIsDeliveredWhenTheAppsNameAppears() throws {
        let setup = try Setup()
        let failing = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Late", refuseMessages: true)
        #expect(try failing.register(token: "late-1").success == "REGISTRATION_SUCCEEDED")
        let endpoint = try failing.waitFor("NewEndpoint") { $0.member == "NewEndpoint" }.endpoint
        #expect(try setup.prosody.startPost([4, 2], to: endpoint).status() == 201)
        try waitUntil("the message held") { try setup.details(of: "org.example.Late")["pending"] == .uint32(1) }
        try failing.kill()
        let fixed = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Late")
        let start = try runProcess(
            "/usr/bin/dbus-send",
            ["--bus=\(setup.fixture.bus.address)", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
             "org.freedesktop.DBus.StartServiceByName", "string:org.example.Late", "uint32:0"])
        #expect(start.status == 0, "\(start.stderr)")
        let message = try fixed.waitFor("the held message once its name appeared") { $0.member == "Message" }
        #expect(message.message == [4, 2])
    }

    /// Each delivery holds off sleep through the logind lock that tasks use
    /// (a fake logind on a system bus of the test's), released once the app
    /// answered.
    /// Connector1's `Message` has no answer: its delivery ends as soon as
    /// the bus has it, and the lock must be released all the same.
    @Test(arguments: [2, 1]) func aDeliveryHoldsOffSleepUntilTheAppAnswers(connectorVersion: Int) throws {
        let systemBus = try TestBus()
        let logind = try FakeLogind(address: systemBus.address)
        let setup = try Setup(extraEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": systemBus.address])
        let connector = try ActivatableConnector(
            bus: setup.fixture.bus, app: "org.example.Awake", version: connectorVersion)
        #expect(try connector.register(token: "awake-1").success == "REGISTRATION_SUCCEEDED")
        let endpoint = try connector.waitFor("NewEndpoint") { $0.member == "NewEndpoint" }.endpoint
        #expect(logind.calls.isEmpty, "no lock before a message")
        #expect(try setup.prosody.startPost([1], to: endpoint).status() == 201)
        try connector.waitFor("the message") { $0.member == "Message" }
        try waitUntil("the lock taken for the delivery") {
            logind.calls.contains { $0.what == "sleep" && $0.why == "An app is handling a push message" }
        }
        try waitUntil("the lock released once the app answered") { logind.held.isEmpty }
        #expect(try setup.fixture.property("Inhibiting") == .boolean(false))
    }

    /// Replacing a server that stopped answering does not wait for its
    /// disconnect: the bus loop answers at once (the old link ends on its
    /// own thread).
    @Test func settingAnotherServerWhileTheOldOneIsFrozenAnswersAtOnce() throws {
        let setup = try Setup()
        setup.prosody.freeze()
        defer { setup.prosody.freeze(false) }
        let nanoseconds = try MonotonicClock.measure {
            try setup.fixture.call(Self.push, "SetServer", [.string("none"), .string(""), .vardict([:])])
        }
        let seconds = Double(nanoseconds) / 1e9
        // The old client waits up to 2 s for a frozen server's close.
        #expect(seconds < 1.5, "SetServer took \(seconds) s")
        #expect(try setup.status()["state"] == .string("not-configured"))
    }

    @Test func aMessageTheAppDoesNotTakeIsKeptAndDeliveredWhenItRegistersAgain() throws {
        let setup = try Setup()
        let failing = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Flaky", refuseMessages: true)
        #expect(try failing.register(token: "flaky-1").success == "REGISTRATION_SUCCEEDED")
        let endpoint = try failing.waitFor("NewEndpoint") { $0.member == "NewEndpoint" }.endpoint
        // Stored, so the server hears 201, though the app fails it.
        #expect(try setup.prosody.startPost([1, 2, 3], to: endpoint).status() == 201)
        try waitUntil("the message held for the app") { try setup.details(of: "org.example.Flaky")["pending"] == .uint32(1) }
        #expect(try setup.status()["pending-messages"] == .uint32(1))
        // The app is fixed (its new version installed) and registers again.
        try failing.kill()
        let fixed = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Flaky")
        #expect(try fixed.register(token: "flaky-1").success == "REGISTRATION_SUCCEEDED")
        let message = try fixed.waitFor("the held message") { $0.member == "Message" }
        #expect(message.message == [1, 2, 3])
        try waitUntil("no message held") { try setup.details(of: "org.example.Flaky")["pending"] == .uint32(0) }
    }

    @Test func aMessageAcknowledgedBeforeAKillIsDeliveredAfterTheRestart() throws {
        let setup = try Setup()
        let failing = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Mail", refuseMessages: true)
        #expect(try failing.register(token: "mail-1").success == "REGISTRATION_SUCCEEDED")
        let endpoint = try failing.waitFor("NewEndpoint") { $0.member == "NewEndpoint" }.endpoint
        #expect(try setup.prosody.startPost(Array("hello".utf8), to: endpoint).status() == 201)
        try waitUntil("the message held") { try setup.details(of: "org.example.Mail")["pending"] == .uint32(1) }
        try failing.kill()
        let fixed = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Mail")
        try setup.fixture.daemon.crashAndRestart()
        let message = try fixed.waitFor("the message after notifyd's restart") { $0.member == "Message" }
        #expect(message.message == Array("hello".utf8))
        // The restarted notifyd connects again by itself, and the endpoint still works.
        try waitUntil("connected again", seconds: 20) { try setup.status()["state"] == .string("connected") }
        let count = fixed.records.count
        #expect(try setup.prosody.startPost([9], to: endpoint).status() == 201)
        try fixed.waitFor("a new message", after: count) { $0.member == "Message" && $0.message == [9] }
    }

    @Test func unregisteringTellsTheAppAndThePushServerRefusesTheOldEndpoint() throws {
        let setup = try Setup()
        let connector = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.News", version: 1)
        #expect(try connector.register(token: "news-1").success == "REGISTRATION_SUCCEEDED")
        let endpoint = try connector.waitFor("NewEndpoint") { $0.member == "NewEndpoint" }.endpoint
        #expect(try setup.prosody.startPost([5], to: endpoint).status() == 201)
        try connector.waitFor("the message through Connector1") { $0.member == "Message" && $0.message == [5] }
        try setup.fixture.client.call(
            destination: "org.unifiedpush.Distributor.notifyd", path: "/org/unifiedpush/Distributor",
            interface: "org.unifiedpush.Distributor1", member: "Unregister", [.string("news-1")])
        try connector.waitFor("Unregistered") { $0.member == "Unregistered" }
        #expect(try setup.prosody.startPost([6], to: endpoint).status() == 404)
    }
}
