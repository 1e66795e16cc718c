import NotifyPush
import Testing

@Suite("ReconnectBackoff")
struct ReconnectBackoffTests {
    @Test("waits 1, 2, 4 ... seconds after each failure, at most 5 minutes")
    func growsToFiveMinutes() {
        var backoff = ReconnectBackoff()
        let waits = (0..<12).map { _ in backoff.failed() }
        #expect(waits == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300].map { Duration.seconds($0) })
        #expect(backoff.failures == 12)
    }

    @Test("a success starts over from 1 second")
    func resetStartsOver() {
        var backoff = ReconnectBackoff()
        for _ in 0..<5 { _ = backoff.failed() }
        backoff.reset()
        #expect(backoff.failures == 0)
        #expect(backoff.failed() == .seconds(1))
    }

    @Test("never more than 5 minutes, however many failures")
    func boundedAfterManyFailures() {
        var backoff = ReconnectBackoff()
        for _ in 0..<10_000 { _ = backoff.failed() }
        #expect(backoff.nextDelay == .seconds(300))
    }
}

@Suite("XMPPPushSettings")
struct XMPPPushSettingsTests {
    @Test("only user@domain is a JID; plain text only to loopback")
    func validation() throws {
        #expect(throws: XMPPPushError.self) { try XMPPPushSettings(jid: "alice", password: "x") }
        #expect(throws: XMPPPushError.self) { try XMPPPushSettings(jid: "alice@example.org/phone", password: "x") }
        #expect(throws: XMPPPushError.self) { try XMPPPushSettings(jid: "alice@example.org", password: "") }
        let remote = try XMPPPushSettings(jid: "alice@example.org", password: "x")
        #expect(!remote.isLoopback)
        #expect(remote.fullJID == "alice@example.org/notifyd")
        #expect(try XMPPPushSettings(jid: "a@example.org", password: "x", host: "127.0.0.2").isLoopback)
        #expect(try XMPPPushSettings(jid: "a@example.org", password: "x", host: "::1").isLoopback)
        #expect(try XMPPPushSettings(jid: "a@localhost", password: "x").isLoopback)
        #expect(!(try XMPPPushSettings(jid: "a@localhost", password: "x", host: "10.0.0.1").isLoopback))
    }
}
