import Foundation
import NotifyTesting
import NotifyTransfer
import Testing

extension NotifyTransferTests {
    /// A large download is written to the disk while it arrives
    /// (`WritebackPacer`), not left whole in the page cache for one long
    /// `fsync` at its end.
    @Suite("writeback while downloading") struct Writeback {
        @Test("a 64 MB download arrives byte for byte, and its early windows were written out and left the page cache")
        func streamedToDisk() throws {
            let server = try TransferFixture.nginx()
            let directory = try Self.directoryOnDisk()
            let original = TransferFixture.randomBytes(64 << 20)
            let url = try server.serve(original, at: "data/large.bin")
            let target = directory + "/large.bin"
            let digest = try TransferFixture.sha256(original, scratch: directory)
            let end = try RecordedEngine().run(
                TransferAttempt(id: 21, direction: .download, url: url, path: target, sha256: digest), seconds: 60)
            #expect(end == .completed(path: target, bytes: UInt64(original.count)))
            // Windows of 16 MiB: the first two were waited for and dropped;
            // the rest (the last windows) is still cached, as any fresh file.
            // Looked at before the file is read back, which caches it again.
            let resident = try Self.residentPages(target, bytes: 32 << 20)
            let pages = (32 << 20) / Int(sysconf(Int32(_SC_PAGESIZE)))
            #expect(resident < pages / 4, "\(resident) of the first \(pages) pages still in the page cache")
            #expect(TransferFixture.contents(target) == original)
        }

        /// A temporary directory on a disk: tmpfs keeps every page in memory
        /// (nothing to write back), so the build directory is taken instead.
        static func directoryOnDisk() throws -> String {
            let directory = try TransferFixture.directory()
            let fileSystem = try runProcess(try requireTool("stat", package: "coreutils"), ["-f", "-c", "%T", directory])
            guard fileSystem.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "tmpfs" else { return directory }
            let onDisk = FileManager.default.currentDirectoryPath + "/.build/writeback-test-\(getpid())"
            try FileManager.default.createDirectory(atPath: onDisk, withIntermediateDirectories: true)
            return onDisk
        }

        /// How many of the first `bytes` of the file at `path` are in the
        /// page cache (`mincore` on a shared read-only mapping).
        static func residentPages(_ path: String, bytes: Int) throws -> Int {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw TestFailure("cannot open \(path): errno \(errno)") }
            defer { close(descriptor) }
            guard let mapping = mmap(nil, bytes, PROT_READ, MAP_SHARED, descriptor, 0), mapping != MAP_FAILED else {
                throw TestFailure("cannot map \(path): errno \(errno)")
            }
            defer { munmap(mapping, bytes) }
            let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
            var vector = [UInt8](repeating: 0, count: (bytes + pageSize - 1) / pageSize)
            guard mincore(mapping, bytes, &vector) == 0 else { throw TestFailure("mincore: errno \(errno)") }
            return vector.filter { $0 & 1 != 0 }.count
        }
    }
}
