import CLibsecret

/// What an asynchronous GIO call handed its callback: the result and the
/// source object, one reference each, dropped with the box.
final class AsyncCompletion {
    var result: OpaquePointer?
    var source: UnsafeMutablePointer<GObject>?

    deinit {
        if let result { g_object_unref(UnsafeMutableRawPointer(result)) }
        if let source { g_object_unref(source) }
    }
}

/// The callback of every asynchronous call of this module: `data` is an
/// ``AsyncCompletion`` passed retained by ``GLibCall/run(on:seconds:_:)``,
/// released here (GIO calls it exactly once, cancelled or not).
let asyncReady: GAsyncReadyCallback = { source, result, data in
    guard let data else { return }
    let completion = Unmanaged<AsyncCompletion>.fromOpaque(data).takeRetainedValue()
    completion.source = source.map { g_object_ref($0).assumingMemoryBound(to: GObject.self) }
    completion.result = result.map { OpaquePointer(g_object_ref(UnsafeMutableRawPointer($0))) }
}

/// One asynchronous libsecret or GIO call run to its end on the keeper's
/// thread, bounded in time.
///
/// Why not libsecret's `_sync` calls: they run a main context of their own
/// inside, so a timeout source on any other context never fires, and one
/// waiting for a prompt (a locked keyring) can wait for ever. Instead the
/// call starts asynchronously on the keeper's own context (the thread
/// default), a GLib timeout source on that same context cancels its
/// GCancellable when the deadline passes, and the thread iterates the
/// context until the callback has come, which GIO guarantees, cancelled or
/// not. Nothing else runs on that context, so nothing but this call's own
/// work is dispatched meanwhile.
enum GLibCall {
    /// Runs the call that `start` begins (with a cancellable, the callback
    /// and its data) and returns what its callback got, and whether the
    /// deadline cancelled it.
    static func run(
        on context: OpaquePointer, seconds: Int,
        _ start: (UnsafeMutablePointer<GCancellable>, GAsyncReadyCallback, gpointer) -> Void
    ) -> (completion: AsyncCompletion, timedOut: Bool) {
        let cancellable = g_cancellable_new()!
        defer { g_object_unref(cancellable) }
        let timer = g_timeout_source_new(UInt32(max(1, seconds)) * 1000)!
        g_source_set_callback(
            timer,
            { data in
                g_cancellable_cancel(data?.assumingMemoryBound(to: GCancellable.self))
                return 0  // G_SOURCE_REMOVE
            },
            g_object_ref(cancellable),
            { g_object_unref($0) })
        g_source_attach(timer, context)
        defer {
            g_source_destroy(timer)
            g_source_unref(timer)
        }
        let completion = AsyncCompletion()
        start(cancellable, asyncReady, Unmanaged.passRetained(completion).toOpaque())
        while completion.result == nil { g_main_context_iteration(context, 1) }
        return (completion, g_cancellable_is_cancelled(cancellable) != 0)
    }
}
