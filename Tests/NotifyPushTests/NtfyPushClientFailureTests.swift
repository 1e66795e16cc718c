import NotifyPush
import NotifyTesting
import Testing

extension NtfyPushClientTests {
    /// The client against the ntfy double when things go wrong: TLS, refusals,
    /// a network that goes and returns, a silent stream; and its settings
    /// and helpers.
    @Suite("NtfyPushClient when things go wrong", .serialized)
    struct Failures {
        @Test("https verified against the test CA (besides the system's): connected, messages arrive")
        func httpsVerified() throws {
            let server = try NtfyDoubleServer(tls: true)
            #expect(server.baseURL.hasPrefix("https://localhost:"))
            let topic = NtfyPushClient.newTopic()
            let recorder = try NtfyPushClientTests.connectedClient(server, topics: [topic])
            let id = try server.publish([0, 255], to: topic)
            #expect(try recorder.waitForMessage(id: id).body == [0, 255])
        }

        @Test("https with a CA that did not sign the certificate: certificateRejected, in words")
        func unrelatedCARejected() throws {
            let server = try NtfyDoubleServer(tls: true)
            let recorder = try RecordedNtfyClient()
            recorder.client.configure(try NtfySettings(baseURL: server.baseURL, caFile: try server.unrelatedCA()))
            recorder.client.follow(topics: [NtfyPushClient.newTopic()], since: nil)
            let state = try recorder.waitForState("the certificate rejected") {
                if case .certificateRejected = $0 { return true }
                return false
            }
            guard case .certificateRejected(let reason) = state else { return }
            #expect(reason.contains("certificate did not verify"))
            #expect(reason.contains("unable to get local issuer certificate"))
            #expect(!recorder.recorded.contains(.state(.connected)))
        }

        @Test("a CA file that cannot be read: certificateRejected, naming the file")
        func unreadableCAFile() throws {
            let server = try NtfyDoubleServer(tls: true)
            let recorder = try RecordedNtfyClient()
            recorder.client.configure(try NtfySettings(baseURL: server.baseURL, caFile: "/nonexistent/ca.pem"))
            recorder.client.follow(topics: [NtfyPushClient.newTopic()], since: nil)
            let state = try recorder.waitForState("the certificate rejected") {
                if case .certificateRejected = $0 { return true }
                return false
            }
            #expect("\(state)".contains("/nonexistent/ca.pem cannot be read"))
        }

        @Test("HTTP refusals become disconnected in words, with ntfy's own reason; retried after a wait")
        func refusalsInWords() throws {
            let server = try NtfyDoubleServer()
            try server.refuseSubscriptions(status: 429)
            let recorder = try RecordedNtfyClient()
            recorder.client.configure(try NtfySettings(baseURL: server.baseURL))
            recorder.client.follow(topics: [NtfyPushClient.newTopic()], since: nil)
            _ = try recorder.waitForDisconnection(saying: "(HTTP 429: limit reached: too many active subscriptions)")
            for (status, words) in [(401, "wants a login"), (403, "does not let"), (404, "no such page"), (500, "failed (HTTP 500")] {
                try server.refuseSubscriptions(status: status)
                let count = recorder.recorded.count
                recorder.client.networkReturned()
                _ = try recorder.waitForDisconnection(after: count, saying: words)
            }
            try server.refuseSubscriptions(status: nil)
            let count = recorder.recorded.count
            try recorder.waitUntilConnected(after: count, seconds: 30)
        }

        @Test("the stream cut (the network gone): reconnected by itself, the messages of the gap replayed once")
        func catchesUpAfterCut() throws {
            let server = try NtfyDoubleServer()
            let topic = NtfyPushClient.newTopic()
            let recorder = try NtfyPushClientTests.connectedClient(server, topics: [topic])
            let count = recorder.recorded.count
            // No message yet: the next stream starts from the time the last one opened.
            try server.setSubscriptionsDown(true)
            _ = try recorder.waitForDisconnection(after: count)
            let gap = try (0..<3).map { try server.publish([UInt8($0)], to: topic) }
            try server.setSubscriptionsDown(false)
            for id in gap { _ = try recorder.waitForMessage(id: id, seconds: 30) }
            let last = try #require(server.subscriptions.last)
            #expect(last.hasPrefix("/\(topic)/json?since=1"))
            let after = try server.publish([9], to: topic)
            _ = try recorder.waitForMessage(id: after)
            #expect(recorder.messages.map(\.id) == gap + [after])
        }

        @Test("a stream that brings nothing for the stall timeout is taken for dead and opened again")
        func stalledStreamReopened() throws {
            let server = try NtfyDoubleServer(keepaliveSeconds: 60)
            let recorder = try NtfyPushClientTests.connectedClient(
                server, topics: [NtfyPushClient.newTopic()], stallTimeout: .seconds(2))
            let count = recorder.recorded.count
            let reason = try recorder.waitForDisconnection(after: count, seconds: 10)
            #expect(reason.contains("no byte came from the ntfy server in 2 seconds"))
            try recorder.waitUntilConnected(after: count, seconds: 10)
            #expect(server.subscriptions.count == 2)
        }

        @Test("networkReturned() opens the stream at once, however long the wait had grown")
        func networkReturnedConnectsAtOnce() throws {
            let server = try NtfyDoubleServer()
            try server.setSubscriptionsDown(true)
            let recorder = try RecordedNtfyClient()
            recorder.client.configure(try NtfySettings(baseURL: server.baseURL))
            recorder.client.follow(topics: [NtfyPushClient.newTopic()], since: nil)
            // Three failures: the next attempt is 4 s away.
            try waitUntil("three failed attempts") { server.subscriptions.count >= 3 }
            _ = try recorder.waitForDisconnection(saying: "closed the connection without answering")
            try server.setSubscriptionsDown(false)
            let count = recorder.recorded.count
            recorder.client.networkReturned()
            try recorder.waitUntilConnected(after: count, seconds: 2)
        }

        @Test("networkReturned() while connected replaces the stream, which may be dead unnoticed; nothing twice")
        func networkReturnedReplacesStream() throws {
            let server = try NtfyDoubleServer()
            let topic = NtfyPushClient.newTopic()
            let recorder = try NtfyPushClientTests.connectedClient(server, topics: [topic])
            let first = try server.publish([1], to: topic)
            _ = try recorder.waitForMessage(id: first)
            let count = recorder.recorded.count
            recorder.client.networkReturned()
            try recorder.waitUntilConnected(after: count)
            #expect(server.subscriptions.last == "/\(topic)/json?since=\(first)")
            let second = try server.publish([2], to: topic)
            _ = try recorder.waitForMessage(id: second)
            #expect(recorder.messages.map(\.id) == [first, second])
        }

        @Test("names that are not ntfy topics, and a cursor that is no message id, are left out in words")
        func badTopicsLeftOut() throws {
            let recorder = try RecordedNtfyClient()
            recorder.client.follow(topics: ["bad topic", "upGood"], since: "not an id!")
            try waitUntil("two dropped") { recorder.dropped.count == 2 }
            #expect(recorder.dropped[0].hasPrefix("\"bad topic\" is not an ntfy topic"))
            #expect(recorder.dropped[1].hasPrefix("\"not an id!\" is not an ntfy message id"))
            _ = try recorder.waitForDisconnection(saying: "no ntfy server is configured")
        }

        @Test("plain http only to a loopback address; the address's other mistakes, in words")
        func settingsChecked() throws {
            #expect(throws: NtfyPushError.self) { try NtfySettings(baseURL: "http://ntfy.example.org") }
            do {
                _ = try NtfySettings(baseURL: "http://ntfy.example.org")
            } catch {
                #expect(error.description.contains("plain http is allowed only to an ntfy server on this machine"))
            }
            #expect(try NtfySettings(baseURL: "https://ntfy.sh/").baseURL == "https://ntfy.sh")
            #expect(try NtfySettings(baseURL: "http://127.0.0.1:8080").isLoopback)
            #expect(try NtfySettings(baseURL: "http://[::1]:8080/ntfy").host == "::1")
            #expect(try NtfySettings(baseURL: "http://localhost").isTLS == false)
            for bad in ["ntfy.sh", "ftp://ntfy.sh", "https://", "https://user:pw@ntfy.sh", "https://ntfy.sh:0",
                        "https://ntfy.sh?x=1", "https://nt fy.sh", "http://10.0.0.1"] {
                #expect(throws: NtfyPushError.self, "\(bad)") { try NtfySettings(baseURL: bad) }
            }
        }

        @Test("new topics are up + 12 letters and digits; the endpoint is <base>/<topic>?up=1")
        func topicsAndEndpoints() {
            let topics = (0..<100).map { _ in NtfyPushClient.newTopic() }
            #expect(Set(topics).count == 100)
            for topic in topics {
                #expect(topic.count == 14 && topic.hasPrefix("up"))
                #expect(topic.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) })
                #expect(NtfySettings.isTopic(topic))
            }
            #expect(NtfyPushClient.endpoint(base: "https://ntfy.sh/", topic: "upAbc") == "https://ntfy.sh/upAbc?up=1")
            #expect(NtfyPushClient.endpoint(base: "https://example.org/ntfy", topic: "up1") == "https://example.org/ntfy/up1?up=1")
        }
    }
}
