import DBus
import FoundationEssentials  // NginxServer's URLs
import Glibc
import NotifyTesting
import NotifyTestingCore
import NotifyTransfer
import Synchronization

/// The transfer-drive section: the two ways issue 31 offered to drive
/// libcurl, measured in one run. The engine as built (`TransferEngine`,
/// libcurl's multi interface on a thread of its own, `curl_multi_poll`)
/// against libcurl driven from an ``EventLoop`` like notifyd's bus loop
/// (`curl_multi_socket_action` on its epoll and timers,
/// ``LoopDrivenDownload``). Both write, stream out and sync the file the
/// same way. For each: throughput and CPU over a download from nginx, the
/// longest a loop standing for the bus thread kept work waiting meanwhile
/// (``BusStallProbe``), and the wake-ups of the thread that holds libcurl
/// while idle with a kept-alive connection.
struct EngineDriveBenchmark {
    struct Settings {
        let mebibytes: Int
        let idleSeconds: Double
    }

    /// One download by one variant.
    struct Run {
        let nanoseconds: UInt64
        let cpuNanoseconds: UInt64
        /// The longest a posted no-op waited on the bus-like loop.
        let stallNanoseconds: UInt64
    }

    struct Result {
        let settings: Settings
        let bytes: UInt64
        let thread: [Run]
        let loop: [Run]
        /// Downloads of the original's size (of `2 × runs`).
        let sizesRight: Int
        /// Context switches of the libcurl thread over `idleSeconds`, connection kept alive.
        let threadIdleSwitches: Int
        let loopIdleSwitches: Int
    }

    static let runs = 3
    let scratch: ScratchDirectory
    let settings: Settings

    func run() throws(BenchFailure) -> Result {
        let server: NginxServer
        do {
            server = try NginxServer()
        } catch {
            throw BenchFailure("cannot start nginx for the transfer-drive section (apt install nginx-light): \(error)")
        }
        defer { server.stop() }
        let source = try SourceFile.write(mebibytes: settings.mebibytes, at: server.root.appendingPathComponent("drive.bin").path)
        _ = try SourceFile.write(mebibytes: 1, at: server.root.appendingPathComponent("warm.bin").path)
        let directory = try scratch.subdirectory("transfer-drive").path
        let ends = EngineEnds()
        let engine = TransferEngine { event in ends.record(event) }
        defer { engine.shutdown() }
        let looped = try LoopDrivenDownload()
        defer { looped.close() }
        let bus: EventLoopThread
        do { bus = try EventLoopThread(name: "bench-bus") } catch { throw BenchFailure("cannot start a loop: \(error)") }
        defer { bus.stop() }
        var nextID: UInt64 = 1
        func byEngine(_ url: String, _ path: String) throws(BenchFailure) {
            nextID += 1
            engine.start(TransferAttempt(id: nextID, direction: .download, url: url, path: path))
            guard case .completed = ends.wait(for: nextID, seconds: 120 + Double(source.bytes >> 20) / 8) else {
                throw BenchFailure("the engine's download of \(url) did not complete")
            }
        }
        try byEngine("\(server.httpURL)/warm.bin", directory + "/warm-thread.bin")
        try looped.download(url: "\(server.httpURL)/warm.bin", to: directory + "/warm-loop.bin")
        var (threadRuns, loopRuns, sizesRight) = ([Run](), [Run](), 0)
        let url = "\(server.httpURL)/drive.bin"
        for index in 0..<Self.runs {
            for variant in index % 2 == 0 ? ["thread", "loop"] : ["loop", "thread"] {
                let path = "\(directory)/\(variant)-\(index).bin"
                Progress.say("transfer-drive: download \(index + 1) of \(Self.runs), libcurl on a \(variant)")
                sync()
                MonotonicClock.sleep(seconds: 0.5)
                let probe = try BusStallProbe(variant == "thread" ? bus.loop : looped.thread.loop)
                let (cpuBefore, start) = (Self.processCPU(), MonotonicClock.nanoseconds())
                if variant == "thread" { try byEngine(url, path) } else { try looped.download(url: url, to: path) }
                let (end, cpuAfter) = (MonotonicClock.nanoseconds(), Self.processCPU())
                let run = Run(nanoseconds: end - start, cpuNanoseconds: cpuAfter - cpuBefore, stallNanoseconds: probe.finish())
                if variant == "thread" { threadRuns.append(run) } else { loopRuns.append(run) }
                if SourceFile.size(of: path) == source.bytes { sizesRight += 1 }
                unlink(path)
            }
        }
        Progress.say("transfer-drive: both idle for \(NumberText.compact(settings.idleSeconds)) s with a connection kept alive")
        let (threadID, loopID) = (engine.threadID, looped.threadID())
        MonotonicClock.sleep(seconds: 0.5)  // the loop back asleep after answering threadID()
        let (threadBefore, loopBefore) = (Self.switches(threadID), Self.switches(loopID))
        MonotonicClock.sleep(seconds: settings.idleSeconds)
        return Result(
            settings: settings, bytes: source.bytes, thread: threadRuns, loop: loopRuns, sizesRight: sizesRight,
            threadIdleSwitches: Self.switches(threadID) - threadBefore, loopIdleSwitches: Self.switches(loopID) - loopBefore)
    }

    /// This process's CPU time (every thread's), in nanoseconds.
    static func processCPU() -> UInt64 {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func nanoseconds(_ time: timeval) -> UInt64 { UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_usec) * 1_000 }
        return nanoseconds(usage.ru_utime) + nanoseconds(usage.ru_stime)
    }

    /// Voluntary and involuntary context switches of this process's thread `id`.
    static func switches(_ id: Int32) -> Int {
        guard let fields = ProcReader.statusFields("/proc/self/task/\(id)/status") else { return 0 }
        return (Int(fields["voluntary_ctxt_switches"] ?? "") ?? 0) + (Int(fields["nonvoluntary_ctxt_switches"] ?? "") ?? 0)
    }
}

/// The engine's attempt ends, waited for by id.
final class EngineEnds: Sendable {
    private let ends = Mutex<[UInt64: TransferAttemptEnd]>([:])

    func record(_ event: TransferEngineEvent) {
        if case .ended(let id, let end) = event { ends.withLock { $0[id] = end } }
    }

    /// The end of attempt `id`, waited for up to `seconds` (nil when it did not come).
    func wait(for id: UInt64, seconds: Double) -> TransferAttemptEnd? {
        let deadline = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
        while MonotonicClock.nanoseconds() < deadline {
            if let end = ends.withLock({ $0[id] }) { return end }
            MonotonicClock.sleep(seconds: 0.005)
        }
        return nil
    }
}
