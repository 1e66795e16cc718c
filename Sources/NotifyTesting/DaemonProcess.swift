import Foundation
import NotifyTestingCore

extension DaemonProcess {
    /// notifyd's state directory.
    public var stateDirectory: URL { URL(fileURLWithPath: stateDirectoryPath) }

    /// Starts notifyd on `bus` with the state in `stateDirectory` (nil:
    /// `state` in the bus's directory) and waits until it owns its bus name.
    public convenience init(
        bus: TestBus, stateDirectory: URL?, arguments: [String] = [], extraEnvironment: [String: String] = [:],
        commandPrefix: [String] = []
    ) throws {
        try self.init(
            bus: bus, stateDirectoryPath: stateDirectory?.path, arguments: arguments,
            extraEnvironment: extraEnvironment, commandPrefix: commandPrefix)
    }
}
