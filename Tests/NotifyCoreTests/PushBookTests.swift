import NotifyCore
import Testing

/// The UnifiedPush registrations and held messages in the core: tokens and
/// their limits, registering again, another app's token, the limits per app
/// and in all, endpoints, and messages held until delivered (at most 100
/// per registration, 7 days, oldest dropped first; unknown tokens refused).
@Suite struct PushBookTests {
    static let day: Microseconds = 24 * 3_600 * 1_000_000
    let chat = try! AppID("org.example.Chat")
    let news = try! AppID("org.example.News")
    let vapid = String(repeating: "B", count: 65) + "abcdefghij-_0123456789"

    func token(_ text: String) -> PushToken { try! PushToken(text) }

    /// A server key of its own for each token (the daemon's are random).
    func key(_ text: String) -> PushServerKey {
        try! PushServerKey(Array(text.utf8.prefix(32)) + [UInt8](repeating: 0, count: max(0, 32 - text.utf8.count)))
    }

    @Test(arguments: ["", String(repeating: "t", count: 101), "tab\there", "nul\0"])
    func aTokenIsOneToOneHundredBytesWithoutControlCharacters(_ text: String) {
        let error = #expect(throws: NotifydError.self) { try PushToken(text) }
        #expect(error?.code == .invalidArgs)
    }

    @Test func aTokenOfOneHundredBytesIsAccepted() throws {
        #expect(try PushToken(String(repeating: "é", count: 50)).rawValue.utf8.count == 100)
    }

    @Test func registeringAgainWithTheSameTokenIsTheSameRegistration() throws {
        var book = PushBook()
        let first = try book.register(token("t1"), app: chat, description: "Chat", vapid: nil, connector: .two, serverKey: key("t1"))
        #expect(first == .new(PushRegistration(token: token("t1"), app: chat, serverKey: key("t1"), description: "Chat", connector: .two)))
        let changed = book.setEndpoint("https://push.example/up1?up=1", for: token("t1"))
        let unchanged = book.setEndpoint("https://push.example/up1?up=1", for: token("t1"))
        #expect(changed)
        #expect(!unchanged, "unchanged: no NewEndpoint")
        let again = try book.register(token("t1"), app: chat, description: "Chat 2", vapid: vapid, connector: .one, serverKey: key("t1"))
        guard case .again(let renewed) = again else { Issue.record("not the same registration: \(again)"); return }
        #expect(renewed.description == "Chat 2")
        #expect(renewed.vapid == vapid)
        #expect(renewed.connector == .one)
        #expect(renewed.endpoint == "https://push.example/up1?up=1", "the endpoint is kept")
        #expect(book.registrations.count == 1)
    }

    @Test func anotherAppsTokenIsRefused() throws {
        var book = PushBook()
        _ = try book.register(token("shared"), app: chat, description: "", vapid: nil, connector: .two, serverKey: key("shared"))
        let error = #expect(throws: NotifydError.self) {
            try book.register(token("shared"), app: news, description: "", vapid: nil, connector: .two, serverKey: key("shared"))
        }
        #expect(error?.code == .notPermitted)
        #expect(book.registrations[token("shared")]?.app == chat)
    }

    @Test(arguments: ["short", String(repeating: "A", count: 86) + "=", String(repeating: "A", count: 88)])
    func aVAPIDKeyThatIsNotOneIsRefused(_ vapidKey: String) {
        var book = PushBook()
        let error = #expect(throws: NotifydError.self) {
            try book.register(token("t"), app: chat, description: "", vapid: vapidKey, connector: .two, serverKey: key("t"))
        }
        #expect(error?.code == .invalidArgs)
        #expect(book.registrations.isEmpty)
    }

    @Test func aDescriptionOverOneHundredBytesIsRefused() {
        var book = PushBook()
        let error = #expect(throws: NotifydError.self) {
            try book.register(token("t"), app: chat, description: String(repeating: "d", count: 101), vapid: nil, connector: .two, serverKey: key("t"))
        }
        #expect(error?.code == .invalidArgs)
    }

    @Test func anAppHasAtMostOneHundredRegistrationsAndNotifydOneThousand() throws {
        var book = PushBook()
        for index in 0..<PushBook.maximumPerApp {
            _ = try book.register(token("chat-\(index)"), app: chat, description: "", vapid: nil, connector: .two, serverKey: key("chat-\(index)"))
        }
        let perApp = #expect(throws: NotifydError.self) {
            try book.register(token("chat-extra"), app: chat, description: "", vapid: nil, connector: .two, serverKey: key("chat-extra"))
        }
        #expect(perApp?.code == .limitExceeded)
        _ = try book.register(token("chat-0"), app: chat, description: "again", vapid: nil, connector: .two, serverKey: key("chat-0"))

        for app in 1..<(PushBook.maximum / PushBook.maximumPerApp) {
            for index in 0..<PushBook.maximumPerApp {
                _ = try book.register(
                    token("app\(app)-\(index)"), app: try AppID("org.example.App\(app)"), description: "", vapid: nil,
                    connector: .two, serverKey: key("app\(app)-\(index)"))
            }
        }
        #expect(book.registrations.count == PushBook.maximum)
        let inAll = #expect(throws: NotifydError.self) {
            try book.register(token("news"), app: news, description: "", vapid: nil, connector: .two, serverKey: key("news"))
        }
        #expect(inAll?.code == .limitExceeded)
        let removed = book.remove(app: chat)
        #expect(removed.count == PushBook.maximumPerApp)
        _ = try book.register(token("news"), app: news, description: "", vapid: nil, connector: .two, serverKey: key("news"))
    }

    @Test func aMessageIsHeldUntilDeliveredAndCounted() throws {
        var book = PushBook()
        _ = try book.register(token("t"), app: chat, description: "", vapid: nil, connector: .two, serverKey: key("t"))
        let body: [UInt8] = [0, 1, 2, 255]
        let received = try #require(try book.receive(body, for: token("t"), serverID: "ntfy-1", at: 5))
        #expect(received.message == PushMessage(id: 1, token: token("t"), serverID: "ntfy-1", body: body, received: 5))
        #expect(received.dropped.isEmpty)
        #expect(book.held(for: token("t")) == [
            HeldPushMessage(id: 1, token: token("t"), serverID: "ntfy-1", size: 4, received: 5)
        ], "held without its body, which stays on disk")
        #expect(book.isHeld(1, for: token("t")))
        #expect(!book.isHeld(1, for: token("other")))
        #expect(book.heldCount == 1)
        let delivered = book.delivered(1, for: token("t"))
        let twice = book.delivered(1, for: token("t"))
        #expect(delivered == received.message.held)
        #expect(!book.isHeld(1, for: token("t")))
        #expect(twice == nil, "delivered once")
        #expect(book.heldCount == 0)
        #expect(book.registrations[token("t")]?.messages == 1)
        #expect(book.registrations[token("t")]?.lastMessage == 5)
    }

    @Test func aMessageForAnUnknownTokenIsNotHeld() throws {
        var book = PushBook()
        let refused = try book.receive([1], for: token("gone"), serverID: "", at: 0)
        #expect(refused == nil)
        #expect(book.heldCount == 0)
        #expect(book.lastMessageID == 0)
    }

    @Test(arguments: [0, PushBook.maximumMessageBytes + 1])
    func aMessageOfNoBytesOrOver4096IsRefused(_ size: Int) throws {
        var book = PushBook()
        _ = try book.register(token("t"), app: chat, description: "", vapid: nil, connector: .two, serverKey: key("t"))
        let error = #expect(throws: NotifydError.self) {
            try book.receive(Array(repeating: 7, count: size), for: token("t"), serverID: "", at: 0)
        }
        #expect(error?.code == .invalidArgs)
        #expect(book.heldCount == 0)
    }

    @Test func atMostOneHundredAreHeldPerRegistrationOldestDroppedFirst() throws {
        var book = PushBook()
        _ = try book.register(token("t"), app: chat, description: "", vapid: nil, connector: .two, serverKey: key("t"))
        _ = try book.register(token("other"), app: news, description: "", vapid: nil, connector: .two, serverKey: key("other"))
        _ = try book.receive([9], for: token("other"), serverID: "", at: 0)
        for index in 1...PushBook.maximumPendingPerRegistration {
            let held = try book.receive([UInt8(index % 256)], for: token("t"), serverID: "\(index)", at: Microseconds(index))
            #expect(held?.dropped == [])
        }
        let over = try #require(try book.receive([1], for: token("t"), serverID: "101", at: 101))
        #expect(over.dropped.map(\.serverID) == ["1"])
        #expect(book.held(for: token("t")).count == PushBook.maximumPendingPerRegistration)
        #expect(book.held(for: token("t")).first?.serverID == "2")
        #expect(book.held(for: token("other")).count == 1, "another registration's messages are its own")
    }

    @Test func messagesOverSevenDaysOldAreDropped() throws {
        var book = PushBook()
        _ = try book.register(token("t"), app: chat, description: "", vapid: nil, connector: .two, serverKey: key("t"))
        _ = try book.receive([1], for: token("t"), serverID: "old", at: 0)
        _ = try book.receive([2], for: token("t"), serverID: "newer", at: 2 * Self.day)
        let atSevenDays = book.expire(at: 7 * Self.day)
        let afterSevenDays = book.expire(at: 7 * Self.day + 1)
        #expect(atSevenDays.isEmpty, "exactly seven days is kept")
        #expect(afterSevenDays.map(\.serverID) == ["old"])
        let late = try #require(try book.receive([3], for: token("t"), serverID: "late", at: 10 * Self.day))
        #expect(late.dropped.map(\.serverID) == ["newer"])
        #expect(book.held(for: token("t")).map(\.serverID) == ["late"])
    }

    @Test func unregisteringDropsTheHeldMessagesAndAServerChangeTheEndpoints() throws {
        var book = PushBook()
        _ = try book.register(token("a"), app: chat, description: "", vapid: nil, connector: .two, serverKey: key("a"))
        _ = try book.register(token("b"), app: chat, description: "", vapid: nil, connector: .one, serverKey: key("b"))
        book.setEndpoint("https://one.example/a", for: token("a"))
        book.setEndpoint("https://one.example/b", for: token("b"))
        _ = try book.receive([1], for: token("a"), serverID: "", at: 0)
        let unregistered = book.unregister(token("a"))
        let unknown = book.unregister(token("a"))
        #expect(unregistered?.token == token("a"))
        #expect(unknown == nil, "an unknown token is ignored")
        #expect(book.heldCount == 0)
        let cleared = book.clearEndpoints()
        #expect(cleared == [token("b")])
        #expect(book.registrations[token("b")]?.endpoint == nil)
    }
}
