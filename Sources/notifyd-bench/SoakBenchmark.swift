import DBus
import Glibc
import NotifyTestingCore

/// Hours of a desktop's traffic against one notifyd, with state kept
/// bounded, sampling its resident memory and descriptors: a daemon that
/// runs for a whole login session must level off.
///
/// On a bus and a notifyd of its own (a fresh state directory) with a
/// counting notification server: first the bounded stores are filled to
/// their caps (every app's activation history and fetch history, the
/// finished sessions kept), so that what follows adds nothing that stays;
/// then `clients` client threads (``SoakClient``, ``SoakMix``) and a
/// stream of short-lived processes (``SoakSpawner``) run for `minutes`,
/// and notifyd's memory and descriptors are read every `sampleSeconds`.
struct SoakBenchmark {
    let programs: BenchPrograms
    let scratch: ScratchDirectory
    let settings: Settings
    /// Seconds between two short-lived callers.
    let spawnInterval = 0.5

    /// What `--soak`, `--soak-clients`, `--soak-sample-seconds` and `--soak-rate` ask for.
    struct Settings {
        let minutes: Double
        let clients: Int
        /// How often notifyd is read; ``defaultSampleSeconds(minutes:)`` unless told.
        let sampleSeconds: Double
        /// Calls a second of all clients together, each client pacing itself
        /// to its share; 0: as fast as notifyd answers.
        let callsPerSecond: Double

        /// Every minute, or every 10 s in a soak under 20 minutes (whose
        /// window, half the run, would otherwise hold too few readings).
        static func defaultSampleSeconds(minutes: Double) -> Double { minutes < 20 ? 10 : 60 }

        /// The seconds the verdict is taken over: the last 10 minutes, or
        /// the last half of a soak under 20 minutes.
        var windowSeconds: Double { minutes >= 20 ? 10 * 60 : minutes * 60 / 2 }
    }

    /// One reading of notifyd, `seconds` after the soak began.
    struct Sample {
        let seconds: Double
        let residentKilobytes: Int
        let anonymousKilobytes: Int?
        let descriptors: Int
        let threads: Int?
        let pendingHandlers: Int?
        /// Calls answered and errors so far, over every client.
        let answered: Int
        let errors: Int
        let spawned: Int
    }

    struct Result {
        let clients: Int
        let minutes: Double
        let prefill: SoakPrefill.Result
        let samples: [Sample]
        let outcome: SoakClientOutcome
        let spawns: SoakSpawner.Counts
        /// The samples the verdict is taken over: the last 10 minutes, or
        /// the last half of a run shorter than 20 minutes.
        let window: ArraySlice<Sample>
        let after: ProcessMemory?
    }

    /// The descriptors notifyd holds: the fewest of 5 readings 20 ms
    /// apart, so that one open for an instant (`/proc` read to identify a
    /// new caller, a file being probed) does not count; a leaked one stays
    /// in every reading.
    static func heldDescriptors(of pid: Int32) -> Int {
        var fewest = Int.max
        for reading in 0..<5 {
            if reading > 0 { MonotonicClock.sleep(seconds: 0.02) }
            fewest = min(fewest, ProcReader.directoryEntries("/proc/\(pid)/fd").count)
        }
        return fewest
    }

    func run() throws(BenchFailure) -> Result {
        // Its system bus is the private bus, where no logind answers: tasks
        // run without a sleep lock, whose one descriptor would otherwise come
        // and go with them (and the machine's logind would see the soak).
        let daemon = try BenchDaemon(
            programs: programs, scratch: scratch, section: "soak", name: "The soak's notifyd", systemBus: .sessionBus,
            notificationServer: true)
        defer { daemon.stop() }
        return try daemon.measure(soak)
    }

    private func soak(_ daemon: BenchDaemon) throws(BenchFailure) -> Result {
        let (bus, notifyd, connection) = (daemon.bus, daemon.notifyd, daemon.connection)
        let (minutes, clients, sampleSeconds) = (settings.minutes, settings.clients, settings.sampleSeconds)
        let clientApps = (1...clients).flatMap { client in
            (0..<SoakClient.appsPerClient).map { "org.notifyd.Soak.C\(client).A\($0)" }
        }
        Progress.say("soak: filling the bounded stores of \(clientApps.count + SoakSpawner.apps.count) apps")
        let prefill = try SoakPrefill(address: bus.address, apps: clientApps + SoakSpawner.apps, threads: clients).run()

        let stop = StopFlag()
        let slots = (0..<clients).map { _ in SoakOutcomeSlot() }
        let spawns = Locked(SoakSpawner.Counts())
        let spawner = SoakSpawner(gdbus: programs.gdbus, busctl: programs.busctl, environment: daemon.clientEnvironment)
        let (address, interval) = (bus.address, spawnInterval)
        let perClient = settings.callsPerSecond / Double(clients)
        let threads = try ClientThreads(count: clients + 1, onFailure: { stop.raise() }) { index in
            if index == 0 {
                spawner.run(interval: interval, stop: stop, counts: spawns)
            } else {
                SoakClient.run(
                    number: index, address: address, callsPerSecond: perClient, stop: stop, slot: slots[index - 1])
            }
        }
        func merged() -> SoakClientOutcome {
            slots.reduce(into: SoakClientOutcome()) { $0.merge($1.latest) }
        }
        let start = MonotonicClock.nanoseconds()
        var samples: [Sample] = []
        func sample() -> Sample? {
            guard let fields = ProcReader.statusFields("/proc/\(notifyd.pid)/status"),
                let resident = ProcReader.kilobytes(fields["VmRSS"])
            else { return nil }
            let outcome = merged()
            return Sample(
                seconds: Double(MonotonicClock.nanoseconds() - start) / 1e9, residentKilobytes: resident,
                anonymousKilobytes: ProcReader.kilobytes(fields["RssAnon"]),
                descriptors: Self.heldDescriptors(of: notifyd.pid),
                threads: fields["Threads"].flatMap { Int($0) }, pendingHandlers: try? connection.notifydPendingHandlers(),
                answered: outcome.answeredCount, errors: outcome.errorCount, spawned: spawns.withLock { $0.spawned })
        }
        let total = minutes * 60
        var failure: BenchFailure?
        if let first = sample() { samples.append(first) }
        var next = sampleSeconds
        while next <= total + 0.001 {
            MonotonicClock.sleep(seconds: max(0, next - Double(MonotonicClock.nanoseconds() - start) / 1e9))
            guard !daemon.hasEnded, let reading = sample() else {
                failure = BenchFailure("notifyd ended during the soak, \(NumberText.compact(next)) s in.")
                break
            }
            samples.append(reading)
            Progress.say(
                "soak: \(NumberText.compact(reading.seconds / 60)) min, VmRSS \(reading.residentKilobytes) kB, "
                    + "\(reading.descriptors) fds, \(reading.answered) calls, \(reading.errors) errors")
            next += sampleSeconds
        }
        stop.raise()
        threads.join()
        if let failure { throw failure }
        let windowSamples = max(1, Int(settings.windowSeconds / sampleSeconds))
        return Result(
            clients: clients, minutes: minutes, prefill: prefill, samples: samples, outcome: merged(),
            spawns: spawns.withLock { $0 }, window: samples.suffix(windowSamples + 1),
            after: try? IdleBenchmark(pid: notifyd.pid).measureMemory())
    }
}
