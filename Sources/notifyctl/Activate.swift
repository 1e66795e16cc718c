import ArgumentParser
import DBus
import NotifyCore

/// `notifyctl activate APP`: `DidBecomeActive`, which resets the app's badge.
struct Activate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Report an app as active (DidBecomeActive), which resets its badge to 0.",
        discussion: """
            Calls DidBecomeActive, as an app does when the user brings it to the front: notifyd \
            sets the app's state to active and its badge to 0, and docks remove the count from \
            its icon. Prints nothing. When notifyd refuses (an invalid app ID, or an app a \
            sandboxed caller may not name), its message is printed and the exit status is 1.

            \(stateLifetime) Only a program that stays connected, normally the app itself, keeps \
            a state; what activate leaves behind is the reset badge, as if the user had opened the \
            app. The last two examples print 0 (the badge) and not-running (the state).

            Examples:
              notifyctl activate firefox
              notifyctl activate firefox && notifyctl badge get firefox
              notifyctl activate firefox && notifyctl state firefox
            """)

    /// Why a state set by notifyctl does not outlive it (SPEC, Apps: the
    /// connection that last reported a state owns it); `state` says it too.
    static let stateLifetime = """
        A state belongs to a running connection: the D-Bus connection that last reported an \
        app's state owns it, and when that connection leaves the bus the app becomes \
        not-running. notifyctl's connection ends when notifyctl exits, so a script's \
        `notifyctl activate APP` resets the badge (for good: badges are stored) but leaves the \
        app not-running once notifyctl exits, even when the app is in fact running, until the \
        app reports its state again.
        """

    @Argument(help: ArgumentHelp("The app's desktop entry ID.", valueName: "app"))
    var app: String

    func run() throws {
        _ = try DaemonClient.connect().call(NotifydNames.appsInterface, "DidBecomeActive", [.string(app)])
    }
}
