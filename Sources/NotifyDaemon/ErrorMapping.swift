public import DBus
public import NotifyCore
import NotifyStore

extension NotifydError: DBusErrorConvertible {
    /// `org.notifyd.Notifyd1.Error.<Code>`; malformed values use the
    /// standard `InvalidArgs`, storage failures the standard `IOError` and
    /// a shortage of resources the standard `LimitsExceeded`.
    public var dbusErrorName: String {
        switch code {
        case .invalidArgs: DBusError.Name.invalidArgs
        case .storageFailed: DBusError.Name.ioError
        case .resourcesExhausted: DBusError.Name.limitsExceeded
        default: NotifydNames.errorPrefix + code.name
        }
    }

    public var dbusErrorMessage: String { message }
}

extension NotifydError {
    /// The error a caller gets when its change could not be saved.
    static func storage(_ error: any Error) -> NotifydError {
        NotifydError(.storageFailed, "notifyd could not save its state, so nothing was changed: \(error)")
    }
}
