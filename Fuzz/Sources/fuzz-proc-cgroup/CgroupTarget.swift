import NotifyCore

/// `/proc/PID/cgroup` of a caller, as notifyd reads it to tell a host app
/// by the systemd unit its desktop launched it in (``SystemdScope``). The
/// process names its own unit, so the text is the caller's to choose.
///
/// Also checked: an app ID found is a valid one with a dot, and reading a
/// unit name alone gives what the whole text gave for its last line.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCgroup(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let app = SystemdScope.appID(fromCgroup: text) {
        precondition((try? AppID(app)) != nil && app.contains("."), "not a valid app ID with a dot: \(app)")
    }
    let unit = text.split(separator: "/").last.map(String.init) ?? text
    if let app = SystemdScope.appID(fromUnit: unit) {
        precondition((try? AppID(app)) != nil && app.contains("."), "not a valid app ID with a dot: \(app)")
    }
    _ = CallerIdentity(userID: 1000, processID: 1, flatpakInfo: nil, cgroup: text)
    return 0
}
