import Foundation

/// Runs a program as a Flatpak app would be seen: in a mount namespace of
/// its own whose root holds a `.flatpak-info` naming the app, so notifyd
/// finds `/proc/PID/root/.flatpak-info` exactly as xdg-desktop-portal does.
///
/// Making the namespace and the root needs root (CI runs as root).
public enum SandboxedClient {
    /// Why it cannot run here, or nil when it can.
    public static var unavailableReason: String? {
        if getuid() != 0 { return "a mount namespace and chroot need root; run scripts/test as root (CI does)" }
        for tool in ["/usr/bin/unshare", "/usr/sbin/chroot"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing"
        }
        return nil
    }

    /// Runs `executable arguments` as the sandboxed app `appID`.
    public static func run(
        appID: String, _ executable: String, _ arguments: [String], environment: [String: String], scratch: URL
    ) throws -> ProcessResult {
        try runProcess(
            "/usr/bin/unshare", command(appID: appID, executable, arguments, scratch: scratch), environment: environment)
    }

    /// The `unshare` arguments that run `executable arguments` in a mount
    /// namespace whose root (a tmpfs under `scratch`, with the host's system
    /// directories bound in) holds a `.flatpak-info` naming `appID`.
    public static func command(appID: String, _ executable: String, _ arguments: [String], scratch: URL) -> [String] {
        let root = scratch.appendingPathComponent("sandbox-root-\(appID)").path
        let info = "[Application]\nname=\(appID)\nruntime=runtime/org.freedesktop.Platform/x86_64/23.08\n"
        // Host directories the program needs, bound at the same paths.
        let executableDirectory = URL(fileURLWithPath: executable).deletingLastPathComponent().path
        let binds = ["/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/opt", "/tmp", "/dev", executableDirectory]
            .filter { FileManager.default.fileExists(atPath: $0) }
        var script = "set -e\nmount --make-rprivate /\nmkdir -p '\(root)'\nmount -t tmpfs sandbox '\(root)'\n"
        for directory in binds {
            script += "mkdir -p '\(root)\(directory)'\nmount --rbind '\(directory)' '\(root)\(directory)'\n"
        }
        script += "mkdir -p '\(root)/proc'\nmount -t proc proc '\(root)/proc'\n"
        script += "printf '%s' '\(info)' > '\(root)/.flatpak-info'\n"
        script += "exec chroot '\(root)' \"$@\"\n"
        return ["--mount", "--", "/bin/sh", "-c", script, "sandboxed", executable] + arguments
    }
}

/// What a Flatpak app's bus really is: `xdg-dbus-proxy --filter`, run in
/// the app's sandbox (a root with `.flatpak-info`), relaying the app's
/// connections to the bus one upstream connection each. The bus then
/// reports the proxy's process for every connection of the app, as it
/// does under Flatpak.
public final class SandboxedBusProxy: @unchecked Sendable {
    /// Where the app connects, as `DBUS_SESSION_BUS_ADDRESS`.
    public let address: String
    private let process: SpawnedProcess

    /// Why it cannot run here, or nil when it can.
    public static var unavailableReason: String? {
        if let reason = SandboxedClient.unavailableReason { return reason }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/xdg-dbus-proxy") {
            return "xdg-dbus-proxy is missing (apt-get install xdg-dbus-proxy)"
        }
        return nil
    }

    /// Starts the proxy of `appID` in front of `bus` and waits until it
    /// accepts connections; `talk` names the bus names the app may call
    /// (`--talk`).
    public init(appID: String, bus: TestBus, talk: [String] = []) throws {
        let socket = bus.directory.appendingPathComponent("proxy-\(appID).sock").path
        process = try SpawnedProcess(
            "/usr/bin/unshare",
            SandboxedClient.command(
                appID: appID, "/usr/bin/xdg-dbus-proxy", [bus.address, socket, "--filter"] + talk.map { "--talk=\($0)" },
                scratch: bus.directory),
            environment: ProcessInfo.processInfo.environment)
        address = "unix:path=\(socket)"
        // Not the socket file alone: it exists from bind() on, and a connect
        // before listen() is refused (seen under CPU load).
        try waitUntil("xdg-dbus-proxy listens", seconds: 10, intervalMicroseconds: 10_000) {
            guard process.isRunning else { throw TestFailure("xdg-dbus-proxy did not start") }
            return FileManager.default.fileExists(atPath: socket) && Self.accepts(socket)
        }
    }

    /// Whether a connection to the Unix socket at `path` is accepted.
    static func accepts(_ path: String) -> Bool {
        let probe = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    deinit {
        process.kill(SIGKILL)
    }
}
