import Glibc

/// Where sound could go on this machine: an ALSA playback device, or a
/// PulseAudio or PipeWire server. canberra only says "File or data not
/// found" when there is none; this names the real cause.
///
/// Plain libc, no Foundation: importing Foundation here once linked all of
/// it into notifyd (12 MB more executable, 0.5 MB more resident when idle).
enum SoundOutputs {
    /// Why no sound can play here, or nil when some output exists (a
    /// sound may still fail for another reason). `environment` reads a
    /// variable (the process's own by default).
    static func absence(environment: (String) -> String? = Self.processEnvironment) -> String? {
        if hasALSAPlayback() { return nil }
        if let server = environment("PULSE_SERVER"), !server.isEmpty { return nil }
        if let runtime = environment("XDG_RUNTIME_DIR"), !runtime.isEmpty {
            for socket in ["pulse/native", "pipewire-0"] where access("\(runtime)/\(socket)", F_OK) == 0 {
                return nil
            }
        }
        return "no sound device: no ALSA playback device in /dev/snd and no PulseAudio or PipeWire server"
    }

    static func processEnvironment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// A `pcmC*D*p` node: a playback device the kernel knows.
    private static func hasALSAPlayback() -> Bool {
        guard let directory = opendir("/dev/snd") else { return false }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix("pcmC") && name.hasSuffix("p") { return true }
        }
        return false
    }
}
