import DBus
import Glibc
import Logging
import NotifyCore
import NotifyDesktop

/// The parts of start-up that talk to the system: the sleep lock, the bus name.
extension Notifyd {
    /// The sleep lock's keeper, reporting on the loop whether it holds the
    /// lock (then `Inhibiting` is announced); nil without a bus for it.
    static func makeInhibitor(
        _ configuration: DaemonConfiguration, loop: EventLoop, status: InhibitionStatus, logger: Logger
    ) -> SleepInhibitor? {
        guard let bus = configuration.sleepLockBus else { return nil }
        let bound = LoopBound(status, loop: loop)
        do {
            return try SleepInhibitor(bus: bus, logger: logger) { held in bound.execute { $0.set(held) } }
        } catch {
            logger.warning("cannot start the sleep lock's thread (\(error)); tasks run without it")
            return nil
        }
    }

    func requestName() throws(StartupError) {
        let reply: DBusNameReply
        do {
            reply = try connection.requestName(NotifydNames.busName)
        } catch {
            throw StartupError("cannot request \(NotifydNames.busName): \(error)")
        }
        guard reply == .primaryOwner || reply == .alreadyOwner else {
            throw StartupError(nameTakenMessage())
        }
    }

    /// Says who holds the name, so the person can stop it.
    func nameTakenMessage() -> String {
        let name = NotifydNames.busName
        guard let owner = try? connection.nameOwner(of: name),
            let pid = try? connection.unixProcessID(of: owner)
        else { return "\(name) is already taken on this bus by another process" }
        let command = ProcessInfoReader.commandLine(of: pid_t(pid)) ?? "unknown command"
        return "\(name) is already taken on this bus by process \(pid) (\(command)); stop it first, "
            + "e.g. `systemctl --user stop notifyd` or `kill \(pid)`"
    }

}

/// Why notifyd could not start, for the person starting it.
public struct StartupError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Reads facts about other processes from /proc.
enum ProcessInfoReader {
    /// The command line of a process, arguments joined by spaces.
    static func commandLine(of pid: pid_t) -> String? {
        guard let file = fopen("/proc/\(pid)/cmdline", "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        guard !bytes.isEmpty else { return nil }
        let parts = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        return parts.joined(separator: " ")
    }
}
