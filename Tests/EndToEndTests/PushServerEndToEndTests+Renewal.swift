import DBus
import NotifyTesting
import NotifyTestingCore
import Testing

extension PushServerEndToEndTests {
    /// An endpoint is asked for again before the server lets it expire: an
    /// hour before, or half its life when the server grants less than two
    /// hours (here 20 seconds, so the renewal comes after about 10). The
    /// app gets the new endpoint with `NewEndpoint`, and a push to it
    /// arrives.
    @Test func anEndpointIsRenewedBeforeItExpiresAndTheAppGetsTheNewOne() throws {
        let setup = try Setup(registrationSeconds: 20)
        let app = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Renewed")
        #expect(try app.register(token: "renewed-1").success == "REGISTRATION_SUCCEEDED")
        let first = try app.waitFor("the first endpoint") { $0.member == "NewEndpoint" }
        let count = app.records.count
        let renewed = try app.waitFor("the renewed endpoint", after: count, seconds: 25) {
            $0.member == "NewEndpoint" && $0.token == "renewed-1"
        }
        #expect(renewed.endpoint != first.endpoint, "Prosody's endpoints carry their expiry")
        let listed = try setup.details(of: "org.example.Renewed")["endpoint"]
        #expect(listed == .string(renewed.endpoint))
        let before = app.records.count
        #expect(try setup.prosody.startPost([42], to: renewed.endpoint).status() == 201)
        try app.waitFor("a push to the renewed endpoint", after: before) { $0.member == "Message" && $0.message == [42] }
        // Not renewed again at once: the next renewal is half a life later.
        let renewals = app.records.filter { $0.member == "NewEndpoint" }.count
        #expect(renewals == 2, "one renewal so far, not a storm")
    }

    /// At start-up each registration is renewed (SPEC), so that an
    /// endpoint the server forgot while notifyd was away is replaced: the
    /// app gets `NewEndpoint` when the endpoint changed (Prosody's carry
    /// their expiry, so they do), and a push to the new one arrives.
    @Test func atStartUpEachRegistrationIsRenewedAndTheAppGetsTheNewEndpoint() throws {
        let setup = try Setup()
        let app = try ActivatableConnector(bus: setup.fixture.bus, app: "org.example.Restarted")
        #expect(try app.register(token: "restarted-1").success == "REGISTRATION_SUCCEEDED")
        let first = try app.waitFor("the first endpoint") { $0.member == "NewEndpoint" }
        let count = app.records.count
        try setup.fixture.daemon.crashAndRestart()
        let renewed = try app.waitFor("the endpoint renewed at start-up", after: count, seconds: 30) {
            $0.member == "NewEndpoint" && $0.token == "restarted-1"
        }
        #expect(renewed.endpoint != first.endpoint)
        let before = app.records.count
        #expect(try setup.prosody.startPost([8], to: renewed.endpoint).status() == 201)
        try app.waitFor("a push to the renewed endpoint", after: before) { $0.member == "Message" && $0.message == [8] }
    }
}
