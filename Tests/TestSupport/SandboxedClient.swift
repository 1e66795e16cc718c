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
        let root = scratch.appendingPathComponent("sandbox-root").path
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
        return try runProcess(
            "/usr/bin/unshare", ["--mount", "--", "/bin/sh", "-c", script, "sandboxed", executable] + arguments,
            environment: environment)
    }
}
