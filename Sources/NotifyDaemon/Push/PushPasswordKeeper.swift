import DBus
import Logging
import NotifyCore
import NotifySecrets

/// Where the push server's password is kept: in the Secret Service
/// (through libsecret, on the keeper's own thread) when one answers, else
/// in notifyd's state database, which only the user can read. Its answers
/// come back on the bus loop. The keeper's thread is started on first use:
/// a daemon without a push server has none.
final class PushPasswordKeeper {
    private let loop: EventLoop
    private let bus: DBusConnection.Bus
    private let logger: Logger
    private var keeper: SecretKeeper?

    /// The Secret Service's attribute `server` of notifyd's items.
    static let serverAttribute = "org.notifyd.Notifyd1.Push"

    init(loop: EventLoop, bus: DBusConnection.Bus, logger: Logger) {
        self.loop = loop
        self.bus = bus
        self.logger = logger
    }

    /// Keeps the password of `settings` (when it has one) and hands the
    /// settings back saying where it went.
    func keep(_ settings: PushServerSettings, then done: @escaping (PushServerSettings) -> Void) {
        guard let password = settings.password, let keeper = startedKeeper() else {
            done(settings.keepingPassword(inSecretService: false))
            return
        }
        let bound = LoopBound(done, loop: loop)
        let logger = self.logger
        keeper.store(
            password.rawValue, account: settings.address, server: Self.serverAttribute,
            label: "notifyd push server password for \(settings.address)"
        ) { outcome in
            let inSecretService = outcome == .storedInSecretService
            if case .unavailable(let reason) = outcome {
                logger.info("the push server's password is kept in the state database: \(reason)")
            }
            bound.execute { $0(settings.keepingPassword(inSecretService: inSecretService)) }
        }
    }

    /// The password of `settings`, looked up in the Secret Service when it
    /// keeps it: the settings with it, or why it could not be had.
    func restore(_ settings: PushServerSettings, then done: @escaping (Result<PushServerSettings, NotifydError>) -> Void) {
        guard settings.passwordInSecretService, settings.password == nil else {
            done(.success(settings))
            return
        }
        guard let keeper = startedKeeper() else {
            done(.failure(NotifydError(.resourcesExhausted, "the Secret Service cannot be asked for the password")))
            return
        }
        let bound = LoopBound(done, loop: loop)
        keeper.lookup(account: settings.address, server: Self.serverAttribute) { lookup in
            let result: Result<PushServerSettings, NotifydError>
            switch lookup {
            case .found(let text):
                if let secret = try? PushSecret(text) {
                    result = .success(settings.keepingPassword(inSecretService: true, password: secret))
                } else {
                    result = .failure(NotifydError(.invalidArgs, "the password in the Secret Service is not one"))
                }
            case .notFound:
                result = .failure(NotifydError(.notPermitted, "the password is no longer in the Secret Service"))
            case .unavailable(let reason):
                result = .failure(NotifydError(.resourcesExhausted, "the Secret Service did not give the password: \(reason)"))
            }
            bound.execute { $0(result) }
        }
    }

    /// Removes the password of `settings` from the Secret Service, if it
    /// keeps it (the server was set to another account, or to none).
    func forget(_ settings: PushServerSettings) {
        guard settings.passwordInSecretService, let keeper = startedKeeper() else { return }
        keeper.remove(account: settings.address, server: Self.serverAttribute) { _ in }
    }

    /// Ends the keeper's thread, if it was started.
    func stop() {
        keeper?.stop()
        keeper = nil
    }

    private func startedKeeper() -> SecretKeeper? {
        if let keeper { return keeper }
        let address: String?
        switch bus {
        case .address(let text): address = text
        case .session, .system: address = nil
        }
        do {
            keeper = try SecretKeeper(busAddress: address)
        } catch {
            logger.warning("cannot start the Secret Service client (\(error)); the password is kept in the state database")
        }
        return keeper
    }
}
