import CLibsecret

extension SecretServiceLink {
    /// Stores `password` for `item` in the default collection, replacing
    /// the item stored before. libsecret does not unlock a locked
    /// collection to store in it (it answers SECRET_ERROR_IS_LOCKED), so
    /// the keeper then asks the service to unlock the default collection
    /// (the service may prompt) and tries once more, each step within the bound.
    func store(_ password: String, item: SecretItemKey, label: String) -> SecretOutcome {
        do {
            let service = try readyService()
            var error: UnsafeMutablePointer<GError>?
            var timedOut = false
            for attempt in 1...2 {
                let call = run { cancellable, callback, data in
                    notifyd_push_password_store(
                        service, item.account, item.server, label, password, cancellable, callback, data)
                }
                if secret_service_store_finish(service, call.completion.result, &error) != 0 {
                    return .storedInSecretService
                }
                timedOut = call.timedOut
                guard attempt == 1, let failure = error, failure.pointee.domain == secret_error_get_quark(),
                    failure.pointee.code == Int32(SECRET_ERROR_IS_LOCKED.rawValue)
                else { break }
                g_error_free(failure)
                error = nil
                try unlockDefaultCollection(service)
            }
            return .unavailable(reason: reason(error, doing: "storing the password", timedOut: timedOut))
        } catch {
            return .unavailable(reason: error.reason)
        }
    }

    /// Looks up the password of `item`, unlocking it if need be. The copy
    /// libsecret returned is wiped and freed by `secret_value_unref` (it
    /// sits in libsecret's non-pageable memory).
    func lookup(_ item: SecretItemKey) -> SecretLookup {
        do {
            let service = try readyService()
            let found = try search(item, service: service, loadingSecrets: true)
            defer { g_list_free_full(found.items) { g_object_unref($0) } }
            for secretItem in found.unlocked {
                guard let value = secret_item_get_secret(secretItem) else { continue }
                defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
                var length = 0
                guard let bytes = secret_value_get(value, &length) else { return .found("") }
                return .found(String(
                    decoding: UnsafeRawBufferPointer(start: bytes, count: length).bindMemory(to: UInt8.self),
                    as: UTF8.self))
            }
            return found.anyLocked ? .unavailable(reason: Self.lockedReason) : .notFound
        } catch {
            return .unavailable(reason: error.reason)
        }
    }

    /// Deletes the password of `item`, unlocking it if need be (libsecret's
    /// `secret_service_clear` skips locked items and answers "nothing
    /// deleted", which would read as "no password stored").
    func remove(_ item: SecretItemKey) -> SecretRemoval {
        do {
            let service = try readyService()
            let found = try search(item, service: service, loadingSecrets: false)
            defer { g_list_free_full(found.items) { g_object_unref($0) } }
            if found.anyLocked { return .unavailable(reason: Self.lockedReason) }
            guard !found.unlocked.isEmpty else { return .notFound }
            for secretItem in found.unlocked {
                let call = run { cancellable, callback, data in
                    secret_item_delete(secretItem, cancellable, callback, data)
                }
                var error: UnsafeMutablePointer<GError>?
                if secret_item_delete_finish(secretItem, call.completion.result, &error) == 0 {
                    return .unavailable(reason: reason(error, doing: "removing the password", timedOut: call.timedOut))
                }
            }
            return .removed
        } catch {
            return .unavailable(reason: error.reason)
        }
    }

    private static let lockedReason = "the keyring holding the password is locked and was not unlocked"

    /// The items of `item` (a list the caller frees with its references),
    /// those unlocked among them, and whether any stayed locked.
    private func search(
        _ item: SecretItemKey, service: UnsafeMutablePointer<SecretService>, loadingSecrets: Bool
    ) throws(SecretServiceUnavailable) -> (
        items: UnsafeMutablePointer<GList>?, unlocked: [UnsafeMutablePointer<SecretItem>], anyLocked: Bool
    ) {
        let call = run { cancellable, callback, data in
            notifyd_push_password_search(
                service, item.account, item.server, loadingSecrets ? 1 : 0, cancellable, callback, data)
        }
        var error: UnsafeMutablePointer<GError>?
        let items = secret_service_search_finish(service, call.completion.result, &error)
        if let error {
            g_list_free_full(items) { g_object_unref($0) }
            throw SecretServiceUnavailable(
                reason: reason(error, doing: "looking up the password", timedOut: call.timedOut))
        }
        var unlocked: [UnsafeMutablePointer<SecretItem>] = []
        var anyLocked = false
        var node = items
        while let current = node {
            node = current.pointee.next
            let secretItem = current.pointee.data.assumingMemoryBound(to: SecretItem.self)
            if secret_item_get_locked(secretItem) != 0 { anyLocked = true } else { unlocked.append(secretItem) }
        }
        return (items, unlocked, anyLocked)
    }

    /// Asks the service to unlock its default collection.
    private func unlockDefaultCollection(
        _ service: UnsafeMutablePointer<SecretService>
    ) throws(SecretServiceUnavailable) {
        let found = run { cancellable, callback, data in
            secret_collection_for_alias(
                service, SECRET_COLLECTION_DEFAULT, SECRET_COLLECTION_NONE, cancellable, callback, data)
        }
        var error: UnsafeMutablePointer<GError>?
        guard let collection = secret_collection_for_alias_finish(found.completion.result, &error) else {
            if error == nil { throw SecretServiceUnavailable(reason: "the Secret Service has no default keyring") }
            throw SecretServiceUnavailable(
                reason: reason(error, doing: "finding the default keyring", timedOut: found.timedOut))
        }
        defer { g_object_unref(collection) }
        let call = run { cancellable, callback, data in
            notifyd_secret_unlock_collection(service, collection, cancellable, callback, data)
        }
        let unlocked = secret_service_unlock_finish(service, call.completion.result, nil, &error)
        guard unlocked == 0 else { return }
        if error == nil && !call.timedOut {
            throw SecretServiceUnavailable(
                reason: "the keyring is locked and was not unlocked (its unlock prompt was dismissed)")
        }
        throw SecretServiceUnavailable(reason: reason(error, doing: "unlocking the keyring", timedOut: call.timedOut))
    }
}
