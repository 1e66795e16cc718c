import DBus
import Logging
import NotifyCore

/// The distributor's side facing the push server, on the bus loop: it
/// owns the one ``PushServerLink`` (made again when the server is set),
/// asks it for the endpoints registrations lack or that expire soon, takes
/// what it reports through the core, and keeps its state for `GetStatus`.
final class PushConnection {
    private let committer: Committer
    private let loop: EventLoop
    private let clock: any DaemonClock
    private let logger: Logger
    let delivery: PushDelivery
    /// Where the server's password is kept.
    let passwords: PushPasswordKeeper
    private var link: (any PushServerLink)?
    /// Counts the links made: what a retired link still reports is dropped.
    private var generation = 0
    /// Where the link stands; `not-configured` without a server.
    private(set) var state = PushServerLinkState.notConfigured
    /// The answers owed to the server for messages not committed yet, by
    /// notifyd's message ID.
    private var answers: [UInt64: PushServerAnswer] = [:]
    /// Keys asked for and not answered yet (asked once per connection).
    private var asked: Set<PushServerKey> = []
    /// `Register` calls waiting for the server's answer.
    let waitingRegistrations: PushRegistrationWaiters
    private var renewal: ClockWake?
    /// How long before its expiry an endpoint is asked for again: an hour,
    /// or half the life the server last granted when that is shorter (a
    /// server whose endpoints live an hour would otherwise be asked again
    /// every minute).
    private var margin = PushConnection.renewalMargin
    /// Whether every registration was asked for again since notifyd
    /// started (SPEC: at start-up each is renewed, and its app gets
    /// `NewEndpoint` when the endpoint changed).
    private var renewedSinceStart = false
    /// The network, followed while a server is set.
    private lazy var network = PushNetworkWatch(loop: loop, logger: logger)

    /// An endpoint is asked for again this long before it expires, at most.
    static let renewalMargin: Microseconds = 3_600 * 1_000_000
    /// The least time between two renewals, unless the margin is shorter.
    static let renewalSpacing: Microseconds = 60_000_000

    init(
        committer: Committer, loop: EventLoop, clock: any DaemonClock, delivery: PushDelivery,
        passwords: PushPasswordKeeper, logger: Logger
    ) {
        self.committer = committer
        self.passwords = passwords
        self.loop = loop
        self.clock = clock
        self.delivery = delivery
        self.logger = logger
        waitingRegistrations = PushRegistrationWaiters(committer: committer, loop: loop, clock: clock)
    }

    /// Connects to the stored server, if any (its password from the Secret
    /// Service when it keeps it), and delivers what was held.
    func start() {
        delivery.deliverHeld()
        guard let stored = committer.current.push.server else { return }
        state = .connecting
        passwords.restore(stored) { [weak self] restored in
            guard let self, committer.current.push.server == stored else { return }  // set again meanwhile
            switch restored {
            case .success(let settings): connect(settings)
            case .failure(let error):
                state = .authenticationFailed(error.message)
                logger.warning("cannot connect to the push server \(stored.address): \(error.message)")
            }
        }
    }

    /// Ends the link (its thread joined).
    func stop() {
        link?.stop()
        link = nil
        network.stop()
        passwords.stop()
        renewal?.cancel()
        renewal = nil
        waitingRegistrations.failAll()
    }

    /// Whether pushes can arrive now.
    var isConnected: Bool { state == .connected }

    /// Whether a registration can be given an endpoint now: connected, or
    /// a server whose endpoints are made without it (ntfy).
    var canRegisterNow: Bool { isConnected || link?.registersOffline == true }

    /// Replaces the link with one for `settings` (nil: none).
    func connect(_ settings: PushServerSettings?) {
        link?.retire()  // its disconnect is not waited for on the bus loop
        link = nil
        generation += 1
        let current = generation
        answers.removeAll()
        asked.removeAll()
        waitingRegistrations.failAll()
        guard let settings else {
            state = .notConfigured
            network.stop()
            return
        }
        network.start { [weak self] in
            self?.logger.info("the network is back: the push server is tried again at once")
            self?.link?.networkReturned()
        }
        do throws(NotifydError) {
            switch settings.kind {
            case .xmpp:
                link = try XMPPServerLink(settings: settings, loop: loop) { [weak self] in
                    self?.handle($0, from: current)
                }
            case .ntfy:
                link = try NtfyServerLink(
                    settings: settings, cursor: committer.current.push.serverCursor, loop: loop
                ) { [weak self] in self?.handle($0, from: current) }
            }
            state = .connecting
            // An ntfy server follows every registration's topic, with or
            // without an endpoint stored.
            if link?.registersOffline == true {
                for registration in committer.current.push.registrations.values.sorted(by: { $0.token < $1.token }) {
                    ask(registration.serverKey)
                }
            }
        } catch {
            state = .disconnected(error.message)
            logger.warning("cannot connect to the push server \(settings.address): \(error.message)")
        }
    }

    /// A registration was stored (new, or again): asked for an endpoint
    /// when it has none and the server is connected.
    func registered(_ registration: PushRegistration) {
        guard registration.endpoint == nil, canRegisterNow else { return }
        ask(registration.serverKey)
    }

    /// A registration was removed: the server is told where it can be.
    func removed(_ registration: PushRegistration) {
        link?.forget(registration.serverKey)
        asked.remove(registration.serverKey)
    }

    /// The message is committed: the server may forget it, and the app gets it.
    func stored(_ message: PushMessage) {
        if let answer = answers.removeValue(forKey: message.id) { link?.acknowledge(answer) }
        delivery.deliver(message)
    }

    private func ask(_ key: PushServerKey) {
        guard let link, !asked.contains(key) else { return }
        asked.insert(key)
        link.register(key)
    }

    private func handle(_ event: PushServerLinkEvent, from linkGeneration: Int) {
        guard linkGeneration == generation else { return }  // a retired link's
        switch event {
        case .state(let new):
            state = new
            if new == .connected {
                asked.removeAll()
                if renewedSinceStart {
                    renewEndpoints()
                } else {
                    renewedSinceStart = true
                    renewAll()
                }
            } else if link?.registersOffline != true {
                // Endpoints asked of the server will not come on this connection.
                asked.removeAll()
                waitingRegistrations.failAll()
            }
        case .registered(let key, let endpoint, let expiry):
            asked.remove(key)
            if let expiry, expiry > clock.now() { margin = min(Self.renewalMargin, (expiry - clock.now()) / 2) }
            guard let token = committer.current.push.tokensByServerKey[key] else { return }
            committer.apply { $0.setPushEndpoint(endpoint, expiry: expiry, for: token) }
            waitingRegistrations.succeeded(token)
            scheduleRenewal()
        case .registrationFailed(let key, let reason):
            asked.remove(key)
            guard let token = committer.current.push.tokensByServerKey[key] else { return }
            logger.notice("the push server did not register \(token) of \(committer.current.push.registrations[token]?.app.rawValue ?? "?"): \(reason)")
            waitingRegistrations.failed(token)
        case .message(let key, let body, let serverID, let answer):
            receive(body, for: key, serverID: serverID, answer: answer)
        case .unknownMessage(let answer):
            link?.refuse(answer)
        }
    }

    private func receive(_ body: [UInt8], for key: PushServerKey, serverID: String, answer: PushServerAnswer) {
        guard let token = committer.current.push.tokensByServerKey[key] else {
            link?.refuse(answer)
            return
        }
        let now = clock.now()
        do {
            let received = try committer.apply { (state) throws(NotifydError) in
                try state.receivePush(body, for: token, serverID: serverID, at: now)
            }
            guard let received else {
                link?.refuse(answer)
                return
            }
            let id = received.message.id
            answers[id] = answer
            // ntfy's acknowledgement is notifyd's own: the message's ID,
            // stored in the same commit as the message (unless messages
            // before it are to come again).
            if case .ntfy(let serverID) = answer, link?.holdsCursor != true {
                committer.apply { $0.setPushServerCursor(serverID) }
            }
            let current = generation
            committer.ifCommitFails { [weak self] error in self?.notStored(id, of: token, error, generation: current) }
            for dropped in received.dropped {
                logger.notice("dropped push message \(dropped.id) for \(token): the app did not take it, and newer ones came")
            }
        } catch {
            logger.notice("refused a push message for \(token): \(error.message)")
            link?.refuse(answer)
        }
    }

    /// Message `id` was not stored (its commit failed): the server is told
    /// to bring it again later, and nothing of it is kept.
    private func notStored(_ id: UInt64, of token: PushToken, _ error: any Error, generation linkGeneration: Int) {
        guard linkGeneration == generation, let answer = answers.removeValue(forKey: id) else { return }
        logger.warning("could not store a push message for \(token); the push server is to send it again later: \(error)")
        link?.postpone(answer)
    }

    /// Asks for every registration's endpoint again (the first connection
    /// since notifyd started).
    private func renewAll() {
        for registration in committer.current.push.registrations.values.sorted(by: { $0.token < $1.token }) {
            ask(registration.serverKey)
        }
        scheduleRenewal()
    }

    /// Asks for every endpoint missing or expiring within the margin.
    private func renewEndpoints() {
        guard isConnected else { return }
        let limit = clock.now() + margin
        for registration in committer.current.push.needingEndpoints(before: limit) { ask(registration.serverKey) }
        scheduleRenewal()
    }

    /// One wake, at the soonest expiry less the margin (not sooner than a
    /// minute, or the margin when shorter); none when nothing expires.
    private func scheduleRenewal() {
        renewal?.cancel()
        renewal = nil
        guard let expiry = committer.current.push.nextEndpointExpiry else { return }
        let delay = max(min(Self.renewalSpacing, margin), expiry - margin - clock.now())
        renewal = clock.wake(after: delay, on: loop) { [weak self] in
            self?.renewal = nil
            self?.renewEndpoints()
        }
    }
}

extension PushServerLinkState {
    static let notConfigured = PushServerLinkState(
        name: "not-configured", reason: "No push server is set, so apps' registrations wait for one.")
}
