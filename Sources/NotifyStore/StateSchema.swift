/// One step of a database schema: the SQL that takes version N-1 to version N.
public struct SchemaMigration: Sendable {
    /// A few words saying what the step adds, for error messages.
    public let summary: String
    /// One or more `;`-separated SQL statements.
    public let sql: String

    /// Creates a step.
    public init(_ summary: String, sql: String) {
        self.summary = summary
        self.sql = sql
    }
}

/// The schema of the state database, versioned by `PRAGMA user_version`.
public enum StateSchema {
    /// The steps in order: schema version N is reached by applying
    /// `migrations[N - 1]`. Append new steps at the end; never edit, remove or
    /// reorder a step that has shipped.
    public static let migrations: [SchemaMigration] = [
        SchemaMigration(
            "badges",
            sql: """
                CREATE TABLE badges (
                    app_id TEXT PRIMARY KEY NOT NULL,
                    count INTEGER NOT NULL CHECK (count > 0)
                );
                """),
        SchemaMigration(
            "sessions, completion handlers and the last handler ID",
            sql: """
                CREATE TABLE sessions (
                    id TEXT PRIMARY KEY NOT NULL,
                    app_id TEXT NOT NULL,
                    events INTEGER NOT NULL CHECK (events BETWEEN 0 AND 4294967295),
                    last_event_us INTEGER NOT NULL,
                    bytes_written INTEGER NULL,
                    bytes_expected INTEGER NULL,
                    progress REAL NULL,
                    in_progress INTEGER NOT NULL CHECK (in_progress IN (0, 1)),
                    last_result TEXT NULL
                );
                CREATE TABLE handlers (
                    id INTEGER PRIMARY KEY CHECK (id <> 0),
                    session_id TEXT NOT NULL,
                    app_id TEXT NOT NULL,
                    stored_at_us INTEGER NOT NULL,
                    deadline_us INTEGER NOT NULL
                );
                CREATE INDEX handlers_by_session ON handlers (session_id);
                CREATE TABLE counters (
                    name TEXT PRIMARY KEY NOT NULL,
                    value INTEGER NOT NULL
                );
                """),
        SchemaMigration(
            "app activation history",
            sql: """
                CREATE TABLE activations (
                    id INTEGER PRIMARY KEY,
                    app_id TEXT NOT NULL,
                    at_us INTEGER NOT NULL
                );
                CREATE INDEX activations_by_app ON activations (app_id, at_us);
                """),
        SchemaMigration(
            "background fetch: schedules, running fetches and their history",
            sql: """
                CREATE TABLE fetch_schedules (
                    app_id TEXT PRIMARY KEY NOT NULL,
                    interval_s INTEGER NOT NULL CHECK (interval_s BETWEEN 0 AND 604800),
                    enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
                    last_run_us INTEGER NULL,
                    last_result TEXT NULL,
                    runs INTEGER NOT NULL CHECK (runs BETWEEN 0 AND 4294967295),
                    failures_in_a_row INTEGER NOT NULL CHECK (failures_in_a_row BETWEEN 0 AND 4294967295),
                    no_data_in_a_row INTEGER NOT NULL CHECK (no_data_in_a_row BETWEEN 0 AND 4294967295)
                );
                CREATE TABLE fetches (
                    id INTEGER PRIMARY KEY CHECK (id <> 0),
                    app_id TEXT NOT NULL,
                    trigger TEXT NOT NULL,
                    started_us INTEGER NOT NULL,
                    deadline_us INTEGER NOT NULL,
                    ended_us INTEGER NULL,
                    result TEXT NULL
                );
                CREATE INDEX fetches_by_app ON fetches (app_id, id);
                CREATE UNIQUE INDEX one_running_fetch_per_app ON fetches (app_id) WHERE result IS NULL;
                """),
        SchemaMigration(
            "UnifiedPush: registrations and the messages held for them",
            sql: """
                CREATE TABLE push_registrations (
                    token TEXT PRIMARY KEY NOT NULL CHECK (length(CAST(token AS BLOB)) BETWEEN 1 AND 100),
                    app_id TEXT NOT NULL,
                    server_key BLOB NOT NULL UNIQUE CHECK (length(server_key) = 32),
                    description TEXT NOT NULL,
                    vapid TEXT NULL,
                    connector INTEGER NOT NULL CHECK (connector IN (1, 2)),
                    endpoint TEXT NULL,
                    endpoint_expiry_us INTEGER NULL,
                    messages INTEGER NOT NULL CHECK (messages BETWEEN 0 AND 4294967295),
                    last_message_us INTEGER NULL
                );
                CREATE INDEX push_registrations_by_app ON push_registrations (app_id);
                CREATE TABLE push_messages (
                    id INTEGER PRIMARY KEY CHECK (id <> 0),
                    token TEXT NOT NULL,
                    server_id TEXT NOT NULL,
                    body BLOB NOT NULL CHECK (length(body) BETWEEN 1 AND 4096),
                    received_us INTEGER NOT NULL
                );
                CREATE INDEX push_messages_by_token ON push_messages (token, id);
                CREATE TABLE push_server (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    kind TEXT NOT NULL CHECK (kind IN ('xmpp', 'ntfy')),
                    address TEXT NOT NULL,
                    host TEXT NULL,
                    port INTEGER NULL CHECK (port BETWEEN 1 AND 65535),
                    ca_file TEXT NULL,
                    password TEXT NULL,
                    password_in_secret_service INTEGER NOT NULL DEFAULT 0 CHECK (password_in_secret_service IN (0, 1)),
                    cursor TEXT NULL
                );
                """),
        SchemaMigration(
            "Background transfers: those not yet ended and the last 100 ended",
            sql: """
                CREATE TABLE transfers (
                    id INTEGER PRIMARY KEY CHECK (id > 0),
                    app_id TEXT NOT NULL,
                    session_id TEXT NOT NULL,
                    direction TEXT NOT NULL CHECK (direction IN ('download', 'upload')),
                    url TEXT NOT NULL,
                    path TEXT NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('queued', 'waiting', 'running', 'suspended', 'completed', 'failed', 'cancelled')),
                    reason TEXT NOT NULL,
                    bytes_done INTEGER NOT NULL,
                    bytes_total INTEGER NOT NULL,
                    attempts INTEGER NOT NULL,
                    validator TEXT NULL,
                    retry_at_us INTEGER NULL,
                    last_progress_us INTEGER NOT NULL,
                    created_us INTEGER NOT NULL,
                    ended_us INTEGER NULL,
                    final_path TEXT NULL,
                    title TEXT NULL,
                    headers TEXT NULL,
                    method TEXT NOT NULL,
                    sha256 TEXT NULL,
                    allow_metered INTEGER NOT NULL,
                    discretionary INTEGER NOT NULL,
                    not_before_us INTEGER NULL,
                    overwrite INTEGER NOT NULL,
                    notify INTEGER NOT NULL,
                    sound TEXT NULL,
                    badge INTEGER NULL,
                    timeout INTEGER NULL
                );
                CREATE INDEX transfers_ended ON transfers (ended_us) WHERE ended_us IS NOT NULL;
                """),
    ]

    /// The schema version this build writes.
    public static var latestVersion: Int { migrations.count }

    /// Brings `database` up to the last of `steps`, applying each missing step
    /// and its new `user_version` in one transaction. Throws a ``StoreError``
    /// of code `.newerSchema` if the file is already past the last step.
    public static func migrate(
        _ database: SQLiteDatabase, steps: [SchemaMigration] = StateSchema.migrations
    ) throws {
        var version = try checkedVersion(of: database, steps: steps)
        while version < steps.count {
            version = try database.transaction(.immediate) {
                // Read again under the write lock, in case another
                // connection migrated in between.
                let current = try checkedVersion(of: database, steps: steps)
                guard current < steps.count else { return current }
                try apply(steps[current], version: current + 1, to: database)
                return current + 1
            }
        }
    }

    private static func apply(
        _ step: SchemaMigration, version: Int, to database: SQLiteDatabase
    ) throws {
        do {
            try database.execute(step.sql)
            try database.setUserVersion(version)
        } catch let error as StoreError {
            throw StoreError(
                code: error.code, path: error.path,
                message: "\(error.message) (While applying schema step \(version), \(step.summary).)")
        }
    }

    private static func checkedVersion(
        of database: SQLiteDatabase, steps: [SchemaMigration]
    ) throws -> Int {
        let version = try database.userVersion
        guard version <= steps.count else {
            throw StoreError(
                code: .newerSchema, path: database.path,
                message: """
                    \(database.path): state database was written by a newer notifyd \
                    (schema \(version), this build knows \(steps.count)). Run that notifyd \
                    again, or move the file aside to start with empty state.
                    """)
        }
        return version
    }
}
