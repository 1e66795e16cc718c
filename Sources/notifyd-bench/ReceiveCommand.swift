import ArgumentParser
import DBus
import Glibc
import NotifyTestingCore

/// `notifyd-bench receive`: the bare libdbus receiver the events section
/// measures notifyd against, run as a process of its own. Hidden from help
/// (``BenchCommand/main()`` hands it the arguments after `receive`).
///
/// It does what notifyd does with a worker signal, up to its own work:
/// connects, subscribes with the same match rule, runs an ``EventLoop``,
/// checks the signature and decodes every signal's arguments into Swift
/// values. With `--emit` it also emits, for each signal, the two signals
/// notifyd emits for such an event (``PerEventSignals``), and flushes
/// after the last: the wire work notifyd cannot avoid. It prints `ready`
/// once its match rule is on the bus, then, after `--count` signals (or
/// `--timeout-seconds`), one line `received COUNT FIRST LAST CPU`: the
/// signals received, the `CLOCK_MONOTONIC` nanoseconds at which the first
/// and the last arrived (with `--emit`: at which the last one's signals
/// were written to the bus; the clock is the whole machine's, so the
/// benchmark can subtract its own reading of the first send) and the CPU
/// time it used since `ready`, in nanoseconds; then it exits.
struct ReceiveCommand: ParsableCommand {
    /// The first argument that selects this mode.
    static let name = "receive"

    static let configuration = CommandConfiguration(
        commandName: "notifyd-bench \(name)",
        abstract: "Count worker signals as a bare libdbus client, with --emit answering each as notifyd does "
            + "(the baselines of the events section).")

    @Option(help: ArgumentHelp("The bus to listen on.", valueName: "address"))
    var address: String

    @Option(help: ArgumentHelp("Signals to wait for.", valueName: "n"))
    var count: Int

    @Option(help: ArgumentHelp("Give up after this long.", valueName: "seconds"))
    var timeoutSeconds = 60.0

    @Flag(help: "Emit notifyd's two signals (BadgeChanged, HandleEventsForBackgroundSession) for each signal received.")
    var emit = false

    func validate() throws {
        guard count >= 1 else { throw ValidationError("--count must be at least 1.") }
        guard timeoutSeconds > 0 else { throw ValidationError("--timeout-seconds must be positive.") }
    }

    func run() throws {
        let loop = try EventLoop()
        let connection = try DBusConnection.connect(to: .address(address), private: true)
        try connection.attach(to: loop)
        let tally = ReceivedSignals(expected: count, loop: loop, emittingOn: emit ? connection : nil)
        try connection.subscribe(EventBurst.matchRule) { tally.receive($0) }
        loop.scheduleTimer(afterNanoseconds: UInt64(timeoutSeconds * 1e9)) { loop.stop() }
        let cpuAtStart = Self.cpuNanoseconds()
        Self.say("ready")
        loop.run()
        let cpu = Self.cpuNanoseconds() - cpuAtStart
        // An event whose signals could not be emitted does not count: the run then fails, not flatters.
        if tally.emitFailures > 0 { Progress.say("receive: \(tally.emitFailures) events' signals could not be emitted") }
        Self.say("received \(tally.received - tally.emitFailures) \(tally.first) \(tally.last) \(cpu)")
        withExtendedLifetime(connection) {}
    }

    /// User and system time of this process so far.
    static func cpuNanoseconds() -> UInt64 {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let microseconds = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000
            + Int(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        return UInt64(max(0, microseconds)) * 1_000
    }

    /// One line on standard output, written at once (not buffered).
    static func say(_ line: String) {
        let bytes = Array("\(line)\n".utf8)
        _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
    }
}

/// The receiver's count, on its loop thread.
private final class ReceivedSignals {
    let expected: Int
    let loop: EventLoop
    /// Where notifyd's signals for each event go, with `--emit`.
    private weak var emitter: DBusConnection?
    private var signals = PerEventSignals()
    /// Events whose signals could not be emitted (logged at the end).
    private(set) var emitFailures = 0
    private(set) var received = 0
    private(set) var first: UInt64 = 0
    private(set) var last: UInt64 = 0
    /// Bytes of the decoded strings, so that the decoding is used and cannot be optimised away.
    private(set) var decodedBytes = 0

    init(expected: Int, loop: EventLoop, emittingOn emitter: DBusConnection?) {
        self.expected = expected
        self.loop = loop
        self.emitter = emitter
    }

    func receive(_ message: DBusMessage) {
        guard message.signature == "ssa{sv}", let arguments = try? message.arguments(),
            let session = try? arguments.decode(0, as: String.self),
            let app = try? arguments.decode(1, as: String.self),
            let event = try? arguments.decode(2, as: [String: DBusValue].self)
        else { return }
        let title = (try? String(dbusValue: event["title"] ?? .string(""))) ?? ""
        decodedBytes += session.utf8.count + app.utf8.count + title.utf8.count
        let arrived = MonotonicClock.nanoseconds()
        if received == 0 { first = arrived }
        received += 1
        last = arrived
        if let emitter {
            do {
                try signals.emit(session: session, app: app, event: event, on: emitter)
            } catch {
                emitFailures += 1
            }
            // Done when the last event's signals are on the bus.
            if received == expected { emitter.flush() }
            last = MonotonicClock.nanoseconds()
        }
        if received == expected { loop.stop() }
    }
}
