import DBus
import NotifyTesting
import NotifyTestingCore
import Testing

extension PushServerEndToEndTests {
    /// notifyd keeps held messages' bodies on disk only and reads each back
    /// when its turn comes, at most 64 on their way at once: more than
    /// that, held across a `kill -9`, all reach the app after the restart,
    /// each registration's in the order they came, byte for byte.
    @Test func moreHeldMessagesThanMayBeOnTheirWayAtOnceAllArriveInOrderAfterARestart() throws {
        let setup = try Setup()
        let failing = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Busy", refuseMessages: true)
        let tokens = ["busy-1", "busy-2"]
        var endpoints: [String: String] = [:]
        for token in tokens {
            #expect(try failing.register(token: token).success == "REGISTRATION_SUCCEEDED")
            endpoints[token] = try failing.waitFor("the endpoint of \(token)") {
                $0.member == "NewEndpoint" && $0.token == token
            }.endpoint
        }
        let perToken = 70
        func body(_ token: Int, _ index: Int) -> [UInt8] {
            // Sizes from 1 to 4,096 bytes; the first bytes say which message it is.
            let size = index == 0 ? 4_096 : 2 + (index * 53) % 3_000
            return [UInt8(token), UInt8(index)] + (0..<max(0, size - 2)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
        }
        for index in 0..<perToken {
            for (number, token) in tokens.enumerated() {
                #expect(try setup.prosody.startPost(body(number, index), to: endpoints[token]!).status() == 201)
            }
        }
        // Generous bounds: under AddressSanitizer, beside the rest of the
        // suite, the 140 posts and the delivery after the restart have taken
        // over a minute.
        try waitUntil("every message held", seconds: 120) {
            try setup.status()["pending-messages"] == .uint32(UInt32(perToken * tokens.count))
        }
        try failing.kill()
        let fixed = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Busy")
        let before = fixed.records.count
        try setup.fixture.daemon.crashAndRestart()
        try waitUntil("every held message delivered after the restart", seconds: 180) {
            fixed.records.dropFirst(before).filter { $0.member == "Message" }.count >= perToken * tokens.count
        }
        let messages = fixed.records.dropFirst(before).filter { $0.member == "Message" }
        #expect(messages.count == perToken * tokens.count, "each once")
        for (number, token) in tokens.enumerated() {
            let got = messages.filter { $0.token == token }.map(\.message)
            #expect(got == (0..<perToken).map { body(number, $0) }, "\(token): in order, byte for byte")
        }
        try waitUntil("none held any more") { try setup.status()["pending-messages"] == .uint32(0) }
    }

    /// A message the app did not take is tried again, before it, when the
    /// next one comes: the app gets both, in order, each once.
    @Test func aNewMessageBringsTheHeldOneFirst() throws {
        let setup = try Setup()
        let failing = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Later", refuseMessages: true)
        #expect(try failing.register(token: "later-1").success == "REGISTRATION_SUCCEEDED")
        let endpoint = try failing.waitFor("NewEndpoint") { $0.member == "NewEndpoint" }.endpoint
        #expect(try setup.prosody.startPost([1], to: endpoint).status() == 201)
        try waitUntil("the first message held") { try setup.status()["pending-messages"] == .uint32(1) }
        try failing.kill()
        let fixed = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Later")
        let before = fixed.records.count
        #expect(try setup.prosody.startPost([2], to: endpoint).status() == 201)
        try waitUntil("none held") { try setup.status()["pending-messages"] == .uint32(0) }
        let messages = fixed.records.dropFirst(before).filter { $0.member == "Message" }.map(\.message)
        #expect(messages == [[1], [2]])
    }

    /// An app that keeps refusing is offered only its oldest message, once,
    /// when a new one comes: not every message held each time (ten new
    /// messages made up to 55 refused calls before). Once it takes
    /// messages again, the next message brings all of them, in order.
    @Test func anAppThatKeepsRefusingIsOfferedOnlyItsOldestMessageWhenANewOneComes() throws {
        let setup = try Setup()
        let failing = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Stubborn", refuseMessages: true)
        #expect(try failing.register(token: "stubborn-1").success == "REGISTRATION_SUCCEEDED")
        let endpoint = try failing.waitFor("NewEndpoint") { $0.member == "NewEndpoint" }.endpoint
        let posts = 10
        for index in 1...posts {
            #expect(try setup.prosody.startPost([UInt8(index)], to: endpoint).status() == 201)
            try waitUntil("message \(index) held") { try setup.status()["pending-messages"] == .uint32(UInt32(index)) }
            if index == 1 { _ = try failing.waitFor("the first Message, refused") { $0.member == "refused" } }
        }
        // The app takes messages again (without a restart: a kill could
        // race with an offer that starts it again, refusing).
        let before = failing.records.count
        try failing.takeMessagesFromNowOn()
        #expect(try setup.prosody.startPost([UInt8(posts + 1)], to: endpoint).status() == 201)
        try waitUntil("none held") { try setup.status()["pending-messages"] == .uint32(0) }
        let offered = failing.records.filter { $0.member == "refused" }.map(\.message)
        #expect(
            (1...posts).contains(offered.count), "at most one offer per message that came, not one per message held")
        #expect(offered.allSatisfy { $0 == [1] }, "only the oldest is offered while the app refuses: \(offered)")
        let messages = failing.records.dropFirst(before).filter { $0.member == "Message" }.map(\.message)
        #expect(messages == (1...(posts + 1)).map { [UInt8($0)] }, "each once, in order")
    }
}
