import DBus
import FoundationEssentials  // NginxServer's URLs
import Glibc
import NotifyCore
import NotifyTesting
import NotifyTestingCore

/// Background transfers' cost (SPEC "Background transfers"), in three
/// parts, each on a bus and a notifyd of its own:
///
/// 1. **Fresh**: a notifyd no transfer was ever asked of has no engine
///    thread (`notifyd-transfer`, started at the first transfer) and its
///    resident memory is the idle daemon's.
/// 2. **Download**: a file of `--transfer-mib` MiB (1 GiB by default)
///    from a private nginx on loopback (``NginxServer``), by notifyd
///    (`Download`, until `TransferChanged` says `completed`) and by
///    `curl -o FILE`, into the same directory, ``runs`` times each,
///    alternating; the medians of the throughput and of the CPU time per
///    GiB (notifyd: `utime + stime` of `/proc/PID/stat` over the download;
///    curl: its `rusage`). Each file's size is checked, and the first of
///    each client's SHA-256 against the original (outside the timing).
/// 3. **Queued**: a notifyd in a network namespace without a default route
///    with `--transfer-queued` downloads waiting for a network: its
///    wake-ups over `--transfer-idle-seconds`, and its heap per transfer.
struct TransferBenchmark {
    let programs: BenchPrograms
    let scratch: ScratchDirectory
    let settings: Settings

    /// The section's options.
    struct Settings {
        /// The downloaded file's size, in MiB (1024: 1 GiB).
        let mebibytes: Int
        /// How long the daemon with queued transfers is watched.
        let idleSeconds: Double
        /// Downloads queued while there is no network (at most 10,000, notifyd's limit).
        let queued: Int
    }

    /// Downloads by each client, alternating; the medians are reported.
    static let runs = 3
    /// The app the timed downloads are for.
    static let app = "org.notifyd.bench.Transfer"
    /// The engine thread's name as `/proc/PID/task/*/comm` shows it:
    /// `notifyd-transfer` cut to the kernel's 15 characters.
    static let threadName = String("notifyd-transfer".prefix(15))
    /// The pause before reading a fresh daemon: its start-up work done.
    static let freshSettleSeconds = 2.0

    struct Result {
        let settings: Settings
        let fresh: Fresh
        let download: Downloads
        let queued: Queued
    }

    /// A daemon no transfer was asked of.
    struct Fresh {
        let memory: ProcessMemory
        /// Threads named ``threadName`` before any transfer (target: none).
        let engineThreads: Int
        /// The names of all its threads then.
        let threadNames: [String]
        /// Threads named ``threadName`` after the warm-up download (1: the check sees the thread).
        let engineThreadsAfterDownload: Int
        /// Whether libcurl was mapped before any transfer (target: no, it is loaded at the first).
        let libcurlBefore: Bool
        /// Whether libcurl was mapped after the downloads (yes: the check sees it).
        let libcurlAfter: Bool
    }

    func run() throws(BenchFailure) -> Result {
        let server: NginxServer
        do {
            server = try NginxServer()
        } catch {
            throw BenchFailure("cannot start nginx for the transfer section (apt install nginx-light): \(error)")
        }
        defer { server.stop() }
        Progress.say("transfer: writing \(settings.mebibytes) MiB for nginx to serve")
        let source = try SourceFile.write(
            mebibytes: settings.mebibytes, at: server.root.appendingPathComponent("transfer.bin").path)
        let warmUp = try SourceFile.write(mebibytes: 1, at: server.root.appendingPathComponent("warm-up.bin").path)
        let daemon = try BenchDaemon(programs: programs, scratch: scratch, section: "transfer", name: "The transfer notifyd")
        let (fresh, download) = try daemon.measure { daemon throws(BenchFailure) in
            MonotonicClock.sleep(seconds: Self.freshSettleSeconds)
            let memory = try IdleBenchmark(pid: daemon.pid).measureMemory()
            let names = Self.threadNames(of: daemon.pid)
            let libcurlBefore = Self.mapsLibcurl(daemon.pid)
            let downloads = try DownloadComparison(
                daemon: daemon, directory: try daemon.directory.makeSubdirectory("downloads"),
                source: source, warmUp: warmUp, baseURL: server.httpURL
            ).run(runs: Self.runs)
            let fresh = Fresh(
                memory: memory, engineThreads: names.filter { $0 == Self.threadName }.count, threadNames: names,
                engineThreadsAfterDownload: downloads.engineThreadsAfterWarmUp, libcurlBefore: libcurlBefore,
                libcurlAfter: Self.mapsLibcurl(daemon.pid))
            return (fresh, downloads)
        }
        daemon.stop()
        let queued = try QueuedTransfers(programs: programs, scratch: scratch, settings: settings).run()
        return Result(settings: settings, fresh: fresh, download: download, queued: queued)
    }

    /// Whether libcurl is in the process's memory map now.
    static func mapsLibcurl(_ pid: pid_t) -> Bool {
        ProcReader.readFile("/proc/\(pid)/maps")?.contains("/libcurl.so") ?? false
    }

    /// The names (`comm`) of the process's threads now.
    static func threadNames(of pid: pid_t) -> [String] {
        ProcReader.directoryEntries("/proc/\(pid)/task").compactMap { tid in
            ProcReader.readFile("/proc/\(pid)/task/\(tid)/comm").map { String($0.filter { $0 != "\n" }) }
        }
        .sorted()
    }

    /// `utime + stime` of `/proc/PID/stat` in nanoseconds: every thread's,
    /// also of threads that ended (in clock ticks, usually 10 ms).
    static func processorNanoseconds(of pid: pid_t) throws(BenchFailure) -> UInt64 {
        // After the parenthesised command name: state is field 3, utime 14, stime 15.
        guard let text = ProcReader.readFile("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else {
            throw BenchFailure("cannot read /proc/\(pid)/stat: has notifyd ended?")
        }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else {
            throw BenchFailure("cannot read utime and stime in /proc/\(pid)/stat")
        }
        return (user + system) * 1_000_000_000 / UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
    }
}

/// A file for nginx to serve: a 1 MiB block of pseudo-random bytes
/// (SplitMix64, fixed seed) written again and again, every byte on disk
/// (not sparse), synced so that no writeback of it falls into a timing.
struct SourceFile {
    let path: String
    let bytes: UInt64
    /// Its SHA-256 in hex, once asked for (``digest()``).
    func digest() throws(BenchFailure) -> String { try Self.sha256(of: path) }

    static let blockSize = 1 << 20

    static func write(mebibytes: Int, at path: String) throws(BenchFailure) -> SourceFile {
        var generator = SplitMix64(seed: 0x7472_616E_7366_6572)
        var block = [UInt8](repeating: 0, count: blockSize)
        block.withUnsafeMutableBytes { raw in
            for index in 0..<(blockSize / 8) { raw.storeBytes(of: generator.next(), toByteOffset: index * 8, as: UInt64.self) }
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchFailure.system("cannot create \(path)", errno: errno) }
        defer { close(descriptor) }
        for _ in 0..<mebibytes {
            var written = 0
            while written < blockSize {
                let count = block.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, blockSize - written) }
                guard count > 0 else { throw BenchFailure.system("cannot write \(path)", errno: errno) }
                written += count
            }
        }
        guard fsync(descriptor) == 0 else { throw BenchFailure.system("cannot sync \(path)", errno: errno) }
        return SourceFile(path: path, bytes: UInt64(mebibytes) * UInt64(blockSize))
    }

    /// The size of the file at `path`, or nil when there is none.
    static func size(of path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_size) : nil
    }

    /// The SHA-256 of the file at `path`, in hex, by `sha256sum`.
    static func sha256(of path: String) throws(BenchFailure) -> String {
        guard let tool = Executables.inSearchPath("sha256sum") else { throw BenchFailure("sha256sum is not installed (coreutils).") }
        let run = try SpawnedProcess.run(tool, [path], environment: childEnvironment(), processGroup: .parents)
        guard run.termination.isSuccess, let digest = run.output.split(separator: " ").first, digest.count == 64 else {
            throw BenchFailure("sha256sum \(path) ended with \(run.termination): \(run.output)")
        }
        return String(digest)
    }
}
