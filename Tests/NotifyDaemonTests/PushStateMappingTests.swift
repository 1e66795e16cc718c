import Foundation
import Logging
import NotifyCore
import NotifyStore
import Testing

@testable import NotifyDaemon

/// The push book through the store and back, as a restart reads it: what
/// the core's operations decided (registrations, endpoints, held and
/// delivered messages, an unregistration) is what the next start finds.
@Suite struct PushStateMappingTests {
    let chat = try! AppID("org.example.Chat")
    let news = try! AppID("org.example.News")

    func token(_ text: String) -> PushToken { try! PushToken(text) }

    /// A server key of its own for each token (the daemon's are random).
    func key(_ text: String) -> PushServerKey {
        try! PushServerKey(Array(text.utf8.prefix(32)) + [UInt8](repeating: 0, count: max(0, 32 - text.utf8.count)))
    }

    @Test func theBookAfterARestartIsTheBookThatWasCommitted() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("notifyd-push-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "PushStateMappingTests")
        var state = NotifydState()
        var batch = PendingBatch(memoryAtStart: state.memoryOnly)
        batch.add(try state.registerPush(token("a"), app: chat, description: "Chat", vapid: nil, connector: .two, serverKey: key("a")).outcome)
        batch.add(try state.registerPush(token("b"), app: chat, description: "Chat 2", vapid: nil, connector: .one, serverKey: key("b")).outcome)
        batch.add(try state.registerPush(token("c"), app: news, description: "", vapid: nil, connector: .two, serverKey: key("c")).outcome)
        batch.add(state.setPushEndpoint("https://push.example/upAAAAAAAAAAAA?up=1", for: token("a")).outcome)
        let kept = try state.receivePush([0, 255, 10], for: token("a"), serverID: "m1", at: 100)
        let delivered = try state.receivePush([1], for: token("a"), serverID: "m2", at: 200)
        let dropped = try state.receivePush([2], for: token("c"), serverID: "m3", at: 300)
        for decision in [kept, delivered, dropped] { batch.add(decision.outcome) }
        let deliveredID = try #require(delivered.value?.message.id)
        batch.add(state.pushDelivered(deliveredID, for: token("a")).outcome)
        batch.add(state.unregisterPush(token("c")).outcome)
        #expect(state.unregisterPush(token("c")).outcome.isEmpty, "an unknown token stores nothing")
        do {
            let store = try StateStore(directory: directory.path)
            try store.commit(batch.takeWrites())
        }
        let restored = try StateMapping.load(from: StateStore(directory: directory.path), logger: logger)
        #expect(restored.push.registrations == state.push.registrations)
        #expect(restored.push.pending == state.push.pending)
        let keptMessage = try #require(kept.value?.message)
        #expect(restored.push.held(for: token("a")) == [keptMessage.held])
        #expect(try StateStore(directory: directory.path).loadPushMessageBody(id: keptMessage.id) == [0, 255, 10])
        #expect(restored.push.registrations[token("a")]?.messages == 1)
        #expect(restored.push.registrations[token("a")]?.endpoint == "https://push.example/upAAAAAAAAAAAA?up=1")
        #expect(restored.push.registrations[token("c")] == nil)
        #expect(restored.push.lastMessageID == 1, "the highest ID held (2 and 3 left no row); a new message gets a higher one")
    }

    @Test func aRowThatNoLongerValidatesIsSkippedNotFatal() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("notifyd-push-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let store = try StateStore(directory: directory.path)
            store.staged.stagePushRegistration(StoredPushRegistration(
                token: "good", app: "org.example.Chat", serverKey: key("good").bytes, description: "", vapid: nil,
                connector: 2, endpoint: nil, endpointExpiry: nil, messages: 0, lastMessage: nil))
            store.staged.stagePushRegistration(StoredPushRegistration(
                token: "bad-app", app: "not an app id", serverKey: key("bad-app").bytes, description: "", vapid: nil,
                connector: 2, endpoint: nil, endpointExpiry: nil, messages: 0, lastMessage: nil))
            try store.commit()
        }
        let restored = try StateMapping.load(from: StateStore(directory: directory.path), logger: Logger(label: "test"))
        #expect(restored.push.registrations.keys.map(\.rawValue).sorted() == ["good"])
    }
}
