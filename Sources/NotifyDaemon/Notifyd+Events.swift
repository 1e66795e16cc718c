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
            case .string(let newOwner) = arguments[2], name.hasPrefix(":"), !oldOwner.isEmpty, newOwner.isEmpty
        else { return }
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
        effects.popupsDue()
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
    /// core knows (handlers, fetches, tasks), the fetch plan, and the
    /// popups' timers (elapsed time, brought to wall-clock time here); with
    /// nothing due, no timer is armed at all.
    func followDeadlines() {
        let now = clock.now()
        let popups = effects.nextPopupWake.map { now + max(0, $0 - clock.elapsed()) }
        let next = [committer.current.nextDeadline, fetchScheduler.nextWake(at: now), popups].compactMap { $0 }.min()
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
        effects.serverChanged(to: serverMonitor.server?.profile)
    }
}
