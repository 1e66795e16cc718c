import Glibc
import NotifyPush
import NotifyTesting
import NotifyTestingCore
import Testing

/// The client against the ntfy double (NotifyTesting's NtfyDoubleServer:
/// ntfy's publish and JSON-stream API, see docs/notes/unifiedpush/ntfy-double.md).
@Suite("NtfyPushClient against the ntfy double", .serialized)
struct NtfyPushClientTests {
    /// A client following `topics` on `server`, connected.
    static func connectedClient(
        _ server: NtfyDoubleServer, topics: Set<String>, since: String? = nil,
        stallTimeout: Duration = NtfySettings.defaultStallTimeout
    ) throws -> RecordedNtfyClient {
        let recorder = try RecordedNtfyClient()
        recorder.client.follow(topics: topics, since: since)
        recorder.client.configure(
            try NtfySettings(baseURL: server.baseURL, caFile: server.caFile, stallTimeout: stallTimeout))
        try recorder.waitUntilConnected()
        return recorder
    }

    @Test("connected: binary 0...255, exactly 4096 bytes and UTF-8 text arrive as sent, with ntfy's ids")
    func receivesBodiesExactly() throws {
        let server = try NtfyDoubleServer()
        let topic = NtfyPushClient.newTopic()
        let recorder = try Self.connectedClient(server, topics: [topic])
        #expect(recorder.recorded == [
            .state(.disconnected(reason: "no ntfy server is configured")), .state(.connecting), .state(.connected),
        ])
        #expect(ProcReader.readFile("/proc/self/task/\(recorder.client.threadID)/comm")?.hasPrefix("notifyd-ntfy") == true)
        let allBytes = (0...255).map { UInt8($0) }
        let largest = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let text = Array("héllo ✓ <&> \"quoted\"\n\ttabbed  ".utf8)
        for body in [allBytes, largest, text] {
            let id = try server.publish(body, to: topic)
            let message = try recorder.waitForMessage(id: id)
            #expect(message.topic == topic)
            #expect(message.body == body)
        }
        #expect(server.subscriptions == ["/\(topic)/json"])
        #expect(recorder.dropped.isEmpty)
    }

    @Test("several topics share one stream; each message comes with its topic")
    func severalTopicsOneStream() throws {
        let server = try NtfyDoubleServer()
        let topics = (0..<3).map { _ in NtfyPushClient.newTopic() }
        let recorder = try Self.connectedClient(server, topics: Set(topics))
        #expect(server.subscriptions == ["/\(topics.sorted().joined(separator: ","))/json"])
        #expect(try server.openStreams() == 1)
        for (index, topic) in topics.enumerated() {
            let id = try server.publish([UInt8(index)], to: topic)
            #expect(try recorder.waitForMessage(id: id) == (topic, [UInt8(index)]))
        }
    }

    @Test("follow() with another set reopens the one stream from the last message; no topics, no stream")
    func followReopens() throws {
        let server = try NtfyDoubleServer()
        let first = NtfyPushClient.newTopic()
        let second = NtfyPushClient.newTopic()
        let recorder = try Self.connectedClient(server, topics: [first])
        let id = try server.publish([1], to: first)
        _ = try recorder.waitForMessage(id: id)
        let count = recorder.recorded.count
        recorder.client.follow(topics: [first, second], since: nil)
        try recorder.waitUntilConnected(after: count)
        #expect(server.subscriptions.last == "/\([first, second].sorted().joined(separator: ","))/json?since=\(id)")
        let later = try server.publish([2], to: second)
        #expect(try recorder.waitForMessage(id: later) == (second, [2]))
        try waitUntil("one stream open") { try server.openStreams() == 1 }
        // The same set again changes nothing.
        recorder.client.follow(topics: [second, first], since: nil)
        recorder.client.follow(topics: [], since: nil)
        let reason = try recorder.waitForDisconnection(after: count)
        #expect(reason.contains("no topic"))
        try waitUntil("no stream open") { try server.openStreams() == 0 }
        #expect(server.subscriptions.count == 2)
    }

    @Test("the server restarted: the client reconnects by itself with since= and gets what was published meanwhile, once")
    func catchesUpAfterRestart() throws {
        let server = try NtfyDoubleServer()
        let topic = NtfyPushClient.newTopic()
        let recorder = try Self.connectedClient(server, topics: [topic])
        let before = try server.publish([1], to: topic)
        _ = try recorder.waitForMessage(id: before)
        let count = recorder.recorded.count
        server.stop()
        let reason = try recorder.waitForDisconnection(after: count)
        #expect(reason.contains("lost"))
        // Back on the same port, but refusing subscriptions until the
        // message is published: it can only come by the replay.
        try server.start(subscriptionsDown: true)
        let meanwhile = try server.publish(Array("meanwhile".utf8), to: topic)
        try server.setSubscriptionsDown(false)
        try recorder.waitUntilConnected(after: count, seconds: 30)
        #expect(try recorder.waitForMessage(id: meanwhile).body == Array("meanwhile".utf8))
        #expect(server.subscriptions.last == "/\(topic)/json?since=\(before)")
        // A message after it, as a barrier: the replayed one came once.
        let after = try server.publish([3], to: topic)
        _ = try recorder.waitForMessage(id: after)
        #expect(recorder.messages.map(\.id) == [before, meanwhile, after])
    }

    /// A client connected to `server`, following one new topic.
    static func followingNewTopic(on server: NtfyDoubleServer) throws -> (topic: String, recorder: RecordedNtfyClient) {
        let topic = NtfyPushClient.newTopic()
        return (topic, try connectedClient(server, topics: [topic]))
    }

    @Test("catchUp: the stream is read again after the last message stored; only those not stored come again")
    func catchUpBringsBackOnlyWhatWasNotStored() throws {
        let server = try NtfyDoubleServer()
        let (topic, recorder) = try Self.followingNewTopic(on: server)
        let stored = try server.publish([1], to: topic)
        let lost = try server.publish([2], to: topic)
        let storedAfter = try server.publish([3], to: topic)
        _ = try recorder.waitForMessage(id: storedAfter)
        let count = recorder.recorded.count
        // The owner stored 1 and 3, not 2 (its disk was full).
        recorder.client.catchUp(since: stored, forgetting: [lost])
        try recorder.waitUntilConnected(after: count, seconds: 30)
        let again = try recorder.waitForMessage(id: lost, after: count)
        #expect(again.body == [2])
        #expect(server.subscriptions.last == "/\(topic)/json?since=\(stored)")
        let after = try server.publish([4], to: topic)
        _ = try recorder.waitForMessage(id: after)
        #expect(recorder.messages.map(\.id) == [stored, lost, storedAfter, lost, after], "3 is not taken twice")
    }

    @Test("catchUp with nothing stored yet: everything the server keeps is asked for")
    func catchUpWithNothingStoredAsksForAll() throws {
        let server = try NtfyDoubleServer()
        let (topic, recorder) = try Self.followingNewTopic(on: server)
        let lost = try server.publish([9], to: topic)
        _ = try recorder.waitForMessage(id: lost)
        let count = recorder.recorded.count
        recorder.client.catchUp(since: nil, forgetting: [lost])
        #expect(try recorder.waitForMessage(id: lost, after: count).body == [9])
        #expect(server.subscriptions.last == "/\(topic)/json?since=all")
    }

    @Test("a cursor stored before a restart of notifyd: the first stream starts after it")
    func startsFromTheStoredCursor() throws {
        let server = try NtfyDoubleServer()
        let topic = NtfyPushClient.newTopic()
        let stored = try server.publish([1], to: topic)
        let missed = try server.publish([2], to: topic)
        let recorder = try Self.connectedClient(server, topics: [topic], since: stored)
        #expect(try recorder.waitForMessage(id: missed).body == [2])
        #expect(server.subscriptions == ["/\(topic)/json?since=\(stored)"])
        let later = try server.publish([3], to: topic)
        _ = try recorder.waitForMessage(id: later)
        #expect(recorder.messages.map(\.id) == [missed, later])
    }

    @Test("a message for a topic not followed, and garbage lines, are dropped in words; the stream goes on")
    func dropsWhatItCannotTake() throws {
        let server = try NtfyDoubleServer()
        let topic = NtfyPushClient.newTopic()
        let recorder = try Self.connectedClient(server, topics: [topic])
        let tooLarge = String(repeating: "QUFB", count: 1366)  // 4098 bytes once decoded
        let lines = [
            #"{"id":"aaaaaaaaaaaa","time":1,"event":"message","topic":"upOtherTopic12","message":"hi"}"#,
            "not json at all",
            #"{"id":"bbbbbbbbbbbb","time":1,"event":"message","topic":"\#(topic)","message":"\#(tooLarge)","encoding":"base64"}"#,
            #"{"id":"cccccccccccc","time":1,"event":"message","topic":"\#(topic)","message":"%%%","encoding":"base64"}"#,
            #"{"id":"dddddddddddd","time":1,"event":"message","topic":"\#(topic)","message":"x","encoding":"rot13"}"#,
            #"{"event":"message"}"#,
            #"{"id":"eeeeeeeeeeee","time":1,"event":"message","topic":"\#(topic)","message":"\ud800"}"#,
            String(repeating: "x", count: 70_000),
            "",
            #"{"id":"ffffffffffff","time":1,"event":"poll_request","topic":"\#(topic)"}"#,
        ]
        #expect(try server.writeRaw(Array((lines.joined(separator: "\n") + "\n").utf8)) == 1)
        let id = try server.publish([42], to: topic)
        #expect(try recorder.waitForMessage(id: id).body == [42])
        #expect(recorder.messages.map(\.id) == [id])
        let dropped = recorder.dropped
        #expect(dropped.count == 8)
        #expect(dropped.first?.contains("upOtherTopic12, which is not followed") == true)
        #expect(dropped.contains { $0.contains("longer than 65536 bytes") })
        #expect(dropped.contains { $0.contains("more than 4096") })
        // Connected all along: no state after the first connection.
        let connected = try #require(recorder.recorded.firstIndex(of: .state(.connected)))
        #expect(!recorder.recorded[(connected + 1)...].contains { if case .state = $0 { true } else { false } })
    }

    @Test("connected and idle, the client's thread sleeps: no wake-up in 3 seconds; a message still wakes it")
    func idleMeansIdle() throws {
        let server = try NtfyDoubleServer(keepaliveSeconds: 60)
        let topic = NtfyPushClient.newTopic()
        let recorder = try Self.connectedClient(server, topics: [topic])
        let wakeups = ThreadWakeups(thread: recorder.client.threadID)
        // libcurl's timer of the connection's first 200 ms (happy
        // eyeballs) wakes the thread once after it connects: the window
        // starts once the thread has not run for half a second.
        try waitUntil("the client's thread settles after connecting", seconds: 10) {
            try wakeups.during(seconds: 0.5) == 0
        }
        #expect(try wakeups.during(seconds: 3) <= 1)
        let id = try server.publish([7], to: topic)
        #expect(try recorder.waitForMessage(id: id).body == [7])
    }
}
