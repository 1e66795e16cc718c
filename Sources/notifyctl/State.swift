import ArgumentParser
import DBus
import NotifyCore

/// `notifyctl state APP`: `GetState`.
struct State: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print an app's state: active, inactive, background or not-running.",
        discussion: """
            Calls GetState and prints one word: active (in front), inactive (running, not in \
            front), background (running in the background) or not-running (the connection that \
            reported its state has left the bus, none ever did, or notifyd does not know the app). With --json, \
            {"app":"firefox","state":"active"}. Exits 0 whatever the state; 1 when notifyd \
            refuses the app ID (its message is printed).

            \(Activate.stateLifetime) That is why `notifyctl state APP` prints not-running \
            right after `notifyctl activate APP`.

            Examples:
              notifyctl state firefox
              notifyctl state firefox --json
              [ "$(notifyctl state firefox)" = active ] || notifyctl badge increment firefox
            """)

    @Argument(help: ArgumentHelp("The app's desktop entry ID.", valueName: "app"))
    var app: String

    @OptionGroup var output: OutputOptions

    func run() throws {
        let state = try DaemonClient.connect().call(
            NotifydNames.appsInterface, "GetState", [.string(app)], returning: String.self)
        output.emit(text: [DBusValueText.word(state)], json: .appState(app: app, state: state))
    }
}
