import Glibc
import NotifyCore

/// Facts about a process read from /proc, without following it into
/// another process's files by a reused path.
enum ProcessFacts {
    /// Who a process of the user `userID` (as the bus vouches) is: its
    /// sandbox from `/proc/PID/root/.flatpak-info`, its launch scope from
    /// `/proc/PID/cgroup`.
    static func lookup(userID: UInt32, processID: UInt32) -> CallerLookup {
        // Open the process's root first: if /proc/PID is gone, "no
        // .flatpak-info" must not be mistaken for "not sandboxed".
        let root = open("/proc/\(processID)/root", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else {
            let error = errno
            if let shortage = resourceShortage(error) {
                return .unavailable("notifyd could not open /proc/\(processID)/root: \(shortage)")
            }
            if error == EACCES || error == EPERM {
                // Another user's process: the user check refuses it anyway.
                return .identified(CallerIdentity(userID: userID, processID: processID, sandbox: .unknown))
            }
            return .departed("its process \(processID) exited before notifyd could read /proc/\(processID)")
        }
        defer { close(root) }
        let sandbox: CallerSandbox
        switch readFile(at: root, ".flatpak-info") {
        case .text(let text): sandbox = CallerSandbox(flatpakInfo: text)
        case .missing: sandbox = .host
        case .failed(let error):
            if let shortage = resourceShortage(error) {
                return .unavailable("notifyd could not read /proc/\(processID)/root/.flatpak-info: \(shortage)")
            }
            sandbox = .unknown
        }
        var scopeApp: AppID?
        if case .text(let text) = readFile(at: AT_FDCWD, "/proc/\(processID)/cgroup") {
            scopeApp = SystemdScope.appID(fromCgroup: text).flatMap { try? AppID($0) }
        }
        return .identified(CallerIdentity(userID: userID, processID: processID, sandbox: sandbox, scopeApp: scopeApp))
    }

    /// A person's words for an errno that means "out of resources", nil
    /// for any other.
    static func resourceShortage(_ error: Int32) -> String? {
        switch error {
        case EMFILE: "notifyd has no file descriptor left (EMFILE, its RLIMIT_NOFILE is reached)"
        case ENFILE: "the system has no file descriptor left (ENFILE)"
        case ENOMEM: "out of memory (ENOMEM)"
        default: nil
        }
    }

    enum FileRead { case text(String), missing, failed(Int32) }

    /// Reads a small file (at most 64 KB) relative to a directory.
    static func readFile(at directory: Int32, _ path: String) -> FileRead {
        let fd = openat(directory, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            let error = errno
            return error == ENOENT ? .missing : .failed(error)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65_536 {
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return .text(String(decoding: bytes, as: UTF8.self))
    }
}
