/// The words a person reads for the browser's `InterruptReason`s (the
/// WebExtension `downloads` API, the same in Firefox and Chromium).
public enum DownloadFailureReason {
    static let words: [String: String] = [
        "FILE_FAILED": "File error",
        "FILE_ACCESS_DENIED": "Permission denied",
        "FILE_NO_SPACE": "Disk full",
        "FILE_NAME_TOO_LONG": "File name too long",
        "FILE_TOO_LARGE": "File too large",
        "FILE_VIRUS_INFECTED": "Virus detected",
        "FILE_TRANSIENT_ERROR": "Temporary file error",
        "FILE_BLOCKED": "Blocked",
        "FILE_SECURITY_CHECK_FAILED": "Security check failed",
        "FILE_TOO_SHORT": "File too short",
        "FILE_HASH_MISMATCH": "File damaged",
        "FILE_SAME_AS_SOURCE": "File is its own source",
        "NETWORK_FAILED": "Network failed",
        "NETWORK_TIMEOUT": "Network timed out",
        "NETWORK_DISCONNECTED": "Network disconnected",
        "NETWORK_SERVER_DOWN": "Server unavailable",
        "NETWORK_INVALID_REQUEST": "Invalid request",
        "SERVER_FAILED": "Server failed",
        "SERVER_NO_RANGE": "Server cannot resume",
        "SERVER_BAD_CONTENT": "File not found on the server",
        "SERVER_UNAUTHORIZED": "Not authorized",
        "SERVER_CERT_PROBLEM": "Certificate problem",
        "SERVER_FORBIDDEN": "Forbidden",
        "SERVER_UNREACHABLE": "Server unreachable",
        "SERVER_CONTENT_LENGTH_MISMATCH": "Download incomplete",
        "SERVER_CROSS_ORIGIN_REDIRECT": "Redirected elsewhere",
        "USER_SHUTDOWN": "Browser closed",
        "CRASH": "Browser crashed",
    ]

    /// The plain words for `reason`; an unknown reason reads as itself in
    /// lower case ("Download interrupted" when there is none).
    public static func words(for reason: String?) -> String {
        guard let reason, !reason.isEmpty else { return "Download interrupted" }
        if let known = words[reason] { return known }
        let lower = String(reason.prefix(64)).lowercased().split(separator: "_").joined(separator: " ")
        return lower.prefix(1).uppercased() + lower.dropFirst()
    }
}
