import NotifyPush
import NotifyTesting
import Testing

/// The client against a server that sends what no real one should.
@Suite("XMPPPushClient against a hostile server")
struct HostileServerTests {
    @Test("malformed, oversized and foreign pushes are refused; a postponed one, and one over the open pushes' limit, are answered 'later'; a stanza cut off by a close is a disconnect")
    func refusesWhatItCannotTake() throws {
        let server = try HostileXMPPServer()
        let recorder = try RecordedPushClient()
        recorder.client.configure(
            try XMPPPushSettings(jid: "alice@localhost", password: "pw", host: "127.0.0.1", port: server.port))
        _ = try recorder.waitForState("connected in plain text on loopback") { $0 == .connected }
        let push = try recorder.waitForPush()
        #expect(push.id == PushID("largest"))
        #expect(push.body == [UInt8](repeating: UInt8(ascii: "y"), count: 4096))
        recorder.client.acknowledge(push.id)
        var postponed: PushID?
        try waitUntil("the second well-formed push") {
            postponed = recorder.recorded.lazy.compactMap { event -> PushID? in
                if case .push(let message) = event, message.id == PushID("postponed") { return message.id }
                return nil
            }.first
            return postponed != nil
        }
        recorder.client.postpone(postponed!)
        try waitUntil("the server cut a stanza and closed") { server.log.contains("CLOSED") }
        _ = try recorder.waitForState("disconnected") {
            if case .disconnected = $0 { return true }
            return false
        }
        let answers = server.log.split(separator: "\n").filter { $0.hasPrefix("ANSWER") }
        #expect(answers == [
            "ANSWER too-large error localhost cancel item-not-found",
            "ANSWER not-base64 error localhost cancel item-not-found",
            "ANSWER no-body error localhost cancel item-not-found",
            "ANSWER bad-application error localhost cancel item-not-found",
            "ANSWER largest result localhost ",
            // A push the client could not store: its sender is to try again (503).
            "ANSWER postponed error localhost wait recipient-unavailable",
            // One more than may wait at once: 503 too, not 404 ("gone").
            "ANSWER flood-256 error localhost wait recipient-unavailable",
        ])
        #expect(recorder.recorded.filter { if case .push = $0 { true } else { false } }.count == 2 + 256)
    }
}
