import DBus
import Foundation
@_exported import NotifyTestingCore

/// A private `dbus-daemon` for one test: never the user's bus. The
/// toolkit's ``PrivateBus`` (shared with the benchmark), which by default
/// makes a temporary directory of its own with a service directory, so
/// tests can install D-Bus activation files, and is killed when released.
public typealias TestBus = PrivateBus

extension PrivateBus {
    /// A scratch directory removed with the bus.
    public var directory: URL { URL(fileURLWithPath: directoryPath) }

    /// Where activatable services of this bus are described.
    public var serviceDirectory: URL { URL(fileURLWithPath: serviceDirectoryPath ?? directoryPath + "/services") }
}

/// A new empty directory under the system's temporary directory.
public func makeTemporaryDirectory(prefix: String) throws -> URL {
    URL(fileURLWithPath: try ScratchDirectory(prefix: prefix).path)
}
