# shellcheck shell=bash
# Installs the Debian packages notifyd needs, only those that are missing.
# Sourced by scripts/run-notifyd and scripts/test; uses sudo when not root.

# jq builds the browser extension's manifests (browser/make-extension);
# libstrophe-dev is the XMPP push client's and libcurl4-openssl-dev the ntfy
# push client's (Sources/NotifyPush) and the background transfers'
# (Sources/NotifyTransfer); libssl-dev the transfers' SHA-256 (OpenSSL's
# libcrypto, CCrypto); libsecret-1-dev the Secret Service client's
# (Sources/NotifySecrets).
NOTIFYD_BUILD_PACKAGES=(libdbus-1-dev libnotify-dev libcanberra-dev libsqlite3-dev libstrophe-dev libcurl4-openssl-dev libssl-dev libsecret-1-dev pkg-config binutils jq)
NOTIFYD_RUN_PACKAGES=(dbus-daemon dbus-bin libnotify-bin)
# prosody, prosody-modules (mod_unified_push), openssl and patch: the private
# push server of Tests/NotifyPushTests (NotifyTesting's ProsodyServer);
# gnome-keyring: the Secret Service of Tests/NotifySecretsTests;
# nginx-light (static files with Range and ETag, WebDAV PUT, TLS with HTTP/2):
# the private web server of the transfers' tests (NotifyTesting's NginxServer).
NOTIFYD_TEST_PACKAGES=(dunst xvfb xauth aria2 curl wget python3 systemd jq sound-theme-freedesktop shellcheck util-linux mount e2fsprogs sqlite3 shared-mime-info python3-dbus xdg-dbus-proxy faketime iproute2 python3-gi libglib2.0-bin
    prosody prosody-modules openssl patch python3-venv gnome-keyring nginx-light)
# The desktops notifyd is checked on (Tests/DesktopTests, docs/DESKTOPS.md):
# six notification servers, a compositor for notify-osd, a dock, GNOME Shell
# with Dash to Dock (gjs runs its notification helper: only a Recommends of
# gnome-shell), KDE Plasma (plasmashell, kwin_x11; a GTK window of the test
# app, for the task's progress), and imagemagick for screenshots; and the download tools the
# hooks serve.
NOTIFYD_DESKTOP_PACKAGES=(xfce4-notifyd notification-daemon mate-notification-daemon lxqt-notificationd notify-osd xcompmgr x11-utils plank imagemagick xdotool adwaita-icon-theme fonts-dejavu-core
    gnome-shell gjs gnome-shell-extension-dashtodock plasma-desktop kwin-x11 gir1.2-gtk-3.0 xterm)
NOTIFYD_TOOL_PACKAGES=(transmission-daemon transmission-cli yt-dlp)
# The browsers whose downloads the extension reports (Tests/BrowserTests, headless).
NOTIFYD_BROWSER_PACKAGES=(chromium firefox-esr)
# Building the Debian package (scripts/package) and testing it in a clean
# Debian root (scripts/test-package).
NOTIFYD_PACKAGE_PACKAGES=(debhelper dpkg-dev lintian libglib2.0-dev mmdebstrap)

notifyd_install_missing() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "Installing missing packages: ${missing[*]}" >&2
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

notifyd_require_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        [ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
    fi
    command -v swift >/dev/null 2>&1 || {
        echo "Swift 6 is needed: install it from swift.org and put it on PATH." >&2
        exit 1
    }
}

# Runs the test binary that `swift build --build-tests` made in BIN_DIR
# with ARGS (swift-testing's: --filter, --skip, ...), its output in the
# regular file LOG and shown as it grows. Not through `swift test`: it
# relays the binary's output through a buffer that it drops when the
# binary exits, so a run's end, summary included, was lost whenever the
# relay fell behind (a slow reader, or a loaded machine in CI), and it still
# exited 0. Returns the binary's status, or 1 when the run never said that
# its tests passed.
notifyd_run_tests() {
    local log=$1 bin_dir=$2 status=0 guard follower
    shift 2
    : >"$log"
    # The binary runs in the foreground, so it starts with this shell's signal
    # dispositions (a background job would ignore SIGINT and SIGQUIT, and so
    # would every app the launching tests start); `tail` shows the file until
    # the guard process is stopped after it.
    sleep infinity &
    guard=$!
    tail -n +1 -f --pid="$guard" "$log" &
    follower=$!
    "$bin_dir/notifydPackageTests.xctest" --testing-library swift-testing "$@" >"$log" 2>&1 || status=$?
    kill "$guard" 2>/dev/null
    wait "$follower" 2>/dev/null || true
    if [ "$status" -eq 0 ] && ! grep -aqE 'Test run with [0-9]+ tests?( in [0-9]+ suites?)? passed' "$log"; then
        echo "the test run ended without saying that its tests passed (was it killed?): a failure" >&2
        status=1
    fi
    return "$status"
}

# A real Web Push application server for the push tests: pywebpush and
# http-ece from PyPI, in .build/test-python (python3-dbus and python3-gi of
# Debian visible in it), made once.
notifyd_test_python() {
    local venv=.build/test-python
    if ! "$venv/bin/python" -c 'import pywebpush, http_ece, dbus, gi' 2>/dev/null; then
        /usr/bin/python3 -m venv --system-site-packages "$venv"
        "$venv/bin/pip" install --quiet --disable-pip-version-check 'pywebpush>=2,<3' 'http-ece>=1.1,<2'
    fi
}
