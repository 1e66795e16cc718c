/// The programs one run starts, found before anything is timed.
struct BenchPrograms {
    let notifyd: String
    /// nil when it is not built; the clients section then reports it unavailable.
    let notifyctl: String?
    let dbusDaemon: String
    let busctl: String?
    let gdbus: String?
    /// This executable, which is also the events section's bare receiver (nil if /proc cannot tell).
    let bench: String?

    /// notifyd and notifyctl from `binDirectory` (default: next to this
    /// executable); the D-Bus tools from `$PATH`.
    static func locate(binDirectory: String?) throws(BenchFailure) -> BenchPrograms {
        guard let directory = binDirectory ?? ExecutableLocator.benchDirectory() else {
            throw BenchFailure("cannot tell where this executable is; use --bin-dir.")
        }
        guard let notifyd = ExecutableLocator.executable("notifyd", in: directory) else {
            throw BenchFailure("no notifyd executable in \(directory); build it or use --bin-dir.")
        }
        guard let dbusDaemon = ExecutableLocator.inSearchPath("dbus-daemon") else {
            throw BenchFailure("dbus-daemon is not installed (Debian: apt install dbus-daemon).")
        }
        return BenchPrograms(
            notifyd: notifyd, notifyctl: ExecutableLocator.executable("notifyctl", in: directory),
            dbusDaemon: dbusDaemon, busctl: ExecutableLocator.inSearchPath("busctl"),
            gdbus: ExecutableLocator.inSearchPath("gdbus"), bench: ExecutableLocator.benchExecutable())
    }

    /// Short name and path of each, for the report.
    var list: [(name: String, path: String?)] {
        [("notifyd", notifyd), ("notifyctl", notifyctl), ("dbus-daemon", dbusDaemon), ("busctl", busctl), ("gdbus", gdbus)]
    }

    /// The clients the clients section compares, all reading the same badge.
    func clients(appID: String) -> [ClientSpawnBenchmark.Client] {
        var clients: [ClientSpawnBenchmark.Client] = [
            .init(name: "notifyctl", executable: notifyctl, arguments: ["badge", "get", appID]),
            .init(
                name: "busctl", executable: busctl,
                arguments: [
                    "--user", "call", NotifydBusNames.busName, NotifydBusNames.objectPath,
                    NotifydBusNames.badgesInterface, "GetBadge", "s", appID,
                ]),
        ]
        if let gdbus {
            clients.append(
                .init(
                    name: "gdbus", executable: gdbus,
                    arguments: [
                        "call", "--session", "--dest", NotifydBusNames.busName, "--object-path", NotifydBusNames.objectPath,
                        "--method", "\(NotifydBusNames.badgesInterface).GetBadge", appID,
                    ]))
        }
        return clients
    }
}
