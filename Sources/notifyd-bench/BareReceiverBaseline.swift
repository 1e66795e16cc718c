/// The baseline of the events section: the same burst of worker signals,
/// sent the same way, received by a bare libdbus client
/// (`notifyd-bench receive`, a process of its own) instead of notifyd.
///
/// It runs on a second private bus, started for it and stopped after it,
/// with nothing else on it: notifyd is subscribed to the worker signals for
/// its whole life, so on notifyd's bus it would receive (and store) the
/// baseline's burst too. The second `dbus-daemon` is the same program with
/// the same configuration, and notifyd idles meanwhile, so the two bursts
/// differ only in who receives them. The burst is received `runs` times,
/// each by a new receiver, and the fastest counts: a conservative baseline
/// for a ratio that must be high.
struct BareReceiverBaseline {
    let burst: EventBurst
    let dbusDaemon: String
    /// The benchmark's own executable, run as `receive`.
    let receiver: String
    let scratch: ScratchDirectory
    let environment: [String]

    /// One burst, received.
    struct Run {
        let timing: EventBurst.Timing
        /// When the receiver got the last signal (`CLOCK_MONOTONIC`, as the timing).
        let lastReceived: UInt64
        /// CPU time the receiver used from `ready` to its last signal.
        let receiverCPU: UInt64
        /// CPU time the second `dbus-daemon` used from the first send until the receiver was done.
        let busCPU: UInt64?

        /// From the first send to the last signal received.
        var nanoseconds: UInt64 { lastReceived > timing.start ? lastReceived - timing.start : 0 }
    }

    /// Starts the second bus, receives the burst `runs` times, stops the bus.
    func measure(runs: Int) throws(BenchFailure) -> [Run] {
        let directory = ScratchDirectory(existing: try scratch.makeSubdirectory("baseline-bus"))
        let bus = try PrivateBus(dbusDaemon: dbusDaemon, scratch: directory, environment: environment)
        defer { bus.stop() }
        var results: [Run] = []
        for _ in 0..<runs {
            results.append(try receiveOnce(bus: bus, log: directory.appending("receiver.log")))
        }
        return results
    }

    private func receiveOnce(bus: PrivateBus, log: String) throws(BenchFailure) -> Run {
        let address = bus.address
        let messages = try burst.messages()
        let sender = try EventBurst.sender(address: address)
        let child = try ChildProcess.spawn(
            receiver, [ReceiveCommand.name, "--address", address, "--count", String(burst.count)],
            environment: environment, output: .file(log), pipedDescriptors: [1])
        defer { child.terminate(graceSeconds: 2) }
        guard child.readLine() == "ready" else {
            throw BenchFailure("the bare receiver did not start: \(Self.logText(log))")
        }
        let busCPUBefore = ProcReader.cpuNanoseconds(ofProcess: bus.process.pid)
        let timing = try EventBurst.send(messages, on: sender)
        // It prints its count and exits after the last signal (or its timeout).
        let line = child.readPipe().split(separator: "\n").first ?? ""
        let busCPU = ProcReader.cpuNanoseconds(ofProcess: bus.process.pid).flatMap { after in
            busCPUBefore.map { after - $0 }
        }
        let fields = line.split(separator: " ")
        guard fields.count == 5, fields[0] == "received", let received = Int(fields[1]), let last = UInt64(fields[3]),
            let cpu = UInt64(fields[4])
        else {
            throw BenchFailure("the bare receiver answered \"\(line)\". \(Self.logText(log))")
        }
        guard received == burst.count else {
            throw BenchFailure("the bare receiver got \(received) of \(burst.count) signals within its timeout.")
        }
        return Run(timing: timing, lastReceived: last, receiverCPU: cpu, busCPU: busCPU)
    }

    private static func logText(_ path: String) -> String {
        let text = ProcReader.readFile(path) ?? ""
        return text.isEmpty ? "It logged nothing." : "Its log:\n\(text)"
    }
}
