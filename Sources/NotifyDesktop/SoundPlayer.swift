import CCanberra
import Glibc
public import Logging
import Synchronization

/// Plays event sounds through libcanberra when the notification server
/// cannot.
///
/// Canberra may block (opening the audio device, finding the sound in the
/// theme), so it runs on a ``GLibThread`` of the player's own, started on
/// the first sound: the `ca_context` is made, used and destroyed there.
/// Without an audio device every sound fails, an expected outcome the
/// caller logs.
public final class SoundPlayer: Sendable {
    private let logger: Logger
    private let state = Mutex(State.idle)

    private enum State {
        case idle
        case running(Worker)
        case stopped
    }

    /// The sound thread and the canberra context confined to it.
    private final class Worker: Sendable {
        let thread: GLibThread
        let canberra: ThreadConfined<CanberraContext>
        init(thread: GLibThread) {
            self.thread = thread
            canberra = ThreadConfined(CanberraContext(), on: thread)
        }
    }

    public init(logger: Logger) {
        self.logger = logger
    }

    deinit {
        shutDown()
    }

    /// Starts playing `sound` and returns at once; `completion` (on the
    /// sound thread, or the caller's when the player cannot run) says
    /// whether canberra accepted it. `.suppress`, an empty name or an empty
    /// file play nothing and complete with `.played`.
    public func play(
        _ sound: SoundHint, description: String = "Notification",
        completion: @escaping @Sendable (SoundOutcome) -> Void
    ) {
        switch sound {
        case .suppress, .name(""), .file(""):
            completion(.played)
            return
        case .name, .file:
            break
        }
        let worker: Worker
        do throws(DesktopError) {
            worker = try startedWorker()
        } catch {
            completion(.failed(error.message))
            return
        }
        let canberra = worker.canberra
        let queued = worker.thread.perform {
            canberra.access { context in
                do throws(DesktopError) {
                    try context.play(sound, description: description)
                    completion(.played)
                } catch {
                    completion(.failed(error.message))
                }
            }
        }
        if !queued { completion(.failed("the sound player is shut down")) }
    }

    /// Destroys the canberra context and joins the sound thread.
    /// Idempotent; later sounds fail.
    public func shutDown() {
        let worker: Worker? = state.withLock { state in
            defer { state = .stopped }
            if case .running(let worker) = state { return worker }
            return nil
        }
        guard let worker else { return }
        let canberra = worker.canberra
        worker.thread.stop { canberra.access { $0.close() } }
    }

    private func startedWorker() throws(DesktopError) -> Worker {
        try state.withLock { state throws(DesktopError) -> Worker in
            switch state {
            case .running(let worker):
                return worker
            case .stopped:
                throw DesktopError(.shutDown, "the sound player is shut down")
            case .idle:
                let worker = Worker(thread: try GLibThread(name: "notifyd-sound"))
                state = .running(worker)
                logger.debug("sound thread started")
                return worker
            }
        }
    }
}

/// One `ca_context`, opened on the first sound. Sound thread only.
///
/// After a failure the context is destroyed, so that the next sound opens
/// the devices afresh: a sound card or sound server that appears later is
/// used without a restart. While the machine has no sound output at all,
/// sounds fail at once with that cause, and canberra is tried again only
/// every ``retryInterval``.
final class CanberraContext {
    private var context: OpaquePointer?
    /// Why the last sound failed, while no output exists, and when to try again.
    private var absence: (cause: String, retryAt: UInt64)?
    static let retryInterval: UInt64 = 60_000_000_000

    /// Hands the sound to canberra; throws what canberra answered, or that
    /// there is no sound device.
    func play(_ sound: SoundHint, description: String) throws(DesktopError) {
        if let absence, bootTime() < absence.retryAt, SoundOutputs.absence() != nil {
            throw DesktopError(.canberra, absence.cause)
        }
        do throws(DesktopError) {
            try attempt(sound, description: description)
            absence = nil
        } catch {
            close()
            guard let cause = SoundOutputs.absence() else { throw error }
            absence = (cause, bootTime() + Self.retryInterval)
            throw DesktopError(.canberra, cause)
        }
    }

    private func attempt(_ sound: SoundHint, description: String) throws(DesktopError) {
        let context = try opened()
        let what: String
        var properties: [(String, String)] = [(CA_PROP_EVENT_DESCRIPTION, description)]
        switch sound {
        case .name(let name):
            what = "the sound \(name)"
            properties.append((CA_PROP_EVENT_ID, name))
        case .file(let path):
            what = "the sound file \(path)"
            properties.append((CA_PROP_MEDIA_FILENAME, path))
        case .suppress:
            return
        }
        try withPropertyList(properties) { list throws(DesktopError) in
            try checkCanberra(ca_context_play_full(context, 0, list, nil, nil), "cannot play \(what)")
        }
    }

    /// Destroys the context (stopping what still plays).
    func close() {
        if let context { ca_context_destroy(context) }
        context = nil
    }

    private func opened() throws(DesktopError) -> OpaquePointer {
        if let context { return context }
        guard Self.canberraLoaded else {
            throw DesktopError(.canberra, notifyd_canberra_load_error().map { String(cString: $0) } ?? "libcanberra could not be loaded")
        }
        _ = Self.alsaSilenced
        var created: OpaquePointer?
        try checkCanberra(ca_context_create(&created), "cannot create a canberra context")
        guard let created else { throw DesktopError(.canberra, "canberra returned no context") }
        do throws(DesktopError) {
            let properties = [(CA_PROP_APPLICATION_NAME, "notifyd"), (CA_PROP_APPLICATION_ID, "org.notifyd.Notifyd1")]
            try withPropertyList(properties) { list throws(DesktopError) in
                try checkCanberra(ca_context_change_props_full(created, list), "cannot name the canberra context")
            }
        } catch {
            ca_context_destroy(created)
            throw error
        }
        context = created
        return created
    }

    /// libcanberra, loaded (`dlopen`) at the first sound notifyd plays itself.
    private static let canberraLoaded: Bool = notifyd_canberra_load() == 1

    /// libasound's own printing to stderr, silenced once per process.
    private static let alsaSilenced: Bool = notifyd_silence_alsa() == 0

    /// `CLOCK_BOOTTIME` in nanoseconds: retries count time asleep too.
    private func bootTime() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// Runs `body` with a `ca_proplist` of string properties, destroyed after.
    private func withPropertyList(
        _ properties: [(String, String)], _ body: (OpaquePointer) throws(DesktopError) -> Void
    ) throws(DesktopError) {
        var list: OpaquePointer?
        try checkCanberra(ca_proplist_create(&list), "cannot create a canberra property list")
        guard let list else { throw DesktopError(.canberra, "canberra returned no property list") }
        defer { ca_proplist_destroy(list) }
        for (key, value) in properties {
            try checkCanberra(ca_proplist_sets(list, key, value), "cannot set the canberra property \(key)")
        }
        try body(list)
    }
}
