/// How a ``SecretKeeper/store(_:account:server:label:done:)`` ended.
public enum SecretOutcome: Sendable, Equatable {
    /// The Secret Service holds the password now (replacing any it held for
    /// the same account and server).
    case storedInSecretService
    /// No Secret Service could take it; `reason` says why in words (none on
    /// the bus, a locked keyring that was not unlocked, no answer in time).
    /// The caller keeps the password in its own store instead.
    case unavailable(reason: String)
}

/// How a ``SecretKeeper/lookup(account:server:done:)`` ended.
public enum SecretLookup: Sendable, Equatable {
    /// The Secret Service holds this password for the account and server.
    case found(String)
    /// The Secret Service answered and holds none.
    case notFound
    /// No Secret Service could be asked; `reason` says why in words.
    case unavailable(reason: String)
}

/// How a ``SecretKeeper/remove(account:server:done:)`` ended.
public enum SecretRemoval: Sendable, Equatable {
    /// The Secret Service held a password for the account and server, and
    /// has deleted it.
    case removed
    /// The Secret Service answered and held none.
    case notFound
    /// No Secret Service could be asked; `reason` says why in words.
    case unavailable(reason: String)
}

/// One piece of work for the keeper's thread, with the closure its answer goes to.
enum SecretJob: Sendable {
    case store(password: String, item: SecretItemKey, label: String, done: @Sendable (SecretOutcome) -> Void)
    case lookup(SecretItemKey, done: @Sendable (SecretLookup) -> Void)
    case remove(SecretItemKey, done: @Sendable (SecretRemoval) -> Void)

    /// Answers the job without doing it (the keeper was stopped first).
    func abandon(reason: String) {
        switch self {
        case .store(_, _, _, let done): done(.unavailable(reason: reason))
        case .lookup(_, let done): done(.unavailable(reason: reason))
        case .remove(_, let done): done(.unavailable(reason: reason))
        }
    }
}

/// The attributes that name one push password item (schema
/// `org.notifyd.Notifyd1.PushPassword`).
struct SecretItemKey: Sendable {
    let account: String
    let server: String
}
