import ArgumentParser
import DBus
import Glibc

/// `notifyd-fuzz`: hostile calls and signals against a running notifyd.
@main
struct FuzzCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifyd-fuzz",
        abstract: "Send a running notifyd malformed and hostile calls and signals, and check every answer.",
        discussion: """
            Cases are made from the seed alone (case N of a seed is always the same message), sent from \
            many connections at once with calls pipelined, plus connections that leave without reading \
            their replies. Every call must be answered with exactly the error SPEC.md names; signals must \
            change nothing. Before the flood the fuzzer puts legitimate state in place under \
            org.notifyd.Fuzz.* (badges, pending handlers with a 24-hour deadline, an app at its limit of \
            10000 pending handlers) and takes a snapshot of what notifyd shows; afterwards notifyd must be \
            the same process on the same connection and show the same state. Valid events with hostile \
            unknown keys go to org.notifyd.Fuzz.Accepted (one more app per 200000 cases) and are \
            accounted for exactly. Valid transfers (a start time in 2255, a closed port on loopback, a \
            directory that does not exist: none ever starts) go to org.notifyd.Fuzz.AcceptedTransfer and \
            are cancelled once answered.

            The members come from notifyd's own interface declarations (and the worker signal's and \
            the standard interfaces'), so every interface is fuzzed: the summary counts, for each member, \
            the messages that reached it and those that were well-formed (--coverage counts them \
            without a bus).

            Exit status: 0 when every answer was right and nothing changed, 1 on a finding, 2 on bad usage, \
            3 when the fuzzer could not run (no bus, no notifyd).
            """)

    /// ArgumentParser's, except that bad usage exits 2 (as notifyctl does), not `EX_USAGE` 64.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            FileOutput.standardError(fullMessage(for: error) + "\n")
            Glibc.exit(2)
        }
    }

    @Option(help: ArgumentHelp("The bus notifyd is on (default: $DBUS_SESSION_BUS_ADDRESS).", valueName: "address"))
    var address: String?

    @Option(help: "Seed of the cases.")
    var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Hostile messages to send (calls and signals).", valueName: "n"))
    var calls = 100_000

    @Option(help: ArgumentHelp("Stop sending after this long, even short of --calls.", valueName: "seconds"))
    var seconds = 120.0

    @Option(help: ArgumentHelp("Connections flooding at once, each on its own thread.", valueName: "n"))
    var connections = 20

    @Option(help: ArgumentHelp("Calls each connection keeps in flight.", valueName: "n"))
    var window = 64

    @Option(help: ArgumentHelp("Threads of connections that send and leave without reading replies.", valueName: "n"))
    var deserters = 2

    @Option(help: ArgumentHelp("How long a call may wait for its answer.", valueName: "seconds"))
    var replyTimeout = 60.0

    @Option(
        help: ArgumentHelp(
            "Only these families, comma-separated (default: all): \(Family.allCases.map(\.rawValue).joined(separator: ", ")).",
            valueName: "names"))
    var families: String?

    @Option(name: .customLong("case"), help: ArgumentHelp("Replay only case N of the seed (repeatable).", valueName: "N"))
    var cases: [UInt64] = []

    @Flag(inversion: .prefixedNo, help: "Put the legitimate state in place first (org.notifyd.Fuzz.*).")
    var prepare = true

    @Flag(
        inversion: .prefixedNo,
        help: "Call Peer methods with wrong signatures too (libdbus answers Peer itself, whatever the arguments).")
    var peerSignatures = true

    @Flag(help: "Only put the legitimate state in place, then exit (for a caller that snapshots it first).")
    var prepareOnly = false

    @Flag(help: "Print the cases (one line each) instead of sending them; needs no bus.")
    var list = false

    @Flag(
        help: """
            Print how many of the cases reach each member of notifyd's declared interfaces, and how many \
            well-formed, instead of sending them; needs no bus. Exits 1 when a member is not reached, or a \
            method with arguments is never called well-formed.
            """)
    var coverage = false

    @Flag(help: "Print the summary as one JSON object.")
    var json = false

    func validate() throws {
        guard calls > 0, seconds > 0, connections > 0, window > 0, deserters >= 0, replyTimeout > 0 else {
            throw ValidationError("--calls, --seconds, --connections, --window and --reply-timeout must be positive.")
        }
        _ = try selectedFamilies()
    }

    /// The `--coverage` report; exit status 1 when it has gaps.
    private func printCoverage(_ reached: MemberCoverage, of cases: Int) throws {
        print("notifyd-fuzz: seed \(seed), \(cases) cases; per member: interface, name, kind, cases, well-formed")
        for line in reached.lines { print(line) }
        for gap in reached.gaps { print("NOT REACHED \(gap)") }
        if !reached.gaps.isEmpty { throw ExitCode(1) }
    }

    private func selectedFamilies() throws -> Set<Family> {
        guard let families else { return Set(Family.allCases) }
        var chosen = Set<Family>()
        for name in families.split(separator: ",") {
            guard let family = Family(rawValue: String(name)) else {
                throw ValidationError("unknown family '\(name)'; families: \(Family.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            chosen.insert(family)
        }
        return chosen
    }

    func run() throws {
        let chosen = try selectedFamilies()
        if list || coverage {
            var generator = CaseGenerator(seed: seed, families: chosen, prepared: prepare)
            generator.peerSignatures = peerSignatures
            let indices = cases.isEmpty ? Array(0..<UInt64(calls)) : cases
            var reached = MemberCoverage()
            for index in indices {
                let made = generator.make(index)
                if list { print(made.description) } else { reached.add(made) }
            }
            if coverage { try printCoverage(reached, of: indices.count) }
            return
        }
        guard let address = address ?? ProcessInfo.environment("DBUS_SESSION_BUS_ADDRESS") else {
            throw ValidationError("no --address and no DBUS_SESSION_BUS_ADDRESS")
        }
        if prepareOnly {
            do {
                try Preparation.run(DBusConnection.connect(to: .address(address)), address: address)
            } catch {
                FileOutput.standardError("notifyd-fuzz: cannot prepare: \(error)\n")
                throw ExitCode(3)
            }
            return
        }
        let options = FuzzRun.Options(
            address: address, seed: seed, calls: calls, seconds: seconds, connections: connections, window: window,
            deserters: deserters, replyTimeoutMilliseconds: Int32(min(replyTimeout * 1000, 2_000_000_000)),
            families: chosen, prepare: prepare, peerSignatures: peerSignatures, only: cases.isEmpty ? nil : cases)
        let summary: Summary
        do {
            summary = try FuzzRun(options: options).run()
        } catch {
            FileOutput.standardError("notifyd-fuzz: cannot run: \(error)\n")
            throw ExitCode(3)
        }
        print(json ? summary.json : summary.text, terminator: json ? "\n" : "")
        if !summary.passed { throw ExitCode(1) }
    }
}

/// The process environment (without Foundation).
enum ProcessInfo {
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }
}

/// Writes to standard error.
enum FileOutput {
    static func standardError(_ text: String) {
        var bytes = Array(text.utf8)
        _ = write(2, &bytes, bytes.count)
    }
}
