import Logging

/// One part of the daemon with a life of its own (the bus, the store, the
/// GLib thread, caller identification, the timers, the bus name; the push
/// connection and the transfer engine to come): what it does when the
/// daemon starts and when it stops. Built once, with everything it needs.
struct DaemonPart {
    let name: String
    let start: () throws(StartupError) -> Void
    let stop: () -> Void

    init(_ name: String, start: @escaping () throws(StartupError) -> Void = {}, stop: @escaping () -> Void = {}) {
        self.name = name
        self.start = start
        self.stop = stop
    }
}

/// The daemon's parts, started in order and stopped in reverse, once: at
/// the end of a run, or when one of them fails to start (then the parts
/// already started are stopped, in reverse, and the error is thrown).
///
/// The shape of swift-service-lifecycle's `ServiceGroup`, written small:
/// notifyd's one thread blocks in its own event loop, and a `ServiceGroup`
/// would bring Swift's concurrency runtime and its threads to a daemon
/// that has no other use for them, and with them a wake-up every second
/// while idle (docs/ARCHITECTURE.md gives the figures).
final class DaemonParts {
    private let parts: [DaemonPart]
    private let logger: Logger
    /// How many parts have started (the first `started` of ``parts``).
    private var started = 0

    init(_ parts: [DaemonPart], logger: Logger) {
        self.parts = parts
        self.logger = logger
    }

    /// The parts' names, in the order they start.
    var names: [String] { parts.map(\.name) }

    /// Starts every part in order; on a failure, stops those started and throws.
    func start() throws(StartupError) {
        for part in parts[started...] {
            do {
                try part.start()
            } catch {
                logger.debug("\(part.name) could not start; stopping the \(started) part(s) started")
                stop()
                throw error
            }
            started += 1
        }
    }

    /// Stops the parts started, in reverse order. Idempotent.
    func stop() {
        while started > 0 {
            started -= 1
            parts[started].stop()
        }
    }
}
