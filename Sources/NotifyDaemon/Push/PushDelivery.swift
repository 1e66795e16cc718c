import Logging
import NotifyCore
import NotifyStore

/// Hands held push messages to the apps' connectors (`Message`), the
/// oldest first; a message leaves the book only when the connector took
/// it. One that was not taken (the app could not be started, or did not
/// answer) stays held, and so do the later ones of its registration (tried
/// now, they would come before it): all are tried again when the app
/// registers again, when its name appears on the bus, and at start-up.
/// When a new message comes for it, only the oldest held is offered again,
/// alone: if the app takes it, the rest follow in order; if not, that was
/// one call, not one per message held, so an app that keeps refusing costs
/// one call per message that comes, not up to a hundred.
///
/// At most ``maximumInFlight`` messages are on their way at once; the
/// others wait in arrival order, as IDs: the book keeps no bodies (at its
/// limits they would be 410 MB), so a waiting message's body is read back
/// from the state database, on the writer thread, when its turn comes. A
/// message just stored is sent with the body it came with when nothing
/// waits before it. Calls go out in queue order on one connection, so an
/// app gets each registration's messages in the order they came.
///
/// Each delivery holds off sleep, as a background task does, until the
/// connector answers (at most the call's 30 seconds).
final class PushDelivery {
    /// How many messages may be on their way (body read, or `Message`
    /// not answered) at once.
    static let maximumInFlight = 64

    private let committer: Committer
    /// The writer thread, which reads held messages' bodies back.
    private let bodies: StoreWriter
    private let connectors: ConnectorCaller?
    private let sleepLock: SleepLockDemands
    private let logger: Logger
    /// Messages on their way.
    private var inFlight: Set<UInt64> = []
    /// Messages waiting for a place, oldest first from `next`.
    private var waiting: [HeldPushMessage] = []
    private var next = 0
    /// The IDs in `waiting[next...]`.
    private var waitingIDs: Set<UInt64> = []
    /// Registrations whose connector did not take a message: the rest of
    /// their messages wait for the next occasion.
    private var stalled: Set<PushToken> = []
    /// Registrations whose oldest held message is offered alone, after
    /// their app refused one, by the message's ID: the others wait for its
    /// answer.
    private var probes: [PushToken: UInt64] = [:]

    init(
        committer: Committer, bodies: StoreWriter, connectors: ConnectorCaller?, sleepLock: SleepLockDemands,
        logger: Logger
    ) {
        self.committer = committer
        self.bodies = bodies
        self.connectors = connectors
        self.sleepLock = sleepLock
        self.logger = logger
    }

    /// Delivers a message just stored, with the body it came with, unless
    /// others wait before it (then it waits too, as an ID).
    func deliver(_ message: PushMessage) {
        guard connectors != nil, !isQueued(message.id), probes[message.token] == nil else { return }
        if stalled.remove(message.token) != nil {
            // Another try for the registration: its oldest message, alone.
            guard let oldest = committer.committed.push.held(for: message.token).first else { return }
            probes[message.token] = oldest.id
            enqueue(oldest)
            pump()
        } else if waitingIDs.isEmpty && inFlight.count < Self.maximumInFlight {
            send(message)
        } else {
            enqueue(message.held)
        }
    }

    /// Delivers every message held for `app` (it registered again, or its
    /// name appeared).
    func deliverHeld(for app: AppID) {
        let push = committer.committed.push
        guard !push.pending.isEmpty else { return }  // the common case: nothing held
        for registration in push.registrations(of: app) {
            stalled.remove(registration.token)
            for message in push.held(for: registration.token) { enqueue(message) }
        }
        pump()
    }

    /// Delivers every message held (at start-up).
    func deliverHeld() {
        let push = committer.committed.push
        stalled.removeAll()
        for message in push.pending.values.joined().sorted(by: { $0.id < $1.id }) { enqueue(message) }
        pump()
    }

    /// Messages on their way or waiting (for tests and the log).
    var queued: Int { inFlight.count + waitingIDs.count }

    private func isQueued(_ id: UInt64) -> Bool { inFlight.contains(id) || waitingIDs.contains(id) }

    private func enqueue(_ message: HeldPushMessage) {
        guard connectors != nil, !isQueued(message.id) else { return }
        waiting.append(message)
        waitingIDs.insert(message.id)
    }

    /// Starts waiting messages while there is room: reads each one's body,
    /// then sends it if it is still held.
    private func pump() {
        while inFlight.count < Self.maximumInFlight, next < waiting.count {
            let message = waiting[next]
            next += 1
            waitingIDs.remove(message.id)
            guard !stalled.contains(message.token), probes[message.token].map({ $0 == message.id }) ?? true
            else { continue }
            guard committer.current.push.isHeld(message.id, for: message.token) else {
                abandonProbe(message)
                continue
            }
            inFlight.insert(message.id)
            let id = message.id
            bodies.perform({ try $0.loadPushMessageBody(id: id) }) { [weak self] result in self?.read(message, result) }
        }
        if next == waiting.count {
            waiting.removeAll(keepingCapacity: waiting.count <= 1_024)
            next = 0
        }
    }

    private func read(_ message: HeldPushMessage, _ result: Result<[UInt8]?, any Error>) {
        inFlight.remove(message.id)
        switch result {
        case .success(let body?) where committer.current.push.isHeld(message.id, for: message.token):
            if !stalled.contains(message.token) { send(message.with(body: body)) }
        case .success:
            abandonProbe(message)  // delivered or dropped meanwhile
        case .failure(let error):
            logger.warning("cannot read held push message \(message.id) from the state database: \(error)")
            abandonProbe(message)
        }
        pump()
    }

    /// `message` will not be offered now: if it was its registration's
    /// probe, the registration waits for the next occasion again.
    private func abandonProbe(_ message: HeldPushMessage) {
        guard probes[message.token] == message.id else { return }
        probes[message.token] = nil
        stalled.insert(message.token)
    }

    private func send(_ message: PushMessage) {
        guard let connectors, let registration = committer.current.push.registrations[message.token] else {
            abandonProbe(message.held)
            return
        }
        inFlight.insert(message.id)
        // Before the call: its answer may come at once (Connector1's
        // Message has none), and a delivery must begin before it ends.
        sleepLock.deliveryBegan()
        connectors.message(message, to: registration) { [weak self] failure in
            self?.finished(message.held, app: registration.app, failure: failure)
        }
    }

    private func finished(_ message: HeldPushMessage, app: AppID, failure: String?) {
        inFlight.remove(message.id)
        sleepLock.deliveryEnded()
        let wasProbe = probes[message.token] == message.id
        if wasProbe { probes[message.token] = nil }
        if let failure {
            if stalled.insert(message.token).inserted {
                logger.notice(
                    "the UnifiedPush connector of \(app) did not take message \(message.id) (\(failure)); its messages are held until the app registers again, its name appears, or another message comes")
            }
        } else {
            committer.applyWhenConvenient { $0.pushDelivered(message.id, for: message.token) }
            if wasProbe {
                // The app takes messages again: the rest, in order (even if
                // an older call, still on its way when the probe went out,
                // failed meanwhile).
                stalled.remove(message.token)
                for held in committer.committed.push.held(for: message.token) where held.id != message.id {
                    enqueue(held)
                }
            }
        }
        pump()
    }
}
