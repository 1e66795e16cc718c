import DBus
import Glibc
import NotifyCore
import NotifyTesting
import NotifyTestingCore

extension TransferBenchmark {
    /// One timed download: wall time and the client's CPU time over it.
    struct DownloadRun {
        let nanoseconds: UInt64
        let cpuNanoseconds: UInt64
        /// curl's: the `fsync` of its file right after it exited (notifyd's download includes its own).
        var syncNanoseconds: UInt64 = 0
    }

    /// What the downloads came to.
    struct Downloads {
        let bytes: UInt64
        let notifyd: [DownloadRun]
        let curl: [DownloadRun]
        /// The disk alone: the same bytes written from memory, then synced (``DiskWriteBaseline``).
        let disk: [DownloadRun]
        /// Downloaded files whose size was the original's (of `2 × runs`).
        let sizesRight: Int
        /// The first download of each client whose SHA-256 was the original's (of 2).
        let digestsRight: Int
        let engineThreadsAfterWarmUp: Int
    }
}

/// The download part of ``TransferBenchmark``: notifyd's `Download` against
/// `curl -o FILE`, alternating, into the same directory, after one untimed
/// download of 1 MiB by each (notifyd's network monitor, its engine
/// thread and libcurl started; curl and the directory in the cache).
///
/// notifyd is timed from the `Download` call to `TransferChanged` with
/// state `completed` (the file synced and in place, as SPEC asks), its CPU
/// read 200 ms later (what the end set off included); curl from its
/// spawn to its exit, its CPU from `wait4`'s `rusage`, then its file's
/// `fsync` is timed apart (for a baseline as durable). Before each, the
/// disk is synced: no writeback of an earlier file falls into a timing.
/// After each curl, the disk alone is timed (``DiskWriteBaseline``).
struct DownloadComparison {
    let daemon: BenchDaemon
    let directory: String
    let source: SourceFile
    let warmUp: SourceFile
    let baseURL: String

    func run(runs: Int) throws(BenchFailure) -> TransferBenchmark.Downloads {
        guard let curl = Executables.inSearchPath("curl") else { throw BenchFailure("curl is not installed (apt install curl).") }
        let recorder: SignalRecorder
        do {
            recorder = try SignalRecorder(
                address: daemon.bus.address,
                rules: [DBusMatchRule(interface: NotifydNames.transfersInterface, member: "TransferChanged")])
        } catch {
            throw BenchFailure("cannot subscribe to TransferChanged: \(error)")
        }
        let url = "\(baseURL)/\(Self.name(of: source.path))"
        let warmUpURL = "\(baseURL)/\(Self.name(of: warmUp.path))"
        _ = try byNotifyd(warmUpURL, to: directory + "/warm-up-notifyd.bin", recorder: recorder, bytes: warmUp.bytes)
        _ = try byCurl(curl, warmUpURL, to: directory + "/warm-up-curl.bin")
        let engineThreads = TransferBenchmark.threadNames(of: daemon.pid).filter { $0 == TransferBenchmark.threadName }.count
        let original = try source.digest()
        var (notifydRuns, curlRuns, diskRuns) = ([TransferBenchmark.DownloadRun](), [TransferBenchmark.DownloadRun](), [TransferBenchmark.DownloadRun]())
        var (sizesRight, digestsRight) = (0, 0)
        for index in 0..<runs {
            for client in index % 2 == 0 ? ["notifyd", "curl"] : ["curl", "notifyd"] {
                let path = "\(directory)/\(client)-\(index).bin"
                Progress.say("transfer: download \(index + 1) of \(runs) by \(client)")
                sync()
                MonotonicClock.sleep(seconds: 0.5)
                if client == "notifyd" {
                    notifydRuns.append(try byNotifyd(url, to: path, recorder: recorder, bytes: source.bytes))
                } else {
                    var run = try byCurl(curl, url, to: path)
                    run.syncNanoseconds = try Self.timeSync(path)
                    curlRuns.append(run)
                }
                if client == "curl" {
                    sync()
                    diskRuns.append(try DiskWriteBaseline.time(bytes: source.bytes, at: "\(directory)/disk-\(index).bin"))
                }
                let size = SourceFile.size(of: path)
                if size == source.bytes { sizesRight += 1 }
                if size != source.bytes {
                    Progress.say("transfer: \(client)'s download \(index + 1) has \(size.map { "\($0) bytes" } ?? "no file"), not \(source.bytes)")
                } else if index == 0 {
                    let digest = try SourceFile.sha256(of: path)
                    if digest == original { digestsRight += 1 } else { Progress.say("transfer: \(client)'s download differs from the original") }
                }
                unlink(path)
            }
        }
        return .init(
            bytes: source.bytes, notifyd: notifydRuns, curl: curlRuns, disk: diskRuns, sizesRight: sizesRight, digestsRight: digestsRight,
            engineThreadsAfterWarmUp: engineThreads)
    }

    static func name(of path: String) -> String { String(path.split(separator: "/").last ?? "") }

    /// `Download` of `url` to `path`, until `TransferChanged` says it ended (bounded).
    private func byNotifyd(
        _ url: String, to path: String, recorder: SignalRecorder, bytes: UInt64
    ) throws(BenchFailure) -> TransferBenchmark.DownloadRun {
        recorder.reset()
        let pid = daemon.pid
        let cpuBefore = try TransferBenchmark.processorNanoseconds(of: pid)
        let start = MonotonicClock.nanoseconds()
        let id: UInt64
        do {
            id = try daemon.connection.call(
                destination: NotifydNames.busName, path: NotifydNames.objectPath, interface: NotifydNames.transfersInterface,
                member: "Download",
                [.string(TransferBenchmark.app), .string("bench-\(Self.name(of: path))"), .string(url), .string(path), .vardict([:])]
            ).decode(0)
        } catch {
            throw BenchFailure("Download(\(url)) failed: \(error)")
        }
        let ended: Set<String> = ["completed", "failed", "cancelled"]
        let seconds = 120 + Double(bytes >> 20) / 8
        let signals = recorder.wait(seconds: seconds) { signal in
            guard signal.arguments.first == .uint64(id), signal.arguments.count > 3, case .string(let state) = signal.arguments[3]
            else { return false }
            return ended.contains(state)
        }
        let end = MonotonicClock.nanoseconds()
        guard let last = signals?.last else {
            throw BenchFailure("notifyd's download \(id) did not end within \(Int(seconds)) s: \(try details(of: id))")
        }
        guard last.arguments[3] == .string("completed") else {
            throw BenchFailure("notifyd's download \(id) ended \(last.arguments[3]): \(last.arguments.last?.vardictEntries?["reason"] ?? .string("?"))")
        }
        MonotonicClock.sleep(seconds: 0.2)
        let cpuAfter = try TransferBenchmark.processorNanoseconds(of: pid)
        return .init(nanoseconds: end - start, cpuNanoseconds: cpuAfter - cpuBefore)
    }

    /// How long an `fsync` of the file at `path` takes (curl leaves its file unsynced; SPEC has notifyd sync).
    static func timeSync(_ path: String) throws(BenchFailure) -> UInt64 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BenchFailure.system("cannot open \(path)", errno: errno) }
        defer { close(descriptor) }
        let start = MonotonicClock.nanoseconds()
        guard fsync(descriptor) == 0 else { throw BenchFailure.system("cannot sync \(path)", errno: errno) }
        return MonotonicClock.nanoseconds() - start
    }

    /// `GetTransfer(id)`, for a failure's message.
    private func details(of id: UInt64) throws(BenchFailure) -> String {
        do {
            let reply = try daemon.connection.call(
                destination: NotifydNames.busName, path: NotifydNames.objectPath, interface: NotifydNames.transfersInterface,
                member: "GetTransfer", [.uint64(id)])
            let fields = reply.first?.vardictEntries ?? [:]
            return ["state", "reason", "bytes-done", "bytes-total", "attempts"].map { "\($0) \(fields[$0].map { "\($0)" } ?? "?")" }
                .joined(separator: ", ")
        } catch {
            throw BenchFailure("GetTransfer(\(id)) failed: \(error)")
        }
    }

    /// `curl -sS --fail -o PATH URL`, from its spawn to its exit; its CPU time from `wait4`.
    private func byCurl(_ curl: String, _ url: String, to path: String) throws(BenchFailure) -> TransferBenchmark.DownloadRun {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = [curl, "-sS", "--fail", "-o", path, url].map { (text: String) in strdup(text) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let start = MonotonicClock.nanoseconds()
        let spawned = posix_spawn(&child, curl, &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchFailure.system("cannot start \(curl)", errno: spawned) }
        var status: Int32 = 0
        var usage = rusage()
        var reaped: pid_t
        repeat { reaped = wait4(child, &status, 0, &usage) } while reaped == -1 && errno == EINTR
        let end = MonotonicClock.nanoseconds()
        guard reaped == child, status == 0 else {
            throw BenchFailure("curl -o \(path) \(url) ended with wait status \(status)")
        }
        func nanoseconds(_ time: timeval) -> UInt64 { UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_usec) * 1_000 }
        return .init(nanoseconds: end - start, cpuNanoseconds: nanoseconds(usage.ru_utime) + nanoseconds(usage.ru_stime))
    }
}
