import DBus
import Glibc
import NotifyCore
import NotifyTesting
import NotifyTestingCore
import Synchronization

/// Remote notifications' speed: from an application server's POST to the
/// app's `Message`, through a private Prosody with `mod_unified_push`
/// (``ProsodyServer``: STARTTLS with a CA made for the run) and a notifyd
/// of its own, against the same POST to the same Prosody received by a
/// bare libstrophe client (``BareXMPPReceiver``). The two take turns, one
/// push at a time, with the two parts of the floor (``PushFloorProbe``: a
/// synced page and a `Message` straight to the app). Then a burst: 10 apps, a POSTing thread each, 100
/// pushes apiece at once; every message must arrive, each app's in the
/// order sent.
struct PushBenchmark {
    let programs: BenchPrograms
    let scratch: ScratchDirectory
    /// Pushes timed on each path.
    let pushes: Int
    static let warmUp = 20
    static let burstApps = 10
    static let burstPerApp = 100

    struct Result {
        let notifyd: LatencySummary
        let bare: LatencySummary
        /// A 4 KB page written and synced beside notifyd's state.
        let sync: LatencySummary
        /// A `Message` sent straight to the app, one way.
        let directMessage: LatencySummary
        let pushes: Int
        let burstSent: Int
        let burstDelivered: Int
        /// Registrations whose messages came in the order sent, each once.
        let burstInOrder: Int
        let burstSeconds: Double
    }

    func run() throws(BenchFailure) -> Result {
        let prosody: ProsodyServer
        do {
            prosody = try ProsodyServer()
        } catch {
            throw BenchFailure("cannot start Prosody for the push section (apt install prosody prosody-modules): \(error)")
        }
        defer { prosody.stop() }
        let daemon = try BenchDaemon(programs: programs, scratch: scratch, section: "push", name: "The push notifyd")
        defer { daemon.stop() }
        return try daemon.measure { daemon throws(BenchFailure) in try measure(daemon, prosody) }
    }

    private func measure(_ daemon: BenchDaemon, _ prosody: ProsodyServer) throws(BenchFailure) -> Result {
        try connect(daemon, to: prosody)
        let apps = (0..<Self.burstApps).map { "org.notifyd.Bench.Push\($0)" }
        let connector = try BenchPushConnector(address: daemon.bus.address, apps: apps)
        defer { connector.stop() }
        var endpoints: [String] = []
        for (index, app) in apps.enumerated() {
            endpoints.append(try connector.register(token: "bench-\(index)", app: app))
        }
        let bare = try BareXMPPReceiver(
            jid: prosody.jid, password: ProsodyServer.password, host: "127.0.0.1", port: prosody.clientPort,
            caFile: prosody.caFile)
        defer { bare.stop() }
        let poster = PushPoster(port: prosody.httpPort)
        let floor = try PushFloorProbe(
            connection: daemon.connection, app: apps[0], syncedFilePath: daemon.directory.appending("floor-sync"))
        var notifydSamples = LatencySamples(reservingCapacity: pushes)
        var bareSamples = LatencySamples(reservingCapacity: pushes)
        var syncSamples = LatencySamples(reservingCapacity: pushes)
        var directSamples = LatencySamples(reservingCapacity: pushes)
        let body = (0..<256).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for index in 0..<(Self.warmUp + pushes) {
            let viaNotifyd = try timePush(body, to: endpoints[0], poster: poster) { connector.deliveries.last?.arrived }
            let viaBare = try timePush(body, to: bare.endpoint, poster: poster) { bare.arrivals.last }
            let sync = try floor.timeSync()
            let direct = try floor.timeMessage(body) { connector.deliveries.last?.arrived }
            if index >= Self.warmUp {
                notifydSamples.append(viaNotifyd)
                bareSamples.append(viaBare)
                syncSamples.append(sync)
                directSamples.append(direct)
            }
        }
        poster.close()
        let burst = try burst(connector, endpoints: endpoints, port: prosody.httpPort)
        return Result(
            notifyd: notifydSamples.summary(), bare: bareSamples.summary(), sync: syncSamples.summary(),
            directMessage: directSamples.summary(), pushes: pushes,
            burstSent: Self.burstApps * Self.burstPerApp, burstDelivered: burst.delivered,
            burstInOrder: burst.inOrder, burstSeconds: burst.seconds)
    }

    /// `SetServer` to the Prosody account, then waits until connected.
    private func connect(_ daemon: BenchDaemon, to prosody: ProsodyServer) throws(BenchFailure) {
        do {
            _ = try daemon.connection.call(
                destination: NotifydNames.busName, path: NotifydNames.objectPath, interface: NotifydNames.pushInterface,
                member: "SetServer",
                [
                    .string("xmpp"), .string(prosody.jid),
                    .vardict([
                        "password": .string(ProsodyServer.password), "host": .string("127.0.0.1"),
                        "port": .uint16(prosody.clientPort), "ca-file": .string(prosody.caFile),
                    ]),
                ])
            try waitUntil("notifyd connected to Prosody", seconds: 20, intervalMicroseconds: 10_000) {
                let status = try daemon.connection.call(
                    destination: NotifydNames.busName, path: NotifydNames.objectPath,
                    interface: NotifydNames.pushInterface, member: "GetStatus", [])
                return status.first?.vardictEntries?["state"] == .string("connected")
            }
        } catch {
            throw BenchFailure("notifyd did not connect to the push section's Prosody: \(error)")
        }
    }

    /// POSTs one push and waits for its arrival (`arrivals` grows by one);
    /// from the request written to the arrival.
    private func timePush(
        _ body: [UInt8], to endpoint: String, poster: PushPoster, lastArrival: () -> UInt64?
    ) throws(BenchFailure) -> UInt64 {
        let before = lastArrival()
        let (sent, status) = try poster.post(body, to: endpoint)
        guard status == 201 || status == 200 || status == 202 else {
            throw BenchFailure("Prosody answered a push's POST with \(status)")
        }
        let arrived = try Self.nextArrival(after: before, of: "a push to \(endpoint)", lastArrival)
        return arrived > sent ? arrived - sent : 0
    }

    /// Waits (at most 10 s, polling every 50 µs) until `lastArrival`
    /// differs from `before`, and returns it.
    static func nextArrival(
        after before: UInt64?, of what: String, _ lastArrival: () -> UInt64?
    ) throws(BenchFailure) -> UInt64 {
        var arrived: UInt64?
        do {
            try waitUntil(what, seconds: 10, intervalMicroseconds: 50) {
                guard let last = lastArrival(), last != before else { return false }
                arrived = last
                return true
            }
        } catch {
            throw BenchFailure("\(what) did not arrive within 10 s")
        }
        return arrived!
    }
}
