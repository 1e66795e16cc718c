import NotifyCore
import Testing

/// The push book facing the push server: the server set and what it
/// clears, registrations by their server key, endpoints with their expiry
/// (and `NewEndpoint` when one changes), what needs an endpoint, and the
/// effect that acknowledges a stored message.
extension PushBookTests {
    func xmpp(_ address: String = "alice@example.org") throws -> PushServerSettings {
        try PushServerSettings(kind: .xmpp, address: address, password: try PushSecret("hunter2"))
    }

    @Test func settingAServerForgetsTheOldEndpointsAndStoresItOnce() throws {
        var state = NotifydState()
        _ = try state.registerPush(token("a"), app: chat, description: "", vapid: nil, connector: .two, serverKey: key("a"))
        _ = try state.registerPush(token("b"), app: news, description: "", vapid: nil, connector: .one, serverKey: key("b"))
        _ = state.setPushEndpoint("https://push.example/a", expiry: 5_000, for: token("a"))
        let server = try xmpp()
        let decision = state.setPushServer(server)
        #expect(decision.value == [token("a")])
        #expect(state.push.server == server)
        #expect(state.push.registrations[token("a")]?.endpoint == nil)
        #expect(state.push.registrations[token("a")]?.endpointExpiry == nil)
        #expect(decision.outcome.writes.first == .pushServer(server))
        #expect(decision.outcome.writes.count == 2)
        // The same settings again: nothing to store.
        #expect(state.setPushServer(server).outcome.isEmpty)
        #expect(state.setPushServer(nil).outcome.writes == [.pushServer(nil)])
    }

    @Test func aNewEndpointIsStoredWithItsExpiryAndTheAppIsTold() throws {
        var state = NotifydState()
        _ = try state.registerPush(token("a"), app: chat, description: "", vapid: nil, connector: .two, serverKey: key("a"))
        let first = state.setPushEndpoint("https://push.example/1", expiry: 9_000, for: token("a"))
        #expect(first.value)
        guard case .pushNewEndpoint(let registration)? = first.outcome.effects.first else {
            Issue.record("no NewEndpoint: \(first.outcome.effects)")
            return
        }
        #expect(registration.endpoint == "https://push.example/1")
        #expect(registration.endpointExpiry == 9_000)
        // Renewed to the same endpoint, later expiry: stored, the app not told.
        let renewed = state.setPushEndpoint("https://push.example/1", expiry: 19_000, for: token("a"))
        #expect(!renewed.value)
        #expect(renewed.outcome.effects.isEmpty)
        #expect(renewed.outcome.writes.count == 1)
        // The same again: nothing at all.
        #expect(state.setPushEndpoint("https://push.example/1", expiry: 19_000, for: token("a")).outcome.isEmpty)
        // Registering again with a token that has an endpoint tells the app (the specification).
        let again = try state.registerPush(token("a"), app: chat, description: "x", vapid: nil, connector: .two, serverKey: key("z"))
        #expect(again.outcome.effects.count == 1)
        #expect(again.value.registration.serverKey == key("a"))
    }

    @Test func registrationsAreFoundByTheirServerKeyAndAKeyIsNotReused() throws {
        var book = PushBook()
        _ = try book.register(token("a"), app: chat, description: "", vapid: nil, connector: .two, serverKey: key("a"))
        #expect(book.registration(serverKey: key("a"))?.token == token("a"))
        #expect(book.registration(serverKey: key("b")) == nil)
        let reused = #expect(throws: NotifydError.self) {
            try book.register(token("b"), app: chat, description: "", vapid: nil, connector: .two, serverKey: key("a"))
        }
        #expect(reused?.code == .invalidArgs)
        _ = book.unregister(token("a"))
        #expect(book.registration(serverKey: key("a")) == nil)
        #expect(book.tokensByServerKey.isEmpty)
    }

    @Test func whatNeedsAnEndpoint() throws {
        var book = PushBook()
        for name in ["none", "soon", "later", "forever"] {
            _ = try book.register(token(name), app: chat, description: "", vapid: nil, connector: .two, serverKey: key(name))
        }
        book.setEndpoint("e1", expiry: 1_000, for: token("soon"))
        book.setEndpoint("e2", expiry: 9_000, for: token("later"))
        book.setEndpoint("e3", expiry: nil, for: token("forever"))
        #expect(book.needingEndpoints(before: 5_000).map(\.token) == [token("none"), token("soon")])
        #expect(book.nextEndpointExpiry == 1_000)
        book.shift(by: 500)
        #expect(book.nextEndpointExpiry == 1_500)
    }

    @Test func aStoredMessageIsAcknowledgedAfterItsCommit() throws {
        var state = NotifydState()
        _ = try state.registerPush(token("a"), app: chat, description: "", vapid: nil, connector: .two, serverKey: key("a"))
        let decision = try state.receivePush([1, 2], for: token("a"), serverID: "s1", at: 10)
        guard let message = decision.value?.message else {
            Issue.record("not held")
            return
        }
        #expect(decision.outcome.effects == [.pushMessageStored(message)])
    }

    @Test(arguments: [
        (PushServerSettings.Kind.xmpp, "alice", "password" as String?),
        (.xmpp, "alice@example.org/phone", "password"),
        (.xmpp, "alice@example.org", nil),
        (.ntfy, "ftp://ntfy.example", nil),
        (.ntfy, "https://ntfy.example/?x=1", nil),
        (.xmpp, "alice @example.org", "password"),
    ])
    func badServerSettingsAreRefused(_ kind: PushServerSettings.Kind, _ address: String, _ password: String?) {
        let error = #expect(throws: NotifydError.self) {
            try PushServerSettings(kind: kind, address: address, password: try password.map { (text) throws(NotifydError) in try PushSecret(text) })
        }
        #expect(error?.code == .invalidArgs)
    }

    @Test func aPasswordNeverShows() throws {
        let settings = try xmpp()
        #expect(!"\(settings)".contains("hunter2"))
        #expect(!String(reflecting: settings).contains("hunter2"))
    }
}
