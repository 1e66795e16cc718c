import DBus
import Logging
import NotifyDesktop

/// Starts the desktop side (the GLib thread, libnotify, GIO) on the first
/// popup rather than at start-up: a daemon that only keeps badges and
/// handlers never loads it, which keeps idle memory and start-up small.
final class LazyDesktop {
    private let logger: Logger
    private let events: @Sendable (DesktopEvent) -> Void
    private var notifier: DesktopNotifier?
    private var failedOnce = false

    init(logger: Logger, events: @escaping @Sendable (DesktopEvent) -> Void) {
        self.logger = logger
        self.events = events
    }

    /// The running notifier, started now if needed (nil if it cannot start).
    var running: DesktopNotifier? {
        if let notifier { return notifier }
        do {
            let started = try DesktopNotifier(logger: logger, events: events)
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
