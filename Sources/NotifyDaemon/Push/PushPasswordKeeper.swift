import DBus
import Logging
import NotifyCore
import NotifySecrets
import NotifyStore

/// Where the push server's password is kept: in the Secret Service
/// (through libsecret, on the keeper's own thread) when one answers, else
/// in a file in notifyd's configuration directory that only the user can
/// read (``PushPasswordFile``, written and read on the writer thread);
/// never in the state database (SPEC). Its answers come back on the bus
/// loop. The keeper's thread is started on first use: a daemon without a
/// push server has none.
final class PushPasswordKeeper {
    private let loop: EventLoop
    private let bus: DBusConnection.Bus
    private let file: PushPasswordFile
    private let files: StoreWriter
    private let logger: Logger
    private var keeper: SecretKeeper?

    /// The Secret Service's attribute `server` of notifyd's items.
    static let serverAttribute = "org.notifyd.Notifyd1.Push"

    /// `configDirectory` holds the password file; `files` is the thread
    /// that touches it.
    init(loop: EventLoop, bus: DBusConnection.Bus, configDirectory: String, files: StoreWriter, logger: Logger) {
        self.loop = loop
        self.bus = bus
        self.file = PushPasswordFile(directory: configDirectory)
        self.files = files
        self.logger = logger
    }

    /// Keeps the password of `settings` (when it has one) and hands the
    /// settings back saying where it went, or why it could not be kept.
    func keep(_ settings: PushServerSettings, then done: @escaping (Result<PushServerSettings, NotifydError>) -> Void) {
        guard let password = settings.password else {
            done(.success(settings))
            return
        }
        guard let keeper = startedKeeper() else {
            keepInFile(settings, password, then: done)
            return
        }
        let stored = LoopBound({ [weak self] (outcome: SecretOutcome) in
            guard let self else { return }
            if case .unavailable(let reason) = outcome {
                logger.info("the push server's password is kept in \(file.path): \(reason)")
                keepInFile(settings, password, then: done)
            } else {
                removeFile()  // an older account's
                done(.success(settings.keepingPassword(in: .secretService)))
            }
        }, loop: loop)
        keeper.store(
            password.rawValue, account: settings.address, server: Self.serverAttribute,
            label: "notifyd push server password for \(settings.address)"
        ) { outcome in
            stored.execute { $0(outcome) }
        }
    }

    /// The password of `settings`, looked up where it is kept: the
    /// settings with it, or why it could not be had.
    func restore(_ settings: PushServerSettings, then done: @escaping (Result<PushServerSettings, NotifydError>) -> Void) {
        guard settings.password == nil, settings.passwordPlace != .memory else {
            done(.success(settings))
            return
        }
        if settings.passwordPlace == .file {
            files.perform({ [file] _ in try file.read() }) { [file] result in
                switch result {
                case .success(let text?):
                    if let secret = try? PushSecret(text) {
                        done(.success(settings.keepingPassword(in: .file, password: secret)))
                    } else {
                        done(.failure(NotifydError(.invalidArgs, "\(file.path) does not hold a password")))
                    }
                case .success(nil):
                    done(.failure(NotifydError(.notPermitted, "the password file \(file.path) is gone; set the server again")))
                case .failure(let error):
                    done(.failure(NotifydError(.storageFailed, "cannot read the password: \(error)")))
                }
            }
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
                    result = .success(settings.keepingPassword(in: .secretService, password: secret))
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

    /// Removes the password of `old`, which `new` replaced (another
    /// account, or none): from the Secret Service, or its file unless
    /// `new`'s password is in the file now.
    func forget(_ old: PushServerSettings, replacedBy new: PushServerSettings?) {
        switch old.passwordPlace {
        case .secretService:
            guard old.address != new?.address || new == nil, let keeper = startedKeeper() else { return }
            keeper.remove(account: old.address, server: Self.serverAttribute) { _ in }
        case .file:
            if new?.passwordPlace != .file { removeFile() }
        case .memory:
            break
        }
    }

    /// Ends the keeper's thread, if it was started.
    func stop() {
        keeper?.stop()
        keeper = nil
    }

    private func keepInFile(
        _ settings: PushServerSettings, _ password: PushSecret,
        then done: @escaping (Result<PushServerSettings, NotifydError>) -> Void
    ) {
        files.perform({ [file] _ in try file.write(password.rawValue) }) { [file] result in
            switch result {
            case .success: done(.success(settings.keepingPassword(in: .file)))
            case .failure(let error):
                done(.failure(NotifydError(.storageFailed, "cannot keep the password in \(file.path): \(error)")))
            }
        }
    }

    private func removeFile() {
        files.perform({ [file] _ in try file.remove() }) { [logger, file] result in
            if case .failure(let error) = result { logger.warning("cannot remove \(file.path): \(error)") }
        }
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
            logger.warning("cannot start the Secret Service client (\(error)); the password is kept in \(file.path)")
        }
        return keeper
    }
}
