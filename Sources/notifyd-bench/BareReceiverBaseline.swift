import NotifyTestingCore

/// The baselines of the events section: the same burst of worker signals,
/// sent the same way, received by a bare libdbus client
/// (`notifyd-bench receive`, a process of its own) instead of notifyd;
/// once only received, once received and answered on the wire as notifyd
/// must answer each event (`receive --emit`: two signals per event,
/// ``PerEventSignals``), which is the wire work notifyd cannot avoid.
///
/// It runs on a second private bus, started for it and stopped after it,
/// with nothing else on it: notifyd is subscribed to the worker signals for
/// its whole life, so on notifyd's bus it would receive (and store) the
/// baseline's burst too. The second `dbus-daemon` is the same program with
/// the same configuration, and notifyd idles meanwhile, so the two bursts
/// differ only in who receives them. The burst is received `runs` times
/// by each kind of receiver, each time by a new one, the kinds taking
/// turns (so that a busy moment of the machine does not fall on one kind
/// only), and the fastest of each kind counts: conservative baselines for
/// ratios that must be high.
struct BareReceiverBaseline {
    let burst: EventBurst
    let programs: BenchPrograms
    /// The benchmark's own executable, run as `receive`.
    let receiver: String
    let scratch: ScratchDirectory
    let environment: [String: String]

    /// What a receiver does with each worker signal.
    enum Receiver {
        /// Decodes it (`receive`).
        case receiving
        /// Decodes it and emits notifyd's two signals for it (`receive --emit`).
        case emitting

        /// Its arguments after `receive`.
        var arguments: [String] { self == .emitting ? ["--emit"] : [] }
        /// How it is named in a failure.
        var name: String { self == .emitting ? "the emitting receiver" : "the bare receiver" }
    }

    /// The runs of each kind, in the order taken.
    struct Runs {
        var receiving: [Run] = []
        var emitting: [Run] = []
    }

    /// One burst, received.
    struct Run {
        let timing: EventBurst.Timing
        /// When the receiver got the last signal, or (emitting) had written
        /// its signals to the bus (`CLOCK_MONOTONIC`, as the timing).
        let lastReceived: UInt64
        /// CPU time the receiver used from `ready` to its last signal.
        let receiverCPU: UInt64
        /// CPU time the second `dbus-daemon` used from the first send until the receiver was done.
        let busCPU: UInt64?

        /// From the first send to the last signal received (and answered).
        var nanoseconds: UInt64 { lastReceived > timing.start ? lastReceived - timing.start : 0 }
    }

    /// Starts the second bus, receives the burst `runs` times with each
    /// kind of receiver, stops the bus.
    func measure(runs: Int) throws(BenchFailure) -> Runs {
        let directory = try scratch.subdirectory("baseline-bus")
        let bus = try programs.bus(in: directory)
        defer { bus.stop(graceSeconds: 2) }
        var results = Runs()
        for _ in 0..<runs {
            results.receiving.append(try receiveOnce(.receiving, bus: bus, log: directory.appending("receiver.log")))
            results.emitting.append(try receiveOnce(.emitting, bus: bus, log: directory.appending("emitter.log")))
        }
        return results
    }

    private func receiveOnce(_ kind: Receiver, bus: PrivateBus, log: String) throws(BenchFailure) -> Run {
        let address = bus.address
        let messages = try burst.messages()
        let sender = try EventBurst.sender(address: address)
        let child = try BenchPrograms.spawn(
            receiver, [ReceiveCommand.name, "--address", address, "--count", String(burst.count)] + kind.arguments,
            environment: environment, output: .file(log), pipedDescriptors: [1])
        defer { child.terminate(graceSeconds: 2) }
        guard child.readLine() == "ready" else {
            throw BenchFailure("\(kind.name) did not start: \(Self.logText(log))")
        }
        let busCPUBefore = bus.process.cpuNanoseconds
        let timing = try EventBurst.send(messages, on: sender)
        // It prints its count and exits after the last signal (or its timeout).
        let line = child.readPipe().split(separator: "\n").first ?? ""
        let busCPU = bus.process.cpuNanoseconds.flatMap { after in
            busCPUBefore.map { after - $0 }
        }
        let fields = line.split(separator: " ")
        guard fields.count == 5, fields[0] == "received", let received = Int(fields[1]), let last = UInt64(fields[3]),
            let cpu = UInt64(fields[4])
        else {
            throw BenchFailure("\(kind.name) answered \"\(line)\". \(Self.logText(log))")
        }
        guard received == burst.count else {
            throw BenchFailure(
                "\(kind.name) got (and answered) \(received) of \(burst.count) signals within its timeout. "
                    + Self.logText(log))
        }
        return Run(timing: timing, lastReceived: last, receiverCPU: cpu, busCPU: busCPU)
    }

    private static func logText(_ path: String) -> String {
        let text = ProcReader.readFile(path) ?? ""
        return text.isEmpty ? "It logged nothing." : "Its log:\n\(text)"
    }
}
