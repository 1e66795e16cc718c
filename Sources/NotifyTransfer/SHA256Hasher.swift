import CCrypto
import Glibc

/// The SHA-256 of a download's bytes, fed as they are written (OpenSSL's
/// EVP digest, which uses the CPU's SHA extensions where it has them).
/// On the engine's thread only.
final class SHA256Hasher {
    private let context: OpaquePointer

    /// libcrypto, loaded (`dlopen`) once, at the first hash.
    private static let cryptoReady: Bool = notifyd_crypto_load() == 1

    /// A digest of nothing yet.
    ///
    /// - Throws: ``TransferFault``: failed when libcrypto cannot be loaded
    ///   (not installed), else worth a retry when OpenSSL cannot start one.
    init() throws(TransferFault) {
        guard Self.cryptoReady else {
            throw .failed(notifyd_crypto_load_error().map { String(cString: $0) } ?? "libcrypto could not be loaded")
        }
        context = try TransferCall.made(EVP_MD_CTX_new(), "a SHA-256 context")
        // Thrown from here on, the hasher is whole: deinit frees the context.
        try TransferCall.crypto(EVP_DigestInit_ex(context, EVP_sha256(), nil), "starting a SHA-256")
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `bytes` to the digest.
    func update(_ bytes: UnsafeRawBufferPointer) throws(TransferFault) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        try TransferCall.crypto(EVP_DigestUpdate(context, base, bytes.count), "hashing the download")
    }

    /// Adds the first `length` bytes of the file open at `descriptor` (read
    /// with `pread`, leaving its offset alone): the part kept from an earlier attempt.
    func update(file descriptor: Int32, length: UInt64) throws(TransferFault) {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset: UInt64 = 0
        while offset < length {
            let wanted = Int(min(UInt64(chunk), length - offset))
            let count = try TransferCall.system("the partial file could not be read") {
                pread(descriptor, buffer.baseAddress, wanted, off_t(offset))
            }
            guard count > 0 else { throw .failed("the partial file is shorter than it was a moment ago") }
            try update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            offset += UInt64(count)
        }
    }

    /// The digest, in lowercase hex; the hasher is spent afterwards.
    func finish() throws(TransferFault) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        try TransferCall.crypto(EVP_DigestFinal_ex(context, &digest, &length), "finishing the SHA-256")
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in digest.prefix(Int(length)) {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
