import DBus
import Glibc
import NotifyCore
import NotifyTestingCore

/// One run of the benchmark: sets up the bus and notifyd, measures the
/// chosen sections in order (calls, clients, idle, memory, fetch, load,
/// cold-start, list-sessions, tasks, push, transfer, slow-disk, limits, events), tears down.
///
/// Events come last: the burst leaves 10,000 pending handlers whose
/// deadlines (30 s) all pass later, which would wake an idle daemon. Load,
/// cold start, list-sessions, tasks, slow-disk and limits run on buses and
/// notifyds of their own (started and stopped by their sections) while this
/// one idles.
struct BenchRun {
    let programs: BenchPrograms
    let sections: Set<BenchCommand.Section>
    let calls: Int
    let warmUpCalls: Int
    let spawns: Int
    let idleSeconds: Double
    let loadClients: Int
    let loadCalls: Int
    let coldStarts: Int
    let events: Int
    let listSessions: Int
    let listCalls: Int
    /// GetBadge and Ping calls of each phase of the slow-disk section.
    let slowDiskCalls: Int
    /// Pushes timed on each path of the push section.
    let pushes: Int
    /// The transfer section's sizes and times.
    let transfer: TransferBenchmark.Settings
    /// The soak's settings, when it runs.
    let soak: SoakBenchmark.Settings?
    let limitsFetchApps: Int
    let limitsActivationApps: Int
    let keepScratch: Bool

    /// The app whose badge every client reads, and its badge.
    static let appID = "org.notifyd.Bench"
    static let badge: UInt32 = 3
    /// The pause before the idle window, for work earlier sections left.
    static let settleSeconds = 2.0

    func execute() throws(BenchFailure) -> BenchReport {
        var report = BenchReport()
        report.host = HostDescription.current()
        report.sections = BenchCommand.Section.allCases.filter(sections.contains).map(\.rawValue)
        if sections.contains(.calls) { report.settings.append(("calls", Double(calls))) }
        if !sections.isDisjoint(with: [.calls, .slowDisk]) { report.settings.append(("warm-up calls", Double(warmUpCalls))) }
        if sections.contains(.clients) { report.settings.append(("spawns", Double(spawns))) }
        if sections.contains(.idle) { report.settings.append(("idle seconds", idleSeconds)) }
        if sections.contains(.load) {
            report.settings += [("load clients", Double(loadClients)), ("load calls", Double(loadCalls))]
        }
        if sections.contains(.coldStart) { report.settings.append(("cold starts", Double(coldStarts))) }
        if sections.contains(.events) { report.settings.append(("events", Double(events))) }
        if sections.contains(.listSessions) {
            report.settings += [("list sessions", Double(listSessions)), ("list calls", Double(listCalls))]
        }
        if sections.contains(.push) { report.settings.append(("pushes", Double(pushes))) }
        if sections.contains(.transfer) || sections.contains(.transferDrive) {
            report.settings += [
                ("transfer MiB", Double(transfer.mebibytes)), ("transfer idle seconds", transfer.idleSeconds),
                ("transfer queued", Double(transfer.queued)),
            ]
        }
        if sections.contains(.slowDisk) { report.settings.append(("slow-disk calls", Double(slowDiskCalls))) }
        if let soak {
            report.settings += [
                ("soak minutes", soak.minutes), ("soak clients", Double(soak.clients)),
                ("soak sample seconds", soak.sampleSeconds), ("soak calls per second", soak.callsPerSecond),
            ]
        }
        if sections.contains(.limits) {
            report.settings += [
                ("limits fetch apps", Double(limitsFetchApps)), ("limits activation apps", Double(limitsActivationApps)),
            ]
        }
        report.programs = programs.list
        let scratch = try ScratchDirectory(prefix: "notifyd-bench")
        defer {
            if keepScratch { Progress.say("kept \(scratch.path)") } else { scratch.remove() }
        }
        if sections == [.soak], let soak {
            Progress.say("soak: \(NumberText.compact(soak.minutes)) min, \(soak.clients) clients, on a notifyd of its own")
            report.addSoak(try SoakBenchmark(programs: programs, scratch: scratch, settings: soak).run())
            return report
        }

        // The counting server only for the events section, which counts popups.
        let daemon = try BenchDaemon(programs: programs, in: scratch, notificationServer: sections.contains(.events))
        defer { daemon.stop() }
        Progress.say("private bus at \(daemon.bus.address)")
        try daemon.measure { daemon throws(BenchFailure) in try measure(&report, daemon: daemon, scratch: scratch) }

        var termination = SpawnedProcess.Termination.exited(0)
        let stopTime = MonotonicClock.measure { termination = daemon.stopNotifyd() }
        report.notes.append(
            "notifyd stopped on SIGTERM with \(termination) after \(ReportRow.text(Double(stopTime) / 1e6, .milliseconds)).")
        return report
    }

    /// The sections, in order, on a running notifyd.
    ///
    /// - Parameter server: the events section's notification server, when it runs.
    private func measure(_ report: inout BenchReport, daemon: BenchDaemon, scratch: ScratchDirectory) throws(BenchFailure) {
        let (notifyd, connection) = (daemon.notifyd, daemon.connection)
        Progress.say("notifyd (process \(notifyd.pid)) serves \(NotifydNames.busName)")
        let idle = IdleBenchmark(pid: notifyd.pid)
        let memoryAtStart = try? idle.measureMemory()
        let callLatency = CallLatencyBenchmark(connection: connection, appID: Self.appID, expectedBadge: Self.badge)
        try callLatency.prepare()

        if sections.contains(.calls) {
            Progress.say("timing \(calls) GetBadge and \(calls) Ping calls")
            report.addCallLatency(try callLatency.run(calls: calls, warmUpCalls: warmUpCalls))
        }
        if sections.contains(.clients) {
            Progress.say("timing \(spawns) runs of each command-line client")
            let clients = ClientSpawnBenchmark(environment: daemon.clientEnvironment)
            report.addClientSpawns(try clients.run(programs.clients(appID: Self.appID), spawns: spawns))
        }
        if sections.contains(.idle) {
            Progress.say("watching notifyd idle for \(NumberText.compact(idleSeconds)) s")
            report.addWakeUps(try idle.measureWakeUps(seconds: idleSeconds, settleSeconds: Self.settleSeconds))
        }
        if sections.contains(.memory) {
            if !sections.contains(.idle) { MonotonicClock.sleep(seconds: Self.settleSeconds) }
            report.addMemory(idle: try idle.measureMemory(), atStart: memoryAtStart)
        }
        if sections.contains(.fetch) {
            let fetches = max(100, calls / 10)
            Progress.say(
                "scheduling \(FetchBenchmark.apps) apps, timing \(fetches) fetches and Ping pairs, "
                    + "then idling \(NumberText.compact(idleSeconds)) s")
            let fetch = FetchBenchmark(connection: connection, pid: notifyd.pid)
            try fetch.prepare()
            report.addFetch(
                try fetch.run(
                    calls: fetches, warmUpCalls: max(10, warmUpCalls / 10), idleSeconds: idleSeconds,
                    settleSeconds: FetchBenchmark.settleSeconds))
        }
        if sections.contains(.load) {
            Progress.say(
                "\(loadClients) clients making \(loadCalls) Pings, then \(loadCalls) mixed calls, each, "
                    + "on a notifyd of their own")
            let load = LoadBenchmark(programs: programs, scratch: scratch, clients: loadClients, calls: loadCalls)
            report.addLoad(try load.run())
        }
        if sections.contains(.coldStart) {
            Progress.say("starting notifyd by D-Bus activation \(coldStarts) times, on a bus of its own")
            report.addColdStart(try ColdStartBenchmark(programs: programs, scratch: scratch, runs: coldStarts).run())
        }
        if sections.contains(.listSessions) {
            Progress.say("storing \(listSessions) sessions on a notifyd of their own, then \(listCalls) ListSessions calls")
            let listing = ListSessionsBenchmark(
                programs: programs, scratch: scratch, sessions: listSessions, calls: listCalls)
            report.addListSessions(try listing.run())
        }
        if sections.contains(.tasks) {
            let count = max(100, calls / 10)
            Progress.say("beginning and ending \(count) background tasks on a notifyd with a stand-in logind")
            report.addTasks(try TasksBenchmark(programs: programs, scratch: scratch, tasks: count).run())
        }
        if sections.contains(.push) {
            Progress.say("\(pushes) pushes through Prosody to an app by notifyd and to a bare client, then 1000 to 10 apps at once")
            report.addPush(try PushBenchmark(programs: programs, scratch: scratch, pushes: pushes).run())
        }
        if sections.contains(.transfer) {
            Progress.say("transfers: \(transfer.mebibytes) MiB from nginx by notifyd and by curl, then \(transfer.queued) waiting for a network")
            report.addTransfer(try TransferBenchmark(programs: programs, scratch: scratch, settings: transfer).run())
        }
        if sections.contains(.transferDrive) {
            Progress.say("transfer-drive: \(transfer.mebibytes) MiB by libcurl on a thread of its own and on an event loop")
            let settings = EngineDriveBenchmark.Settings(mebibytes: transfer.mebibytes, idleSeconds: transfer.idleSeconds)
            report.addEngineDrive(try EngineDriveBenchmark(scratch: scratch, settings: settings).run())
        }
        if sections.contains(.slowDisk) {
            let slowDisk = SlowDiskBenchmark(programs: programs, scratch: scratch, calls: slowDiskCalls, warmUpCalls: warmUpCalls)
            report.addSlowDisk(try slowDisk.run())
        }
        if sections.contains(.limits) {
            Progress.say("filling notifyd's limits on a notifyd of its own (several minutes)")
            let limits = LimitsBenchmark(
                programs: programs, scratch: scratch, fetchApps: limitsFetchApps, activationApps: limitsActivationApps)
            report.addLimits(try limits.run())
        }
        if let server = daemon.server {
            guard let receiver = programs.bench else { throw BenchFailure("cannot tell where this executable is.") }
            Progress.say("sending \(self.events) worker events, to a bare receiver and to notifyd")
            let burst = EventBurst(count: self.events)
            let benchmark = EventsBenchmark(
                burst: burst, daemon: daemon, server: server,
                baseline: BareReceiverBaseline(
                    burst: burst, programs: programs, receiver: receiver, scratch: scratch,
                    environment: daemon.clientEnvironment))
            report.addEvents(try benchmark.run())
        }
        if daemon.hasEnded { throw BenchFailure("notifyd is no longer running.") }
    }
}
