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
    public static let daemonInterface = "org.notifyd.Notifyd1.Daemon"
    public static let workerInterface = "org.notifyd.Notifyd1.Worker"
    /// Prefix of every notifyd error name.
    public static let errorPrefix = "org.notifyd.Notifyd1.Error."
}
