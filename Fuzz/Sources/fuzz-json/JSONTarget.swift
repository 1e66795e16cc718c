import BrowserBridge
import DBus

/// One native message's JSON, as the browser extension sends it to
/// `notifyd-browser-host`: parsed (``JSONValue/parse(_:)``, the host's own
/// parser), decoded as a ``BrowserMessage`` and turned into notifyd's calls
/// (``DownloadReporter``), twice, as a browser that repeats itself would.
/// Each call is then written into a D-Bus message, as the host sends it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let json = try? JSONValue.parse(bytes) else { return 0 }
    guard let message = try? BrowserMessage.decode(json) else { return 0 }
    var reporter = DownloadReporter(app: "org.chromium.Chromium", profile: "Default")
    let calls = reporter.calls(for: message, now: 1_000_000_000) + reporter.calls(for: message, now: 1_200_000_000)
    for call in calls {
        // A string with a NUL (JSON's \u0000) is refused here, as the host
        // refuses it (a logged error), never passed to libdbus.
        _ = try? DBusMessage.methodCall(
            destination: "org.notifyd.Notifyd1", path: "/org/notifyd/Notifyd1", interface: call.interface,
            member: call.member, arguments: call.arguments)
    }
    return 0
}
