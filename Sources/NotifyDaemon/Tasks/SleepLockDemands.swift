/// Who wants notifyd's one sleep lock: the running background tasks (the
/// core's reason) and the push messages being handed to apps (each gets up
/// to 30 seconds, as a task does). The lock says the tasks' reason when
/// there is one, else that apps are handling push messages; it is released
/// when neither wants it. On the bus loop.
final class SleepLockDemands {
    private let inhibitor: SleepInhibitor?
    private var tasksReason: String?
    private var deliveries = 0
    private var wanted: String?

    /// The reason while only push deliveries hold the lock.
    static let deliveryReason = "An app is handling a push message"

    init(inhibitor: SleepInhibitor?) {
        self.inhibitor = inhibitor
    }

    /// The tasks' reason changed (nil: no task runs).
    func tasksWant(_ reason: String?) {
        tasksReason = reason
        update()
    }

    /// A `Message` call to a connector began.
    func deliveryBegan() {
        deliveries += 1
        update()
    }

    /// A `Message` call to a connector ended, answered or not.
    func deliveryEnded() {
        deliveries = max(0, deliveries - 1)
        update()
    }

    private func update() {
        let reason = tasksReason ?? (deliveries > 0 ? Self.deliveryReason : nil)
        guard reason != wanted else { return }
        wanted = reason
        inhibitor?.want(reason)
    }
}
