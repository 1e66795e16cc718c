import DBus

/// A notification server the desktop suite drives: a server of its own on
/// an Xvfb display (``NotificationServerSession``), or a desktop shell whose
/// notification server is part of it (GNOME Shell, KDE Plasma).
public protocol NotificationServerHost: AnyObject, Sendable {
    /// The X display it draws on (for tools such as `dunstctl`).
    var display: String { get }
    /// What the server has logged so far.
    var log: String { get }
    /// Starts the server again after ``stop()`` (or lets it be started on
    /// demand) and waits until it owns its name.
    func start() throws
    /// Stops the server and waits until its name is gone from the bus.
    func stop() throws
    /// `GetServerInformation`: name, vendor, version, specification version.
    func serverInformation() throws -> (name: String, vendor: String, version: String, spec: String)
    /// `GetCapabilities`.
    func capabilities() throws -> [String]
    /// Unique names of the desktop's own connections that pass notifications
    /// among themselves (GNOME Shell, to which its helper hands each call):
    /// what they send and receive is not notifyd's.
    func internalPeers() throws -> [String]
}

extension NotificationServerHost {
    public func internalPeers() throws -> [String] { [] }
}

extension DBusConnection {
    /// `GetServerInformation` of the notification server on this bus.
    public func notificationServerInformation() throws -> (name: String, vendor: String, version: String, spec: String) {
        let reply = try call(
            destination: NotificationServerSession.busName, path: NotificationServerSession.path,
            interface: NotificationServerSession.busName, member: "GetServerInformation")
        return (try reply.decode(0), try reply.decode(1), try reply.decode(2), try reply.decode(3))
    }

    /// `GetCapabilities` of the notification server on this bus.
    public func notificationServerCapabilities() throws -> [String] {
        try call(
            destination: NotificationServerSession.busName, path: NotificationServerSession.path,
            interface: NotificationServerSession.busName, member: "GetCapabilities"
        ).decode(0)
    }
}
