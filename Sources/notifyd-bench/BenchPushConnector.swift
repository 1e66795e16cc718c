import DBus
import NotifyCore
import NotifyTestingCore
import Synchronization

/// The apps of the push section, in the benchmark's process: one
/// connection on a ``LoopThread`` of its own that owns each app's bus name
/// and serves `org.unifiedpush.Connector2` for all of them, as a connector
/// library does for one app. Each `Message` is recorded with the moment it
/// arrived (`CLOCK_MONOTONIC`, the clock the POSTs are timed with) and
/// answered at once; each `NewEndpoint` gives the registration's endpoint.
final class BenchPushConnector: Sendable {
    /// One `Message` as the app got it.
    struct Delivery: Sendable {
        let token: String
        let body: [UInt8]
        let arrived: UInt64
    }

    private struct State {
        var deliveries: [Delivery] = []
        var endpoints: [String: String] = [:]
    }

    let apps: [String]
    private let state = Mutex(State())
    private let thread: LoopThread
    private let connection = LoopOwned<DBusConnection>()
    private let stopped = Atomic<Bool>(false)

    /// Connects to the bus at `address` and takes `apps` as its names.
    init(address: String, apps: [String]) throws(BenchFailure) {
        self.apps = apps
        do {
            thread = try LoopThread(name: "bench-connector")
            let interface = interface()
            let connection = self.connection
            let loop = thread.loop
            try thread.sync {
                let bus = try DBusConnection.connect(to: .address(address), private: true)
                try bus.attach(to: loop)
                try bus.export(DBusObject(path: NotifydNames.connectorPath, interfaces: [interface]))
                for app in apps where try bus.requestName(app) != .primaryOwner {
                    throw TestFailure("\(app) is taken on the bench's bus")
                }
                connection.value = bus
            }
        } catch {
            throw BenchFailure("cannot start the push section's connector: \(error)")
        }
    }

    deinit { stop() }

    /// Leaves the bus and ends the thread. Idempotent.
    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        let connection = self.connection
        try? thread.sync { connection.value = nil }
        thread.stop()
    }

    /// The `Message` calls so far, in the order they came.
    var deliveries: [Delivery] { state.withLock { $0.deliveries } }

    /// How many `Message` calls came so far.
    var deliveryCount: Int { state.withLock { $0.deliveries.count } }

    /// Registers `token` for `app` with notifyd's `Distributor2` (from the
    /// connector's own connection, as a connector library does) and waits
    /// for its endpoint.
    func register(token: String, app: String, seconds: Double = 20) throws(BenchFailure) -> String {
        let connection = self.connection
        do {
            let answer = try thread.sync {
                try connection.value?.call(
                    destination: NotifydNames.distributorBusName, path: NotifydNames.distributorPath,
                    interface: NotifydNames.distributor2Interface, member: "Register",
                    [.vardict(["service": .string(app), "token": .string(token), "description": .string("bench")])])
            }
            guard answer?.first?.vardictEntries?["success"] == .string("REGISTRATION_SUCCEEDED")
            else { throw TestFailure("Register answered \(String(describing: answer))") }
            var endpoint: String?
            try waitUntil("the endpoint of \(token)", seconds: seconds, intervalMicroseconds: 1_000) {
                endpoint = state.withLock { $0.endpoints[token] }
                return endpoint != nil
            }
            return endpoint!
        } catch {
            throw BenchFailure("cannot register \(token) for \(app): \(error)")
        }
    }

    /// Waits until `count` messages came in all; false after `seconds`.
    func waitForDeliveries(_ count: Int, seconds: Double) -> Bool {
        (try? waitUntil("\(count) push messages", seconds: seconds, intervalMicroseconds: 200) {
            deliveryCount >= count
        }) != nil
    }

    private func received(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let arrived = MonotonicClock.nanoseconds()
        let fields = call.arguments.first?.vardictEntries ?? [:]
        guard case .string(let token)? = fields["token"], case .array(_, let bytes)? = fields["message"] else { throw DBusError.invalidArgs("Message without a token or a message") }
        let body = bytes.compactMap { value -> UInt8? in
            if case .byte(let byte) = value { return byte }
            return nil
        }
        state.withLock { $0.deliveries.append(Delivery(token: token, body: body, arrived: arrived)) }
        return .reply([.vardict([:])])
    }

    private func newEndpoint(_ call: DBusMethodCall) throws -> DBusMethodResult {
        let fields = call.arguments.first?.vardictEntries ?? [:]
        guard case .string(let token)? = fields["token"], case .string(let endpoint)? = fields["endpoint"] else { throw DBusError.invalidArgs("NewEndpoint without a token or an endpoint") }
        state.withLock { $0.endpoints[token] = endpoint }
        return .reply([.vardict([:])])
    }

    private func interface() -> DBusInterface {
        let dictionary = DBusType.dictionary(key: .string, value: .variant)
        return DBusInterface(
            NotifydNames.connector2Interface,
            methods: [
                DBusMethod("Message", inputs: [.init("args", dictionary)], outputs: [.init("ret", dictionary)]) {
                    [unowned self] call in try self.received(call)
                },
                DBusMethod("NewEndpoint", inputs: [.init("args", dictionary)], outputs: [.init("ret", dictionary)]) {
                    [unowned self] call in try self.newEndpoint(call)
                },
                DBusMethod("Unregistered", inputs: [.init("args", dictionary)], outputs: [.init("ret", dictionary)]) {
                    _ in .reply([.vardict([:])])
                },
            ])
    }
}
