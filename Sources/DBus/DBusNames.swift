import CDBus

/// Validation of D-Bus names and paths, through libdbus's own validators so
/// the rules are exactly the ones libdbus enforces (it aborts on an invalid
/// name passed to a message constructor).
public enum DBusNames {
    /// Whether `path` is a valid object path.
    public static func isValidObjectPath(_ path: String) -> Bool {
        validate(path, dbus_validate_path)
    }

    /// Whether `name` is a valid interface name (also used for error names).
    public static func isValidInterface(_ name: String) -> Bool {
        validate(name, dbus_validate_interface)
    }

    /// Whether `name` is a valid member (method or signal) name.
    public static func isValidMember(_ name: String) -> Bool {
        validate(name, dbus_validate_member)
    }

    /// Whether `name` is a valid error name.
    public static func isValidErrorName(_ name: String) -> Bool {
        validate(name, dbus_validate_error_name)
    }

    /// Whether `name` is a valid bus name, unique (`:1.42`) or well-known.
    public static func isValidBusName(_ name: String) -> Bool {
        validate(name, dbus_validate_bus_name)
    }

    private static func validate(
        _ text: String,
        _ validator: (UnsafePointer<CChar>?, UnsafeMutablePointer<CDBus.DBusError>?) -> dbus_bool_t
    ) -> Bool {
        guard !text.utf8.contains(0) else { return false }
        return text.withCString { validator($0, nil) != 0 }
    }
}
