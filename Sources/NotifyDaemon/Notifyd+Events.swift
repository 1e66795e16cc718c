import DBus
import Logging
import NotifyCore

/// What reaches the daemon from the bus and the clock, and how each is
/// handed to the services: worker signals, connections leaving, deadlines,
/// clock steps, the notification server changing, the end of the bus.
extension Notifyd {
    /// A worker signal runs once its sender is identified (at once when it
    /// is known), in the order received.
    func workerSignal(_ message: DBusMessage) {
        let admitted = callers.whenIdentified(message.sender ?? "") { [sessions] lookup in
            sessions.workerSignal(message, sender: lookup)
        }
        if !admitted {
            sessions.refuse(
                message,
                because: NotifydError(
                    .resourcesExhausted, "\(CallerCheck.waitingLimit) messages wait for their senders to be identified"))
        }
    }

    func nameOwnerChanged(_ message: DBusMessage) {
        guard let arguments = try? message.arguments(), arguments.count == 3,
            case .string(let name) = arguments[0], case .string(let oldOwner) = arguments[1],
            case .string(let newOwner) = arguments[2], name.hasPrefix(":"), !oldOwner.isEmpty, newOwner.isEmpty
        else { return }
        callers.forget(name) { [apps, sessions, tasks] in
            apps.ownerLeft(name)
            sessions.callerLeft(name)
            tasks.ownerLeft(name)
        }
    }

    /// Handlers and fetches whose time is up (one timer for both).
    func expireDueHandlers() {
        takeClockStep()
        sessions.expireDue()
        let now = clock.now()
        state.carry(state.mutate { $0.expireFetches(at: now) })
        tasks.runDue()
        followDeadlines()
    }

    /// Deadlines are elapsed time, stored as wall-clock time: when the wall
    /// clock was set, they move with it, so that a handler expires neither
    /// an hour late (clock set back) nor an hour early (set forward).
    func takeClockStep() {
        guard let step = clock.takeStep() else { return }
        let shift = state.mutate { $0.shiftDeadlines(by: step) }
        state.carry(shift.outcome)
        let moved = shift.moved
        let seconds = Double(step.magnitude) / 1_000_000
        logger.notice(
            "the wall clock was set \(step > 0 ? "forward" : "back") by \(seconds) s; \(moved) deadline(s) moved with it")
    }

    func followDeadlines() {
        let current = state.current
        let next = [current.sessions.nextDeadline, current.fetches.earliestDeadline, current.tasks.nextWake]
            .compactMap { $0 }.min()
        deadlines.follow(next) { [weak self] in self?.expireDueHandlers() }
        fetchScheduler.follow()
    }
    func shutDown(signal: Int32) {
        logger.info("signal \(signal) received, shutting down")
        commit()
        loop.stop()
    }

    func busLost() {
        logger.notice("the bus went away, shutting down")
        commit()
        loop.stop()
    }

    func serverChanged() {
        dispatcher?.serverChanged()
        do {
            try connection.emitPropertiesChanged(
                of: object, interface: NotifydNames.daemonInterface, names: DaemonService.serverProperties)
        } catch {
            logger.warning("cannot announce the notification server change: \(error)")
        }
    }
}
