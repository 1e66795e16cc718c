import BrowserBridge
import DBus
import NotifyCore

#if canImport(Glibc)
import Glibc
#endif

/// `notifyd-browser-host`: the native messaging host of the notifyd
/// browser extension (SPEC, "Browser downloads").
///
/// The browser starts it with a pipe on standard input and output; it reads
/// the extension's messages, makes notifyd's calls for each and exits when
/// the browser closes the pipe. It keeps nothing but its bus connection.
/// Standard output carries native messages only (it sends none): every
/// diagnostic goes to standard error, which the browser logs.
@main
enum BrowserHostMain {
    /// The browser's pipe for the host's messages.
    nonisolated(unsafe) static var framesOut: Int32 = -1

    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--version" {
            print("notifyd-browser-host \(NotifydNames.version)")
            exit(0)
        }
        // Nothing else may ever reach the browser's pipe: standard output
        // becomes standard error. The pipe stays open on another descriptor
        // (never closed: a browser takes its end as the host's exit).
        framesOut = dup(1)
        dup2(2, 1)

        let parent = getppid()
        let identity = BrowserIdentity.resolve(
            arguments: arguments, parentExecutable: readLink("/proc/\(parent)/exe"),
            parentArguments: commandLine(of: parent),
            override: getenv("NOTIFYD_BROWSER_APP_ID").map { String(cString: $0) })
        complain("reporting the downloads of \(identity.app) (profile \(identity.profile))")
        var reporter = DownloadReporter(app: identity.app, profile: identity.profile)
        let reader = NativeMessageReader(descriptor: 0)
        var bus: DBusConnection?

        while true {
            let payload: [UInt8]
            switch reader.next() {
            case .end:
                exit(0)
            case .tooLong(let length):
                complain("a message of \(length) bytes is longer than \(NativeMessageReader.maximumLength): ignored")
                continue
            case .message(let bytes):
                payload = bytes
            }
            let message: BrowserMessage
            do {
                message = try BrowserMessage.decode(try JSONValue.parse(payload))
            } catch let error as JSONParseError {
                complain("a message is \(error): ignored")
                continue
            } catch {
                complain("\(error): ignored")
                continue
            }
            for call in reporter.calls(for: message, now: monotonicNanoseconds()) {
                do throws(DBusError) {
                    let connection: DBusConnection
                    if let bus {
                        connection = bus
                    } else {
                        connection = try DBusConnection.connect(to: .session)
                        bus = connection
                    }
                    _ = try connection.call(
                        destination: NotifydNames.busName, path: NotifydNames.objectPath, interface: call.interface,
                        member: call.member, call.arguments, timeoutMilliseconds: 25_000)
                } catch {
                    if error.name == DBusError.Name.disconnected { bus = nil }
                    complain("\(call.member) for \(identity.app) failed: \(error)")
                }
            }
        }
    }

    static func complain(_ line: String) {
        let text = Array("notifyd-browser-host: \(line)\n".utf8)
        _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func commandLine(of pid: pid_t) -> [String] {
        guard let file = fopen("/proc/\(pid)/cmdline", "r") else { return [] }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let got = fread(&chunk, 1, chunk.count, file)
            if got <= 0 { break }
            bytes += chunk[..<got]
        }
        // Chromium rewrites its title: one string, the arguments between spaces.
        return bytes.split(separator: 0).flatMap { $0.split(separator: 0x20) }.map { String(decoding: $0, as: UTF8.self) }
    }
}
