import Logging
import NotifyCore

/// Hands held push messages to the apps' connectors (`Message`), one call
/// in flight per message, the oldest first; a message leaves the book only
/// when the connector took it. One that was not taken (the app could not
/// be started, or did not answer) stays held and is tried again when the
/// app registers again, when its name appears on the bus, and at start-up.
///
/// Each delivery holds off sleep, as a background task does, until the
/// connector answers (at most the call's 30 seconds).
final class PushDelivery {
    private let committer: Committer
    private let connectors: ConnectorCaller?
    private let sleepLock: SleepLockDemands
    private let logger: Logger
    /// Messages whose `Message` call is under way.
    private var inFlight: Set<UInt64> = []

    init(committer: Committer, connectors: ConnectorCaller?, sleepLock: SleepLockDemands, logger: Logger) {
        self.committer = committer
        self.connectors = connectors
        self.sleepLock = sleepLock
        self.logger = logger
    }

    /// Delivers `message` unless it is on its way already.
    func deliver(_ message: PushMessage) {
        guard let connectors, !inFlight.contains(message.id),
            let registration = committer.current.push.registrations[message.token]
        else { return }
        inFlight.insert(message.id)
        sleepLock.deliveryBegan()
        connectors.message(message, to: registration) { [weak self] taken in
            self?.finished(message, taken: taken)
        }
    }

    /// Delivers every message held for `app` (it registered again, or its
    /// name appeared).
    func deliverHeld(for app: AppID) {
        let push = committer.current.push
        guard !push.pending.isEmpty else { return }  // the common case: nothing held
        for registration in push.registrations(of: app) {
            for message in push.held(for: registration.token) { deliver(message) }
        }
    }

    /// Delivers every message held (at start-up).
    func deliverHeld() {
        let push = committer.current.push
        for token in push.pending.keys.sorted() {
            for message in push.held(for: token) { deliver(message) }
        }
    }

    private func finished(_ message: PushMessage, taken: Bool) {
        inFlight.remove(message.id)
        sleepLock.deliveryEnded()
        guard taken else { return }
        committer.apply { $0.pushDelivered(message.id, for: message.token) }
    }
}
