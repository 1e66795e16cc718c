import DBus
import Logging
import NotifyCore
import NotifyDesktop

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
            case .string(let newOwner) = arguments[2]
        else { return }
        // An app's name appeared: the push messages held for it go now.
        if !name.hasPrefix(":"), !newOwner.isEmpty, let app = try? AppID(name) {
            pushConnection.delivery.deliverHeld(for: app)
        }
        guard name.hasPrefix(":"), !oldOwner.isEmpty, newOwner.isEmpty else { return }
        callers.forget(name) { [apps, sessions, tasks] in
            apps.ownerLeft(name)
            sessions.callerLeft(name)
            tasks.ownerLeft(name)
        }
    }

    /// Everything whose time has come, in one turn: handlers' deadlines,
    /// fetches' 30 seconds, task cues and expiries, scheduled fetches, and
    /// the popups' timers.
    func runDue() {
        takeClockStep()
        sessions.expireDue()
        let now = clock.now()
        committer.apply { $0.expireFetches(at: now) }
        tasks.runDue()
        fetchScheduler.runDue(at: now)
        transferRunner.runDue(at: now)
        committer.apply { $0.popupsDue(at: now) }
        committer.apply { $0.docksDue(at: now) }
    }

    /// Deadlines are elapsed time, stored as wall-clock time: when the wall
    /// clock was set, they move with it, so that a handler expires neither
    /// an hour late (clock set back) nor an hour early (set forward).
    func takeClockStep() {
        guard let step = clock.takeStep() else { return }
        let moved = committer.apply { $0.shiftDeadlines(by: step) }
        let seconds = Double(step.magnitude) / 1_000_000
        logger.notice(
            "the wall clock was set \(step > 0 ? "forward" : "back") by \(seconds) s; \(moved) deadline(s) moved with it")
    }

    /// The one deadline timer follows the earliest of every deadline the
    /// core knows (handlers, fetches, tasks, popups, docks) and the fetch
    /// plan; with nothing due, no timer is armed at all.
    func followDeadlines() {
        let now = clock.now()
        let next = [committer.current.nextDeadline, fetchScheduler.nextWake(at: now)].compactMap { $0 }.min()
        deadlines.follow(next) { [weak self] in self?.runDue() }
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
        committer.apply { $0.notificationServerChanged(to: serverMonitor.server?.profile, at: clock.now()) }
        effects.serverPropertiesChanged()
    }
}
