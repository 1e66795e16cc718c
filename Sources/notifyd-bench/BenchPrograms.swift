import Glibc
import NotifyCore
import NotifyTestingCore

/// Why part of the benchmark could not run (as opposed to a missed target,
/// which is a result): the toolkit's failure, whose description says what.
typealias BenchFailure = TestFailure

/// The programs one run starts, found before anything is timed, and how
/// the benchmark starts them: every child in the benchmark's own process
/// group, so that Ctrl-C at the terminal stops them with it.
struct BenchPrograms {
    let notifyd: String
    /// nil when it is not built; the clients section then reports it unavailable.
    let notifyctl: String?
    let dbusDaemon: String
    let busctl: String?
    let gdbus: String?
    /// This executable, which is also the events section's bare receiver (nil if /proc cannot tell).
    let bench: String?
    /// `libSlowDisk.so` next to notifyd (`swift build` builds it: the
    /// SlowDisk product); nil when it is not there, and the slow-disk
    /// section then reports itself unavailable.
    let slowDisk: String?

    /// The slow-disk library's file name.
    static let slowDiskLibrary = "libSlowDisk.so"

    /// notifyd and notifyctl from `binDirectory` (default: next to this
    /// executable); the D-Bus tools from `$PATH`.
    static func locate(binDirectory: String?) throws(BenchFailure) -> BenchPrograms {
        let bench = Executables.running()
        guard let directory = binDirectory ?? bench.map(Executables.directoryName(of:)) else {
            throw BenchFailure("cannot tell where this executable is; use --bin-dir.")
        }
        guard let notifyd = Executables.find("notifyd", in: directory) else {
            throw BenchFailure("no notifyd executable in \(directory); build it or use --bin-dir.")
        }
        guard let dbusDaemon = Executables.inSearchPath("dbus-daemon") else {
            throw BenchFailure("dbus-daemon is not installed (Debian: apt install dbus-daemon).")
        }
        return BenchPrograms(
            notifyd: notifyd, notifyctl: Executables.find("notifyctl", in: directory), dbusDaemon: dbusDaemon,
            busctl: Executables.inSearchPath("busctl"), gdbus: Executables.inSearchPath("gdbus"), bench: bench,
            slowDisk: library(slowDiskLibrary, nextTo: notifyd))
    }

    /// `name` in the directory of `executable`, if it is a readable regular file there.
    private static func library(_ name: String, nextTo executable: String) -> String? {
        let path = Executables.directoryName(of: executable) + "/" + name
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(path, R_OK) == 0 ? path : nil
    }

    /// Short name and path of each, for the report.
    var list: [(name: String, path: String?)] {
        [
            ("notifyd", notifyd), ("notifyctl", notifyctl), ("dbus-daemon", dbusDaemon), ("busctl", busctl), ("gdbus", gdbus),
            (Self.slowDiskLibrary, slowDisk),
        ]
    }

    /// A private bus in `directory`, with a service directory only when
    /// asked (the cold-start section's), its services seeing the
    /// benchmark's environment.
    func bus(in directory: ScratchDirectory, services: Bool = false) throws(BenchFailure) -> PrivateBus {
        try PrivateBus(
            in: directory, services: services, isolatedDataDirectories: false, dbusDaemon: dbusDaemon,
            processGroup: .parents)
    }

    /// Starts a program, its standard output and error together to `output`;
    /// reaped when it is waited for (no thread's start in a timed spawn).
    static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String],
        output: SpawnedProcess.Output = .nullDevice, pipedDescriptors: [Int32] = []
    ) throws(BenchFailure) -> SpawnedProcess {
        try SpawnedProcess(
            executable, arguments, environment: environment, standardOutput: output, standardError: .standardOutput,
            pipedDescriptors: pipedDescriptors, processGroup: .parents, reaping: .whenAsked)
    }

    /// Runs a program to its end: how it ended, and what it wrote.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]
    ) throws(BenchFailure) -> (termination: SpawnedProcess.Termination, output: String) {
        try SpawnedProcess.run(executable, arguments, environment: environment, processGroup: .parents)
    }

    /// The clients the clients section compares, all reading the same badge.
    func clients(appID: String) -> [ClientSpawnBenchmark.Client] {
        let (bus, path, badges) = (NotifydNames.busName, NotifydNames.objectPath, NotifydNames.badgesInterface)
        var clients: [ClientSpawnBenchmark.Client] = [
            .init(name: "notifyctl", executable: notifyctl, arguments: ["badge", "get", appID]),
            .init(name: "busctl", executable: busctl, arguments: ["--user", "call", bus, path, badges, "GetBadge", "s", appID]),
        ]
        if let gdbus {
            clients.append(
                .init(
                    name: "gdbus", executable: gdbus,
                    arguments: [
                        "call", "--session", "--dest", bus, "--object-path", path, "--method", "\(badges).GetBadge", appID,
                    ]))
        }
        return clients
    }
}
