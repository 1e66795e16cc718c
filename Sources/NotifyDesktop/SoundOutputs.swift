import Foundation

/// Where sound could go on this machine: an ALSA playback device, or a
/// PulseAudio or PipeWire server. canberra only says "File or data not
/// found" when there is none; this names the real cause.
enum SoundOutputs {
    /// Why no sound can play here, or nil when some output exists (a
    /// sound may still fail for another reason).
    static func absence(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if hasALSAPlayback() { return nil }
        if let server = environment["PULSE_SERVER"], !server.isEmpty { return nil }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            for socket in ["pulse/native", "pipewire-0"] where FileManager.default.fileExists(atPath: "\(runtime)/\(socket)") {
                return nil
            }
        }
        return "no sound device: no ALSA playback device in /dev/snd and no PulseAudio or PipeWire server"
    }

    /// A `pcmC*D*p` node: a playback device the kernel knows.
    private static func hasALSAPlayback() -> Bool {
        let nodes = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/snd")) ?? []
        return nodes.contains { $0.hasPrefix("pcmC") && $0.hasSuffix("p") }
    }
}
