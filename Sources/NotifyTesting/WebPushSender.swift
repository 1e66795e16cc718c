import Foundation
import NotifyTestingCore

/// A real Web Push application server: `pywebpush` from PyPI (RFC 8291
/// `aes128gcm` encryption and RFC 8292 VAPID), with `http_ece` for the
/// app's side, in the Python environment `scripts/test` makes
/// (`.build/test-python`, with Debian's python3-dbus and python3-gi
/// visible in it).
public enum WebPushSender {
    /// The environment's interpreter; a ``TestFailure`` saying how to make
    /// it when it is missing (a test never passes without its sender).
    public static func python() throws -> String {
        let path = Executables.repositoryRoot().appendingPathComponent(".build/test-python/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TestFailure(
                "\(path) is missing: scripts/test installs pywebpush and http-ece there (notifyd_test_python in scripts/deps.sh)")
        }
        return path
    }

    /// An app's subscription keys (as a browser or a connector makes them):
    /// the P-256 key pair and the 16-byte auth secret, in `directory`.
    public struct Subscription: Sendable {
        /// `keys.json`: `private_pem`, `p256dh` and `auth` (base64url).
        public let keysPath: String
        /// The application server's VAPID key, PEM.
        public let vapidPath: String
        /// The VAPID public key, 87 characters of base64url: what the app
        /// passes to `Register` as `vapid`.
        public let vapidPublicKey: String
    }

    /// Makes the keys of a subscription and of its application server.
    public static func makeSubscription(in directory: URL) throws -> Subscription {
        let keys = directory.appendingPathComponent("keys.json").path
        let vapid = directory.appendingPathComponent("vapid.pem").path
        let program = """
            import base64, json, os, sys
            from cryptography.hazmat.primitives import serialization
            from cryptography.hazmat.primitives.asymmetric import ec
            def b64(data): return base64.urlsafe_b64encode(data).rstrip(b'=').decode()
            def point(key): return key.public_key().public_bytes(
                serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
            app = ec.generate_private_key(ec.SECP256R1())
            pem = app.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()).decode()
            with open(sys.argv[1], 'w') as f:
                json.dump({'private_pem': pem, 'p256dh': b64(point(app)), 'auth': b64(os.urandom(16))}, f)
            server = ec.generate_private_key(ec.SECP256R1())
            with open(sys.argv[2], 'wb') as f:
                f.write(server.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                             serialization.NoEncryption()))
            print(b64(point(server)))
            """
        let result = try runProcess(try python(), ["-c", program, keys, vapid])
        guard result.status == 0 else { throw TestFailure("cannot make Web Push keys: \(result.stderr)") }
        return Subscription(
            keysPath: keys, vapidPath: vapid, vapidPublicKey: result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Encrypts `plaintext` for `subscription` and POSTs it to `endpoint`
    /// with VAPID, as pywebpush does; returns the HTTP status.
    public static func send(_ plaintext: [UInt8], to endpoint: String, for subscription: Subscription) throws -> Int {
        let program = """
            import json, sys
            from urllib.parse import urlsplit
            from py_vapid import Vapid
            from pywebpush import WebPusher
            keys = json.load(open(sys.argv[1]))
            endpoint, data = sys.argv[3], bytes.fromhex(sys.argv[4])
            origin = '{0.scheme}://{0.netloc}'.format(urlsplit(endpoint))
            headers = Vapid.from_file(sys.argv[2]).sign({'sub': 'mailto:push-test@example.org', 'aud': origin})
            subscription = {'endpoint': endpoint, 'keys': {'p256dh': keys['p256dh'], 'auth': keys['auth']}}
            response = WebPusher(subscription).send(data, headers=headers, ttl=60, content_encoding='aes128gcm', timeout=30)
            print(response.status_code)
            """
        let hex = plaintext.map { String(format: "%02x", $0) }.joined()
        let result = try runProcess(try python(), ["-c", program, subscription.keysPath, subscription.vapidPath, endpoint, hex])
        guard result.status == 0, let status = Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("pywebpush failed: \(result.stdout) \(result.stderr)")
        }
        return status
    }
}
