public import DBus
import NotifyCore

/// The object notifyd exports at `/org/notifyd/Notifyd1`.
public enum NotifydObject {
    /// The interfaces as declared, without handlers: what the committed
    /// `dbus/org.notifyd.Notifyd1.xml` is generated from.
    public static var declarations: [DBusInterface] {
        [
            BadgeService.interface(nil), AppService.interface(nil), SessionService.interface(nil), FetchService.interface(nil), TaskService.interface(nil),
            TransferService.interface(nil), DaemonService.interface(nil), PushService.interface(nil),
        ]
    }

    /// The worker interface, declared: the signal workers emit from any
    /// object path (not an interface of the object).
    public static var workerDeclaration: DBusInterface { SessionService.workerInterface }

    /// The worker interface (signals workers emit), as committed in
    /// `dbus/org.notifyd.Notifyd1.Worker.xml`.
    public static var workerXML: String {
        Introspection.xml(interfaces: [workerDeclaration], includeDocumentation: true)
    }

    /// The introspection document with documentation, as committed in
    /// `dbus/org.notifyd.Notifyd1.xml`.
    /// The UnifiedPush distributor's object (`/org/unifiedpush/Distributor`
    /// on `org.unifiedpush.Distributor.notifyd`): Distributor2, then Distributor1.
    public static var distributorDeclarations: [DBusInterface] {
        [PushService.distributor2Interface(nil), PushService.distributor1Interface(nil)]
    }

    /// `dbus/org.unifiedpush.Distributor.notifyd.xml`.
    public static var distributorXML: String {
        DBusObject(path: NotifydNames.distributorPath, interfaces: distributorDeclarations)
            .introspectionXML(includeDocumentation: true)
    }

    public static var documentedXML: String {
        DBusObject(path: NotifydNames.objectPath, interfaces: declarations)
            .introspectionXML(includeDocumentation: true)
    }
}
