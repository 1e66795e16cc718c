import NotifyTestingCore

/// Whole-process timings of command-line clients doing the same call:
/// `notifyctl badge get APP` against `busctl --user call ...` (and
/// `gdbus call --session ...` when gdbus is installed).
///
/// Each timing runs from `posix_spawn` to `waitpid`: loading the program,
/// connecting to the bus, the call, printing, exiting. The clients take
/// turns, and the order of the turn rotates every round, so that no client
/// always runs right after another.
struct ClientSpawnBenchmark {
    /// One command line to time.
    struct Client {
        /// Short name in the report: `notifyctl`, `busctl`, `gdbus`.
        let name: String
        /// The absolute path of the program, or nil when it was not found.
        let executable: String?
        let arguments: [String]

        /// The command as a person would type it.
        var commandLine: String {
            ([executable.map { Executables.baseName(of: $0) } ?? name] + arguments).joined(separator: " ")
        }
    }

    /// What one client gave.
    struct Outcome {
        let client: Client
        /// The wall times, or nil when the client could not do the call.
        let summary: LatencySummary?
        /// What the client printed on its trial run (trimmed), or why it is unavailable.
        let detail: String
    }

    let environment: [String: String]
    /// Runs of each client before timing (they also fill the page cache).
    let warmUpRuns = 3

    /// Times `spawns` runs of each client that works.
    func run(_ clients: [Client], spawns: Int) throws(BenchFailure) -> [Outcome] {
        var details: [String: String] = [:]
        var working: [(client: Client, executable: String)] = []
        for client in clients {
            switch trial(client) {
            case .success(let (executable, output)):
                working.append((client, executable))
                details[client.name] = output
            case .failure(let reason):
                details[client.name] = reason.description
            }
        }
        var samples = [LatencySamples](repeating: LatencySamples(reservingCapacity: spawns), count: working.count)
        for round in 0..<spawns {
            for turn in 0..<working.count {
                let index = (round + turn) % working.count
                let (client, executable) = working[index]
                var termination = SpawnedProcess.Termination.exited(0)
                let elapsed = try MonotonicClock.measure { () throws(BenchFailure) in
                    termination = try BenchPrograms.spawn(executable, client.arguments, environment: environment).wait()
                }
                guard termination.isSuccess else {
                    throw BenchFailure("\(client.commandLine) ended with \(termination) on run \(round + 1) of \(spawns).")
                }
                samples[index].append(elapsed)
            }
        }
        return clients.map { client in
            let index = working.firstIndex { $0.client.name == client.name }
            return Outcome(
                client: client, summary: index.map { samples[$0].summary() }, detail: details[client.name] ?? "")
        }
    }

    /// Runs the client a few times untimed; fails with the reason it cannot be measured.
    private func trial(_ client: Client) -> Swift.Result<(String, String), BenchFailure> {
        guard let executable = client.executable else {
            return .failure(BenchFailure("\(client.name) not found"))
        }
        var output = ""
        for _ in 0..<warmUpRuns {
            let run: (termination: SpawnedProcess.Termination, output: String)
            do {
                run = try BenchPrograms.run(executable, client.arguments, environment: environment)
            } catch {
                return .failure(error)
            }
            output = run.output.split(separator: "\n").first.map(String.init) ?? ""
            guard run.termination.isSuccess else {
                return .failure(BenchFailure("\(client.commandLine) failed (\(run.termination)): \(output)"))
            }
        }
        return .success((executable, output))
    }
}
