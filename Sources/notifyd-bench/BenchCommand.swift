import ArgumentParser
import Glibc

/// `notifyd-bench`: measures notifyd against baselines taken in the same run.
@main
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifyd-bench",
        abstract: "Measure notifyd against baselines taken in the same run.",
        discussion: """
            Starts a private dbus-daemon, a fresh state directory and notifyd on it, then reports, each \
            against its baseline, in this order: the GetBadge round trip against Peer.Ping (target: p50 within \
            1.30x); `notifyctl badge get` as a whole process against `busctl call` (target: no slower) and \
            `gdbus call`; notifyd's context switches while idle (target: 0) and its resident memory (target: \
            under 15 MB); a fetch's bookkeeping against two Pings, with 100 apps scheduled, and the wake-ups \
            while they wait (target: 0); 50 clients at once, each making 2000 mixed calls, against the same \
            pattern of Peer.Ping, on a notifyd of their own (target: every call answered, no error; p50 and p99 \
            per call); the first reply of a notifyd started by D-Bus activation against the same call on the \
            running daemon; ListSessions with 100,000 sessions on a notifyd of its own: the longest another call \
            waits meanwhile (target: under 100 ms) and notifyd's resident memory after the replies against \
            before (target: at most 1.10x); BeginBackgroundTask to the sleep lock asked of a stand-in logind, \
            against a Ping; an application server's POST to the app's Message through a private Prosody and notifyd, \
            against the same POST to a bare libstrophe client (target: p50 within 1.50x), and 1000 pushes to 10 apps \
            at once (target: none lost, each app's in order); background transfers on notifyds of their own: no \
            transfer thread before the first transfer (target: none), a 1 GiB download from nginx on loopback against \
            `curl -o` (target: throughput at least 0.90x, CPU per GiB at most 1.20x), and 1000 downloads waiting for a \
            network in a namespace without one (target: no wake-up, under 4 KB of heap each); libcurl on the \
            engine's thread against libcurl on an event loop, in the bench's process (throughput, CPU, the longest \
            stall of the bus loop, idle wake-ups); GetBadge and Ping of a reader on a notifyd of its own whose every fsync takes 20 ms \
            more (libSlowDisk.so preloaded), while another client calls IncrementBadge in a loop, against the \
            same with notifyd idle (target: p50 at most 3x), and the writer's badge against its increments \
            answered; last, a burst of worker events: the rate notifyd stores them durably against a bare \
            libdbus receiver on a second bus (target: at least 0.50x) and against one that also emits the two \
            signals notifyd emits per event, BadgeChanged and HandleEventsForBackgroundSession (target: at \
            least 0.50x), none lost, the badge they add up to, the popups a counting notification server gets \
            (target: at most 50) and the memory per pending handler (target: under 2048 bytes). With --only \
            limits it fills every documented limit on a notifyd of its own (about ten minutes). With --soak \
            MINUTES it runs only the soak: mixed traffic with bounded state on a notifyd of its own, its memory \
            and descriptors sampled every minute, or every 10 s in a soak under 20 minutes (target: over the \
            last 10 minutes, or the last half of a soak under 20 minutes, memory grows under 2 % and \
            descriptors not at all; no error). Everything it started is stopped and removed at the end.

            The exit status is 0 when everything could be measured, even if a target was missed; \
            1 when something could not run.
            """)

    /// ArgumentParser's, except that `notifyd-bench receive ...` runs the
    /// bare receiver of the events section, `receive --emit ...` its
    /// emitting receiver (hidden: as a subcommand it would show in the
    /// usage line).
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == ReceiveCommand.name {
            ReceiveCommand.main(Array(arguments.dropFirst()))
        } else {
            main(arguments)
        }
    }

    @Option(help: ArgumentHelp("GetBadge calls and Ping calls to time (each).", valueName: "n"))
    var calls = 10_000

    @Option(help: ArgumentHelp("Untimed calls of each before timing.", valueName: "n"))
    var warmUpCalls = 1_000

    @Option(help: ArgumentHelp("Runs of each command-line client to time.", valueName: "n"))
    var spawns = 200

    @Option(help: ArgumentHelp("How long to watch notifyd while nothing calls it.", valueName: "seconds"))
    var idleSeconds = 30.0

    @Option(help: ArgumentHelp("Clients of the load section, each a thread with its own connection.", valueName: "n"))
    var loadClients = 50

    @Option(help: ArgumentHelp("Calls each load client makes (and Pings, for the baseline).", valueName: "n"))
    var loadCalls = 2_000

    @Option(help: ArgumentHelp("Starts by D-Bus activation to time.", valueName: "n"))
    var coldStarts = 20

    @Option(help: ArgumentHelp("Worker events to send in one burst (at most 10000, notifyd's limit per app).", valueName: "n"))
    var events = 10_000

    @Option(help: ArgumentHelp("Sessions (one pending handler each) of the list-sessions section.", valueName: "n"))
    var listSessions = 100_000

    @Option(help: ArgumentHelp("ListSessions calls of the list-sessions section.", valueName: "n"))
    var listCalls = 3

    @Option(help: ArgumentHelp("GetBadge calls and Ping calls of each phase of the slow-disk section (each).", valueName: "n"))
    var slowDiskCalls = 10_000

    @Option(help: ArgumentHelp("Pushes the push section times through notifyd and through the bare client (each).", valueName: "n"))
    var pushes = 200

    @Option(help: ArgumentHelp("Size of the file the transfer section downloads by notifyd and by curl, in MiB.", valueName: "n"))
    var transferMib = 1_024

    @Option(help: ArgumentHelp("How long the transfer section watches notifyd with downloads waiting for a network.", valueName: "seconds"))
    var transferIdleSeconds = 30.0

    @Option(help: ArgumentHelp("Downloads the transfer section queues while there is no network (at most 10000).", valueName: "n"))
    var transferQueued = 1_000

    @Option(help: ArgumentHelp("Apps given a full fetch history (100 fetches each) in the limits section (the limit: 10000).", valueName: "n"))
    var limitsFetchApps = 1_000

    @Option(help: ArgumentHelp("Apps given 1000 activations each in the limits section (the limit: 10000 apps).", valueName: "n"))
    var limitsActivationApps = 100

    @Option(
        help: ArgumentHelp(
            "Run only the soak section, for this long: mixed traffic with bounded state, notifyd's memory and descriptors sampled.",
            valueName: "minutes"))
    var soak: Double?

    @Option(help: ArgumentHelp("Clients of the soak, each a thread with its own connection and 8 apps.", valueName: "n"))
    var soakClients = 6

    @Option(
        help: ArgumentHelp(
            "How often the soak reads notifyd's memory and descriptors (default: 60, or 10 for a soak under 20 minutes).",
            valueName: "seconds"))
    var soakSampleSeconds: Double?

    @Option(
        help: ArgumentHelp(
            "Calls a second of the soak's clients together (0: as fast as notifyd answers); paced, the soak's figures do not depend on the machine.",
            valueName: "calls"))
    var soakRate = 1_000.0

    @Option(
        help: ArgumentHelp(
            "Where notifyd and notifyctl are (default: the directory of this executable).", valueName: "dir"))
    var binDir: String?

    @Option(help: ArgumentHelp("Leave out a section; repeat to leave out more.", valueName: "section"))
    var skip: [Section] = []

    @Option(
        help: ArgumentHelp(
            "Run only this section; repeat to run more. The only way to run the long ones (limits).",
            valueName: "section"))
    var only: [Section] = []

    @Flag(help: "Print one JSON object with every figure and ratio instead of the table.")
    var json = false

    @Flag(help: "Keep the scratch directory (notifyd's state and log, the bus log) and print where it is.")
    var keepScratch = false

    func run() throws {
        BenchSignals.stopChildrenWhenStopped()
        do {
            let run = BenchRun(
                programs: try BenchPrograms.locate(binDirectory: binDir),
                sections: soak != nil
                    ? [.soak] : (only.isEmpty ? Set(Section.allCases).subtracting(Section.optIn) : Set(only)).subtracting(skip),
                calls: calls, warmUpCalls: warmUpCalls, spawns: spawns, idleSeconds: idleSeconds,
                loadClients: loadClients, loadCalls: loadCalls, coldStarts: coldStarts, events: events,
                listSessions: listSessions, listCalls: listCalls, slowDiskCalls: slowDiskCalls, pushes: pushes,
                transfer: .init(mebibytes: transferMib, idleSeconds: transferIdleSeconds, queued: transferQueued),
                soak: soak.map {
                    .init(
                        minutes: $0, clients: soakClients, sampleSeconds: soakSampleSeconds ?? SoakBenchmark.Settings.defaultSampleSeconds(minutes: $0),
                        callsPerSecond: soakRate)
                },
                limitsFetchApps: limitsFetchApps, limitsActivationApps: limitsActivationApps,
                keepScratch: keepScratch)
            let report = try run.execute()
            print(json ? report.json() : report.table(), terminator: "")
        } catch {
            Progress.say("error: \(error)")
            throw ExitCode(1)
        }
    }
}
