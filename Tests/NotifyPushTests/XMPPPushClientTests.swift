import Glibc
import NotifyPush
import NotifyTesting
import NotifyTestingCore
import Testing

/// The client against a real, private Prosody with mod_unified_push.
@Suite("XMPPPushClient against Prosody", .serialized)
struct XMPPPushClientTests {
    static let application = [UInt8](repeating: 0x41, count: 32)
    static let instance = (0..<32).map { UInt8($0) }

    static func settings(_ server: ProsodyServer, password: String = ProsodyServer.password, caFile: String? = nil)
        throws -> XMPPPushSettings
    {
        try XMPPPushSettings(
            jid: server.jid, password: password, host: "127.0.0.1", port: server.clientPort,
            caFile: caFile ?? server.caFile)
    }

    /// A client connected to `server` and registered: its endpoint.
    static func connectedClient(_ server: ProsodyServer) throws -> (RecordedPushClient, String) {
        let recorder = try RecordedPushClient()
        recorder.client.configure(try settings(server))
        _ = try recorder.waitForState("connected") { $0 == .connected }
        let endpoint = try recorder.registerEndpoint(application: application, instance: instance)
        return (recorder, endpoint)
    }

    @Test("connects over STARTTLS verified against the test CA, registers, and gets an endpoint")
    func connectsAndRegisters() throws {
        let server = try ProsodyServer()
        let (recorder, endpoint) = try Self.connectedClient(server)
        #expect(endpoint.hasPrefix("http://localhost:\(server.httpPort)/push/"))
        #expect(recorder.recorded.first == .state(.connecting))
        let expiration = try recorder.wait("the registration") { event -> String? in
            if case .registered(_, _, _, let expiration) = event { return expiration }
            return nil
        }
        #expect(expiration.hasSuffix("Z"))
        // A registration that is not 32 bytes never leaves the client.
        recorder.client.register(application: [1, 2, 3], instance: Self.instance)
        let reason = try recorder.wait("a refused registration") { event -> String? in
            if case .registrationFailed([1, 2, 3], _, let reason) = event { return reason }
            return nil
        }
        #expect(reason.contains("32 bytes"))
    }

    @Test("a binary push arrives with exactly its bytes; acknowledged, the sender gets 201")
    func binaryPushAcknowledged() throws {
        let server = try ProsodyServer()
        let (recorder, endpoint) = try Self.connectedClient(server)
        let allBytes = (0...255).map { UInt8($0) }
        let largest = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        for body in [allBytes, largest] {
            let before = recorder.recorded.count
            let post = try server.startPost(body, to: endpoint)
            let push = try recorder.waitForPush(after: before)
            #expect(push.body == body)
            #expect(push.application == Self.application)
            #expect(push.instance == Self.instance)
            recorder.client.acknowledge(push.id)
            #expect(try post.status() == 201)
        }
    }

    @Test("connected and idle, the client's thread sleeps: no wake-up in 3 seconds; a push still wakes it at once")
    func idleMeansIdle() throws {
        let server = try ProsodyServer()
        let (recorder, endpoint) = try Self.connectedClient(server)
        let thread = recorder.client.threadID
        #expect(ProcReader.readFile("/proc/self/task/\(thread)/comm")?.hasPrefix("notifyd-xmpp") == true)
        #expect(try ThreadWakeups(thread: thread).during(seconds: 3) <= 1)
        let count = recorder.recorded.count
        let post = try server.startPost([7], to: endpoint)
        let push = try recorder.waitForPush(after: count)
        recorder.client.acknowledge(push.id)
        #expect(try post.status() == 201)
    }

    @Test("a refused push: the sender gets 404")
    func refusedPush() throws {
        let server = try ProsodyServer()
        let (recorder, endpoint) = try Self.connectedClient(server)
        let post = try server.startPost(Array("gone".utf8), to: endpoint)
        let push = try recorder.waitForPush()
        recorder.client.refuse(push.id)
        #expect(try post.status() == 404)
    }

    @Test("a wrong password: authenticationFailed, and no attempt again until new settings")
    func wrongPassword() throws {
        let server = try ProsodyServer()
        let recorder = try RecordedPushClient()
        recorder.client.configure(try Self.settings(server, password: "wrong"))
        let state = try recorder.waitForState("authentication failed") {
            if case .authenticationFailed = $0 { return true }
            return false
        }
        #expect("\(state)".contains("password"))
        let count = recorder.recorded.count
        // The absence of attempts is what is tested: the client is given
        // time in which the backoff would have tried twice (after 1 and 3 s).
        recorder.client.networkReturned()
        try? waitUntil("another attempt (there must be none)", seconds: 4) { recorder.recorded.count > count }
        #expect(recorder.recorded.count == count)
        // New settings are tried at once.
        recorder.client.configure(try Self.settings(server))
        _ = try recorder.waitForState("connected with the right password", after: count) { $0 == .connected }
    }

    @Test("a CA file that did not sign the server's certificate: certificateRejected, with the reason")
    func certificateRejected() throws {
        let server = try ProsodyServer()
        let recorder = try RecordedPushClient()
        recorder.client.configure(try Self.settings(server, caFile: try server.unrelatedCA()))
        let state = try recorder.waitForState("the certificate rejected") {
            if case .certificateRejected = $0 { return true }
            return false
        }
        guard case .certificateRejected(let reason) = state else { return }
        #expect(reason.contains("unable to get local issuer certificate"))
        #expect(!recorder.recorded.contains(.state(.connected)))
    }

    @Test("Prosody stopped mid-session: disconnected; started again: the client reconnects by itself and pushes arrive")
    func reconnectsAfterServerRestart() throws {
        let server = try ProsodyServer()
        let (recorder, endpoint) = try Self.connectedClient(server)
        let count = recorder.recorded.count
        server.stop()
        _ = try recorder.waitForState("disconnected", after: count) {
            if case .disconnected = $0 { return true }
            return false
        }
        try server.start()
        let reconnected = recorder.recorded.count
        _ = try recorder.waitForState("connected again", after: reconnected, seconds: 30) { $0 == .connected }
        // The endpoint is bound to the full JID: it still reaches the client.
        let before = recorder.recorded.count
        let post = try server.startPost([1, 2, 3], to: endpoint)
        let push = try recorder.waitForPush(after: before)
        #expect(push.body == [1, 2, 3])
        recorder.client.acknowledge(push.id)
        #expect(try post.status() == 201)
    }

    @Test("networkReturned connects at once instead of waiting out the backoff")
    func networkReturnedConnectsAtOnce() throws {
        let server = try ProsodyServer()
        let (recorder, _) = try Self.connectedClient(server)
        server.stop()
        // Three failed attempts (after 1, 2 and 4 s): the next wait is 8 s.
        try waitUntil("three attempts refused") {
            recorder.recorded.filter { "\($0)".contains("could not be reached") }.count >= 3
        }
        try server.start()
        let count = recorder.recorded.count
        let asked = ContinuousClock.now
        recorder.client.networkReturned()
        _ = try recorder.waitForState("connected again", after: count, seconds: 3) { $0 == .connected }
        #expect(ContinuousClock.now - asked < .seconds(3))
    }
}
