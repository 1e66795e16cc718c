import Foundation

/// A file system mounted for one test on a new temporary directory, and
/// unmounted (then removed) when released: a small tmpfs to fill up, or an
/// ext4 image on a loop device that can be turned read-only under a
/// running writer.
///
/// Mounting needs root (CI runs as root); ``unavailableReason`` says why it
/// cannot run here.
public final class ScratchMount: @unchecked Sendable {
    /// Where the file system is mounted.
    public let directory: URL
    /// The ext4 image, for ``ext4(megabytes:)`` mounts.
    public let image: URL?
    private var mounted = true

    /// Why mounts cannot be made here, or nil when they can.
    public static var unavailableReason: String? {
        if getuid() != 0 { return "mounting a file system needs root; run scripts/test as root (CI does)" }
        for tool in ["/usr/bin/mount", "/usr/bin/umount"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing"
        }
        return nil
    }

    private init(directory: URL, image: URL?) {
        self.directory = directory
        self.image = image
    }

    /// A tmpfs of `kilobytes` (the kernel rounds it to whole pages).
    public static func tmpfs(kilobytes: Int) throws -> ScratchMount {
        let directory = try makeTemporaryDirectory(prefix: "notifyd-tmpfs")
        try run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0700", "tmpfs", directory.path])
        return ScratchMount(directory: directory, image: nil)
    }

    /// An ext4 file system in an image file of `megabytes`, on a loop
    /// device, mounted with `errors=remount-ro`: an ext4 error (see
    /// ``triggerFileSystemError()``) turns it read-only at once, open files
    /// included, as the kernel does when a disk fails.
    public static func ext4(megabytes: Int) throws -> ScratchMount {
        for tool in ["/usr/sbin/mkfs.ext4", "/usr/sbin/losetup"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw TestFailure("\(tool) is missing (apt-get install e2fsprogs mount)")
        }
        let scratch = try makeTemporaryDirectory(prefix: "notifyd-ext4")
        let image = scratch.appendingPathComponent("fs.img")
        let directory = scratch.appendingPathComponent("mnt")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try run("/usr/bin/truncate", ["-s", "\(megabytes)M", image.path])
        try run("/usr/sbin/mkfs.ext4", ["-q", "-F", image.path])
        try run("/usr/bin/mount", ["-o", "loop,errors=remount-ro", image.path, directory.path])
        return ScratchMount(directory: directory, image: image)
    }

    deinit {
        unmount()
        if let image {
            try? FileManager.default.removeItem(at: image.deletingLastPathComponent())
        } else {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Unmounts (lazily if still busy). Idempotent.
    public func unmount() {
        guard mounted else { return }
        mounted = false
        if (try? Self.run("/usr/bin/umount", [directory.path])) == nil {
            _ = try? Self.run("/usr/bin/umount", ["-l", directory.path])
        }
    }

    /// Mounts the ext4 image again (after ``unmount()``).
    public func remount() throws {
        guard let image, !mounted else { return }
        try Self.run("/usr/bin/mount", ["-o", "loop,errors=remount-ro", image.path, directory.path])
        mounted = true
    }

    /// The block device mounted on ``directory`` (e.g. `/dev/loop3`).
    public var device: String {
        get throws { try findmnt("SOURCE") }
    }

    /// The mount options in force (e.g. `ro,relatime,...`).
    public var options: String {
        get throws { try findmnt("OPTIONS") }
    }

    private func findmnt(_ column: String) throws -> String {
        try Self.run("/usr/bin/findmnt", ["-n", "-o", column, directory.path]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Fills the file system with `file` until no block is left (dd until ENOSPC).
    public func fill(with file: URL) throws {
        // dd ends with status 1 and "No space left on device" when full.
        let result = try runProcess("/usr/bin/dd", ["if=/dev/zero", "of=\(file.path)", "bs=4096"])
        guard result.stderr.contains("No space left on device") else {
            throw TestFailure("dd did not fill \(directory.path): \(result.stderr)")
        }
    }

    /// Reports an ext4 error through `/sys/fs/ext4/DEV/trigger_fs_error`:
    /// with `errors=remount-ro` the kernel aborts the journal and makes the
    /// file system read-only under every open file, as after a disk error.
    public func triggerFileSystemError() throws {
        let name = URL(fileURLWithPath: try device).lastPathComponent
        let trigger = "/sys/fs/ext4/\(name)/trigger_fs_error"
        guard FileManager.default.fileExists(atPath: trigger) else { throw TestFailure("\(trigger) is missing") }
        try Data("notifyd fault test\n".utf8).write(to: URL(fileURLWithPath: trigger))
    }

    /// Checks and repairs the unmounted ext4 image (`e2fsck -fy`); returns its output.
    @discardableResult
    public func repair() throws -> ProcessResult {
        guard let image else { throw TestFailure("not an ext4 image") }
        // 0: clean, 1: errors corrected; anything else is a failure.
        let result = try runProcess("/usr/sbin/e2fsck", ["-f", "-y", image.path])
        guard result.status == 0 || result.status == 1 else {
            throw TestFailure("e2fsck failed with \(result.status): \(result.stdout)\(result.stderr)")
        }
        return result
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> ProcessResult {
        let result = try runProcess(executable, arguments)
        guard result.status == 0 else {
            let command = ([executable] + arguments).joined(separator: " ")
            throw TestFailure("\(command) failed (\(result.status)): \(result.stderr)")
        }
        return result
    }
}
