@testable import NotifyCore

/// `.flatpak-info`, as notifyd reads it from `/proc/PID/root/.flatpak-info`
/// of a caller (any bytes: the file is the sandboxed app's to write).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFlatpakInfo(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let name = FlatpakInfo.applicationName(fromKeyFile: text)
    let sandbox = CallerSandbox(flatpakInfo: text)
    if let name { precondition(!name.isEmpty, "an empty name is no name") }
    _ = sandbox
    return 0
}
