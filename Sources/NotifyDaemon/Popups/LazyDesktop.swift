import DBus
import Logging
import NotifyDesktop

/// Starts the desktop side (the GLib thread, libnotify, GIO) on the first
/// popup rather than at start-up: a daemon that only keeps badges and
/// handlers never starts that thread nor libnotify, which keeps idle
/// memory and start-up small (the libraries are linked, so they load with
/// the executable, but none of their state is made).
final class LazyDesktop {
    private let logger: Logger
    private var notifier: GLibDesktop?
    private var failedOnce = false
    /// Where the notifier, once started, reports what happened to popups
    /// (set by ``DesktopPopups``; called on the GLib thread).
    var events: @Sendable (DesktopEvent) -> Void = { _ in }

    init(logger: Logger) {
        self.logger = logger
    }

    /// The notifier if it runs, without starting it.
    var started: GLibDesktop? { notifier }

    /// The running notifier, started now if needed (reporting to
    /// ``events``); nil if it cannot start.
    var running: GLibDesktop? {
        if let notifier { return notifier }
        do {
            let started = try GLibDesktop(logger: logger, events: events)
            notifier = started
            failedOnce = false
            return started
        } catch {
            if !failedOnce { logger.error("desktop notifications cannot start: \(error)") }
            failedOnce = true
            return nil
        }
    }

    /// Stops the notifier if it was started.
    func shutDown() {
        notifier?.shutDown()
        notifier = nil
    }
}
