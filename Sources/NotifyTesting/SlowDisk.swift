import Foundation

/// The SlowDisk library (Sources/SlowDisk, `libSlowDisk.so` beside the
/// executables), for notifyd's environment: its `fsync` slower by a set
/// time, and two gates a test holds shut to keep a batch on its way to
/// disk: before its first byte is written (``Gate/write``) or while it
/// syncs (``Gate/sync``).
public struct SlowDisk: Sendable {
    /// Where the library stops a batch.
    public enum Gate: String, Sendable {
        /// `pwrite`: nothing of the batch is written while it is shut.
        case write
        /// `fsync` and `fdatasync`: the batch is written, not yet synced.
        case sync
    }

    /// The library's path.
    public static var library: URL { Executables.directory.appendingPathComponent("libSlowDisk.so") }

    /// The directory of the gates' files.
    public let directory: URL
    /// What each `fsync` adds, in milliseconds.
    public let milliseconds: Int

    /// Gates in `directory` (which must exist); every sync `milliseconds` slower.
    public init(gatesIn directory: URL, milliseconds: Int = 0) throws {
        guard FileManager.default.fileExists(atPath: Self.library.path) else {
            throw TestFailure("\(Self.library.path) is missing: `swift build` builds it (the SlowDisk product)")
        }
        self.directory = directory
        self.milliseconds = milliseconds
    }

    /// notifyd's environment with the library loaded.
    public var environment: [String: String] {
        [
            "LD_PRELOAD": Self.library.path, "NOTIFYD_SLOW_DISK_MS": "\(milliseconds)",
            "NOTIFYD_SLOW_DISK_SYNC_GATE": file(of: .sync).path, "NOTIFYD_SLOW_DISK_WRITE_GATE": file(of: .write).path,
        ]
    }

    /// Shuts `gate`: the next batch to reach it waits there.
    public func shut(_ gate: Gate) throws {
        guard FileManager.default.createFile(atPath: file(of: gate).path, contents: nil) else {
            throw TestFailure("cannot create \(file(of: gate).path)")
        }
    }

    /// Opens `gate`: a batch waiting there goes on.
    public func open(_ gate: Gate) throws {
        try? FileManager.default.removeItem(at: file(of: gate))
    }

    /// Waits (bounded) until a batch waits at `gate`.
    public func waitUntilHeld(at gate: Gate, seconds: Double = 20) throws {
        let marker = file(of: gate).path + ".waiting"
        try waitUntil("a batch waits at the \(gate.rawValue) gate", seconds: seconds) {
            FileManager.default.fileExists(atPath: marker)
        }
    }

    private func file(of gate: Gate) -> URL { directory.appendingPathComponent("\(gate.rawValue)-gate") }
}
