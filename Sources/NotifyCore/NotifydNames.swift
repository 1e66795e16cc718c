/// The fixed names of notifyd's D-Bus contract (SPEC "Names").
public enum NotifydNames {
    /// This build's version.
    public static let version = "0.2.0"
    public static let busName = "org.notifyd.Notifyd1"
    public static let objectPath = "/org/notifyd/Notifyd1"
    public static let badgesInterface = "org.notifyd.Notifyd1.Badges"
    public static let appsInterface = "org.notifyd.Notifyd1.Apps"
    public static let sessionsInterface = "org.notifyd.Notifyd1.Sessions"
    public static let fetchInterface = "org.notifyd.Notifyd1.Fetch"
    public static let tasksInterface = "org.notifyd.Notifyd1.Tasks"
    public static let transfersInterface = "org.notifyd.Notifyd1.Transfers"
    public static let daemonInterface = "org.notifyd.Notifyd1.Daemon"
    public static let workerInterface = "org.notifyd.Notifyd1.Worker"
    /// Prefix of every notifyd error name.
    public static let errorPrefix = "org.notifyd.Notifyd1.Error."
    /// notifyd's own control of its UnifiedPush distributor.
    public static let pushInterface = "org.notifyd.Notifyd1.Push"
    /// The UnifiedPush distributor's bus name (SPEC "Remote notifications").
    public static let distributorBusName = "org.unifiedpush.Distributor.notifyd"
    public static let distributorPath = "/org/unifiedpush/Distributor"
    public static let distributor1Interface = "org.unifiedpush.Distributor1"
    public static let distributor2Interface = "org.unifiedpush.Distributor2"
    /// Where an app's connector answers, on the bus name it registered as.
    public static let connectorPath = "/org/unifiedpush/Connector"
    public static let connector1Interface = "org.unifiedpush.Connector1"
    public static let connector2Interface = "org.unifiedpush.Connector2"
}
