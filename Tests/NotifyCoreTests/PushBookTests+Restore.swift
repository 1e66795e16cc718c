import NotifyCore
import Testing

/// The push book across time: a clock step moves the held messages (their
/// seven days are elapsed time), and a book restored from the store.
extension PushBookTests {
    @Test func aClockStepMovesTheHeldMessagesAndItsDecisionStoresTheShift() throws {
        var state = NotifydState()
        _ = try state.registerPush(token("t"), app: chat, description: "", vapid: nil, connector: .two, serverKey: key("t"))
        _ = try state.receivePush([1], for: token("t"), serverID: "m", at: 0)
        let shifted = state.shiftDeadlines(by: 2 * Self.day)
        #expect(shifted.writes == [.deadlineShift(2 * Self.day)])
        #expect(state.push.held(for: token("t")).map(\.received) == [2 * Self.day])
        let expired = state.expirePushMessages(at: 8 * Self.day)
        #expect(expired.value.isEmpty, "seven days of elapsed time: the step does not count")
    }

    @Test func aRestoredBookLeavesOutMessagesOfRegistrationsThatAreGone() throws {
        let kept = PushRegistration(token: token("t"), app: chat, serverKey: key("t"), description: "", connector: .two)
        let held = [
            HeldPushMessage(id: 4, token: token("t"), serverID: "", size: 1, received: 2),
            HeldPushMessage(id: 2, token: token("t"), serverID: "", size: 2, received: 1),
            HeldPushMessage(id: 9, token: token("gone"), serverID: "", size: 3, received: 3),
        ]
        let book = PushBook(restoring: [kept], held: held, lastMessageID: 0)
        #expect(book.held(for: token("t")).map { $0.id } == [2, 4])
        #expect(book.held(for: token("gone")).isEmpty)
        #expect(book.lastMessageID == 9)
    }
}
