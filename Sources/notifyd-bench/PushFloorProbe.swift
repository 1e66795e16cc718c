import DBus
import Glibc
import NotifyCore
import NotifyTestingCore

/// The two things a push through notifyd must add to what the bare client
/// does, measured alone in the push section's run, so that its report says
/// how close to 1.0x any distributor keeping SPEC's order could come on
/// this machine:
///
/// - **one durable write** (SPEC: "a message is stored before it is
///   acknowledged to the server, then delivered"): a 4 KB page written to
///   a file beside notifyd's state directory, on the same file system,
///   then `fdatasync`, as SQLite commits one page in WAL mode;
/// - **one bus hop to the app**: the same `Connector2.Message` that
///   notifyd sends, sent by the benchmark straight to the app's connector
///   through the same `dbus-daemon`, timed from the send to its arrival.
///
/// Thread hand-overs, SQLite's own work and the decision are left out: the
/// floor is what no implementation can go below, not an estimate of one.
final class PushFloorProbe {
    private let connection: DBusConnection
    private let app: String
    private let descriptor: Int32
    private let path: String
    private var nextPage = 0
    private let page = [UInt8](repeating: 0x5a, count: 4_096)
    /// Pages the synced file holds, written in turn (the WAL is reused in
    /// place too: its file does not grow once it has its size).
    private static let pages = 16

    /// Opens the synced file at `path` (its size set and synced once, so
    /// that no sample pays for the file's growth) and sends from
    /// `connection` (the benchmark's own, not the connector's) to `app`.
    init(connection: DBusConnection, app: String, syncedFilePath path: String) throws(BenchFailure) {
        self.connection = connection
        self.app = app
        self.path = path
        descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BenchFailure.system("cannot create \(path)", errno: errno) }
        guard ftruncate(descriptor, off_t(Self.pages * page.count)) == 0, fsync(descriptor) == 0 else {
            let error = errno
            close(descriptor)
            unlink(path)
            throw BenchFailure.system("cannot size \(path)", errno: error)
        }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// One page written in place and synced with `fdatasync`, in ns.
    func timeSync() throws(BenchFailure) -> UInt64 {
        let offset = off_t(nextPage * page.count)
        nextPage = (nextPage + 1) % Self.pages
        let start = MonotonicClock.nanoseconds()
        let written = page.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, $0.count, offset) }
        guard written == page.count else { throw BenchFailure.system("cannot write \(path)", errno: errno) }
        guard fdatasync(descriptor) == 0 else { throw BenchFailure.system("cannot sync \(path)", errno: errno) }
        return MonotonicClock.nanoseconds() - start
    }

    /// One `Message` of `body` to the app, as notifyd sends it, from the
    /// send to its arrival (`lastArrival` changes), in ns. No reply is
    /// asked for: the connector's answer is not part of a delivery's way in.
    func timeMessage(_ body: [UInt8], lastArrival: () -> UInt64?) throws(BenchFailure) -> UInt64 {
        let before = lastArrival()
        let start: UInt64
        do {
            let message = try DBusMessage.methodCall(
                destination: app, path: NotifydNames.connectorPath, interface: NotifydNames.connector2Interface,
                member: "Message",
                arguments: [
                    .vardict([
                        "token": .string("bench-floor"), "message": .array(element: .byte, body.map { .byte($0) }),
                        "id": .string("floor"),
                    ])
                ])
            message.setNoReply(true)
            start = MonotonicClock.nanoseconds()
            try connection.send(message)
            connection.flush()
        } catch {
            throw BenchFailure("cannot send a Message straight to \(app): \(error)")
        }
        let arrived = try PushBenchmark.nextArrival(after: before, of: "a Message sent straight to \(app)", lastArrival)
        return arrived > start ? arrived - start : 0
    }
}
