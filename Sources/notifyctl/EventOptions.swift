public import ArgumentParser
import DBus
public import NotifyCore

/// The options of `notifyctl event` that make up the event dictionary
/// (`a{sv}`, SPEC "The event dictionary"; its keys are ``WorkerEventKey``,
/// and ``EventKeyOption`` says which option sets each).
///
/// Value options take the next word whatever it looks like, as getopt
/// does, so `--title "$name"` works for a file named `-x.iso` too.
/// Everything notifyd would refuse for its form (an unknown fetch result,
/// a timeout out of 1 to 86400, a malformed progress, two kinds) is
/// refused here first, as bad usage (exit 2); the rest (sizes, app IDs,
/// lengths) is notifyd's to judge.
struct EventOptions: ParsableArguments {
    // MARK: Kind (at most one; none is `finished`)

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("The transfer failed, and why (kind failed).", valueName: "error"))
    var failed: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Bytes written so far, and of how many when known (kind progress): no handler, no popup.",
            valueName: "written/expected"),
        transform: TransferProgress.init(parsing:))
    var progress: TransferProgress?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("A background fetch ended (kind fetch) with this result.", valueName: "result"))
    var fetch: FetchResult?

    // MARK: What the notification says

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("What the event is about, e.g. the file name.", valueName: "title"))
    var title: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("The notification's summary instead of notifyd's.", valueName: "text"))
    var summary: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("The notification's body instead of notifyd's.", valueName: "text"))
    var body: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Where the result is; a relative path is taken from the current directory.", valueName: "path"))
    var path: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("Where it came from.", valueName: "uri"))
    var uri: String?

    // MARK: How to tell the user

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "A sound name (e.g. complete-download) or an absolute sound file; '' for silence.", valueName: "name"))
    var sound: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Add this to the app's badge (default: 1 for finished, failed and fetch new-data, else 0).",
            valueName: "n"))
    var badge: Int32?

    @Flag(name: .customLong("no-notify"), help: "Post no popup (the handler and the badge still apply).")
    var noNotify = false

    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds until the handler expires if the app does not complete the session, 1 to 86400 (default: 30).",
            valueName: "seconds"))
    var timeout: UInt32?

    /// The options as ArgumentParser leaves them when none is given, for a
    /// caller that sets them itself (``FastPath``): a field neither parsed
    /// nor set cannot be read, nor written through a key path (which reads
    /// it first).
    static var unset: EventOptions {
        var options = EventOptions()
        options.failed = nil
        options.progress = nil
        options.fetch = nil
        options.title = nil
        options.summary = nil
        options.body = nil
        options.path = nil
        options.uri = nil
        options.sound = nil
        options.badge = nil
        options.noNotify = false
        options.timeout = nil
        return options
    }

    func validate() throws {
        let kinds = [failed.map { _ in "--failed" }, progress.map { _ in "--progress" }, fetch.map { _ in "--fetch" }]
            .compactMap { $0 }
        if kinds.count > 1 {
            throw ValidationError(
                "\(kinds.joined(separator: " and ")) cannot be combined: an event is of one kind (none is finished).")
        }
        if let timeout, !WorkerEvent.timeoutRange.contains(timeout) {
            let range = WorkerEvent.timeoutRange
            throw ValidationError("--timeout must be \(range.lowerBound) to \(range.upperBound) seconds, not \(timeout).")
        }
        if path?.isEmpty == true {
            throw ValidationError("--path is empty: give the result's path, or leave --path out.")
        }
    }

    /// The event's kind, from the kind options.
    var kind: String {
        if failed != nil { return "failed" }
        if progress != nil { return "progress" }
        if fetch != nil { return "fetch" }
        return "finished"
    }

    /// Whether ``dictionary(currentDirectory:)`` needs the current directory.
    var hasRelativePath: Bool { path.map { !$0.hasPrefix("/") } ?? false }

    /// The event dictionary for `HandleEventsForBackgroundSession`: `kind`
    /// always, every other key only when its option was given.
    ///
    /// - Parameter currentDirectory: the absolute directory a relative
    ///   `--path` (any key whose bound is an absolute path) is taken from:
    ///   notifyd refuses relative paths.
    func dictionary(currentDirectory: String) -> [String: DBusValue] {
        var event: [WorkerEventKey: DBusValue] = [.kind: .string(kind)]
        for (key, _, field) in EventKeyOption.textOptions {
            guard let text = self[keyPath: field] else { continue }
            event[key] = .string(key.bound == .absolutePath ? Self.absolute(text, in: currentDirectory) : text)
        }
        if let progress {
            event[.bytesWritten] = .uint64(progress.written)
            if let expected = progress.expected { event[.bytesExpected] = .uint64(expected) }
        }
        if let fetch { event[.result] = .string(fetch.rawValue) }
        if let badge { event[.badge] = .int32(badge) }
        if noNotify { event[.notify] = .boolean(false) }
        if let timeout { event[.timeout] = .uint32(timeout) }
        return Dictionary(uniqueKeysWithValues: event.map { ($0.key.name, $0.value) })
    }

    /// `path` made absolute against `directory`, lexically: `.` components
    /// and repeated slashes of the relative part are dropped; `..` is kept
    /// (resolving it without the file system could be wrong across a
    /// symbolic link).
    static func absolute(_ path: String, in directory: String) -> String {
        if path.hasPrefix("/") { return path }
        let parts = path.split(separator: "/").filter { $0 != "." }
        var base = directory
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        guard !parts.isEmpty else { return base }
        return (base == "/" ? "" : base) + "/" + parts.joined(separator: "/")
    }
}

/// `--progress WRITTEN/EXPECTED` (or `WRITTEN` alone when the size is not
/// known): byte counts, `bytes-written` and `bytes-expected` (`t`).
struct TransferProgress: Equatable {
    var written: UInt64
    var expected: UInt64?

    init(written: UInt64, expected: UInt64?) {
        self.written = written
        self.expected = expected
    }

    /// Parses `10/100` or `10`; throws a message ArgumentParser shows after
    /// "The value '…' is invalid for '--progress <written/expected>'".
    init(parsing text: String) throws {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        func number(_ part: Substring) -> UInt64? {
            guard !part.isEmpty, part.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return nil }
            return UInt64(part)
        }
        guard let written = number(parts[0]), parts.count == 1 || number(parts[1]) != nil else {
            throw ValidationError(
                "give the bytes written and expected as two whole numbers, e.g. 1048576/4194304 (or 1048576 alone when the size is unknown)")
        }
        self.init(written: written, expected: parts.count == 2 ? number(parts[1]) : nil)
    }
}

/// `--fetch RESULT`: how a background fetch ended, as the event key
/// `result` takes it. (A conformance of a public type is public, hence
/// the public imports.)
extension NotifyCore.FetchResult: ExpressibleByArgument {}
