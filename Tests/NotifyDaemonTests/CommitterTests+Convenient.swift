import NotifyCore
import Testing

@testable import NotifyDaemon

extension CommitterTests {
    /// Rows applied when convenient (a push message's release) do not make
    /// a commit of their own: they wait in the filling batch until a
    /// decision that must be committed joins it, or until the daemon's
    /// timer commits them (``Committer/commitWaitingRows(carryingOut:)``),
    /// and a shutdown's drain takes them too.
    @Test func rowsAppliedWhenConvenientWaitForABatchThatMustBeCommitted() throws {
        try Self.withState { committer, _, _ in
            let token = try PushToken("t-1")
            let app = try AppID("org.example.Chat")
            try committer.apply { (state) throws(NotifydError) in
                try state.registerPush(
                    token, app: app, description: "", vapid: nil, connector: .two,
                    serverKey: try PushServerKey(Array(repeating: 1, count: 32)))
            }
            let first = try #require(try committer.apply { (state) throws(NotifydError) in
                try state.receivePush([1], for: token, serverID: "", at: 1)
            })
            let second = try #require(try committer.apply { (state) throws(NotifydError) in
                try state.receivePush([2], for: token, serverID: "", at: 2)
            })
            committer.drain { _ in }
            #expect(committer.committed.push.heldCount == 2)

            committer.applyWhenConvenient { $0.pushDelivered(first.message.id, for: token) }
            committer.commit { _ in }
            #expect(committer.holdsWaitingRows, "not sealed: nothing waits for it")
            #expect(committer.committed.push.heldCount == 2)

            // A decision that must be committed takes the waiting rows with it.
            try committer.apply { (state) throws(NotifydError) in try state.receivePush([3], for: token, serverID: "", at: 3) }
            #expect(!committer.holdsWaitingRows)
            committer.drain { _ in }
            #expect(committer.committed.push.held(for: token).map(\.id) == [second.message.id, first.message.id + 2])

            // Alone, they are committed when the daemon's timer says so.
            committer.applyWhenConvenient { $0.pushDelivered(second.message.id, for: token) }
            committer.commit { _ in }
            #expect(committer.holdsWaitingRows)
            committer.commitWaitingRows { _ in }
            #expect(!committer.holdsWaitingRows)
            committer.drain { _ in }
            #expect(committer.committed.push.heldCount == 1)
        }
    }
}
