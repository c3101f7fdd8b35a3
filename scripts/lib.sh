# Shared by scripts/harness and scripts/test: find Swift, install what the build needs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Extra flags for the test command's debug builds (scripts/test, scripts/test-init), e.g.
# STH_SWIFT_BUILD_FLAGS="-debug-info-format none", which CI sets (.ci/run): no DWARF, a fifth less
# build time on a cold machine. Left unset locally: a build with other flags than a plain
# `swift build` rebuilds everything each time one follows the other.
read -r -a SWIFT_BUILD_FLAGS <<< "${STH_SWIFT_BUILD_FLAGS:-}"
cd "$ROOT"

if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi
command -v swift >/dev/null 2>&1 || { echo "error: swift not found (expected /opt/swift/usr/bin/swift)" >&2; exit 2; }

# GRDB (the Enforcement pack's SQLite mirror) links the system SQLite: libsqlite3-dev; the harness's
# recursive watch of a device root (`harness watch`, tamper detection) links libinotifytools:
# libinotifytools0-dev. Each is known by its header. (Participants' notify watchers call inotify(7)
# themselves: the hot path.)
ensure_packages() {
    local missing=()
    [ -f /usr/include/sqlite3.h ] || missing+=(libsqlite3-dev)
    [ -f /usr/include/inotifytools/inotifytools.h ] || missing+=(libinotifytools0-dev)
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "error: need root or sudo to install: ${missing[*]}" >&2; exit 2; }
        sudo="sudo"
    fi
    echo "installing ${missing[*]} with apt-get ..." >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || { echo "error: apt-get update failed" >&2; exit 2; }
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2 \
        || { echo "error: apt-get install ${missing[*]} failed" >&2; exit 2; }
}

# Headless Chromium for the report test (RunReportBrowserTests opens report.html in it). When
# Debian has no chromium package to install (no candidate), the test is told why and skips with
# that reason; any other failure to install stops the run — the test never passes silently.
ensure_chromium() {
    command -v chromium >/dev/null 2>&1 && return 0
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || { echo "error: need root or sudo to install chromium (the report test's browser)" >&2; exit 2; }
        sudo="sudo"
    fi
    echo "installing chromium with apt-get (the report test's headless browser; ~1.5 min) ..." >&2
    if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2; then
        export STH_CHROMIUM_UNAVAILABLE="apt-get update failed, so Debian's chromium package cannot be installed here"
        echo "warning: $STH_CHROMIUM_UNAVAILABLE; the browser test of report.html will be skipped" >&2
        return 0
    fi
    if ! apt-cache policy chromium 2>/dev/null | grep -q 'Candidate: [0-9]'; then
        export STH_CHROMIUM_UNAVAILABLE="Debian's chromium package has no install candidate on this machine (apt-cache policy chromium)"
        echo "warning: $STH_CHROMIUM_UNAVAILABLE; the browser test of report.html will be skipped" >&2
        return 0
    fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2 \
        || { echo "error: apt-get install chromium failed" >&2; exit 2; }
}

# Every start of SwiftPM or swiftc leaves an empty `TemporaryDirectory.*` (holding only the
# driver's `.keep-directory`) in $TMPDIR: swift-driver keeps it on purpose, and `swift test` alone
# leaves five. The scripts run Swift with a TMPDIR of their own, removed when they finish, so
# nothing is left in /tmp. The test processes get it too: their temp files go with it.
use_private_tmpdir() {
    SWIFT_TMPDIR="$(mktemp -d "${TMPDIR:-/tmp}/sth-swift.XXXXXX")"
    trap 'rm -rf "$SWIFT_TMPDIR"' EXIT
    export TMPDIR="$SWIFT_TMPDIR/"
}

# One build of this checkout at a time: SwiftPM refuses a second build of the same .build ("database
# is locked") instead of waiting, so `scripts/harness watch` in a second terminal failed while the
# first terminal's `scripts/harness run` was building. Each script takes this lock around its build
# (fd 9, closed again before the harness runs) and waits its turn, at most an hour.
build_lock() {
    mkdir -p "$ROOT/.build"
    exec 9>"$ROOT/.build/.scripts-build.lock"
    if ! flock -n 9; then
        echo "waiting for another build of this checkout to finish ..." >&2
        flock -w 3600 9 || { echo "error: another build of this checkout held .build/.scripts-build.lock for an hour" >&2; exit 2; }
    fi
}
build_unlock() { exec 9>&-; }

# The release build (scripts/harness; scripts/findings asks it for the bin path). Beside the flags
# explained in scripts/harness, the C++ runtime, SQLite and libinotifytools are linked statically
# where their archives are installed: ld.so no longer maps libstdc++.so and applies its ~5,200
# relocations at every stand-in start (~0.4-0.7 ms of a server's start, benchmarks/README.md). A
# directory searched first (-L applies to every -l) holds links to the archives, so the `-lstdc++`
# of Swift's static-stdlib-args.lnk and the autolinked `-lsqlite3` and `-linotifytools` find
# them; a missing archive leaves that library shared, as before.
release_build_command() {
    local dir="$ROOT/.build/static-libs" cc lib path
    mkdir -p "$dir"
    cc="$(dirname "$(command -v swift)")/clang"
    [ -x "$cc" ] || cc="$(command -v cc || true)"
    for lib in libstdc++.a libsqlite3.a libinotifytools.a; do
        path=""
        [ -n "$cc" ] && path="$("$cc" -print-file-name="$lib" 2>/dev/null || true)"
        if [ -n "$path" ] && [ "$path" != "$lib" ] && [ -f "$path" ]; then ln -sfn "$path" "$dir/$lib"; else rm -f "$dir/$lib"; fi
    done
    BUILD=(swift build -c release --static-swift-stdlib -Xlinker -no-pie -Xlinker --no-export-dynamic -Xlinker "-L$dir")
}

# A build, made once more if it failed only because a dependency imported one of this package's
# Apple-named modules: swift-argument-parser's Mutex uses os_unfair_lock `#if canImport(os)`,
# swift-property-based (the tests') has UIColor generators `#if canImport(UIKit)`. When one is
# compiled again (a build with other flags into the same .build: the tests after a plain build)
# after the emulated iOS's modules were built there, it imports ours and fails with "missing
# required module 'CSystemShims'". A cold build compiles them first and never sees ours. The
# Apple-named modules are removed (built again from their sources), those dependencies built
# first, on their own (as a cold build does), and then the build made again.
swift_build() {
    local log
    log="$(mktemp "${TMPDIR:-/tmp}/sth-build.XXXXXX")"
    if "$@" 2>&1 | tee "$log"; then rm -f "$log"; return 0; fi
    if grep -q "missing required module 'CSystemShims'" "$log"; then
        rm -f "$log"
        local bin
        bin="$("$@" --show-bin-path)"
        local m apple=(os OSLog UIKit FamilyControls ManagedSettings ManagedSettingsUI DeviceActivity UserNotifications)
        echo "note: a dependency compiled again imported one of this package's Apple-named modules (${apple[*]}): removed from $bin/Modules; building again" >&2
        for m in "${apple[@]}"; do rm -f "$bin/Modules/$m".*; done
        # The same build, for one target: without --build-tests and --product.
        local a skip=0 alone=()
        for a in "$@"; do
            if ((skip)); then skip=0; continue; fi
            case "$a" in --build-tests) ;; --product) skip=1 ;; --product=*) ;; *) alone+=("$a") ;; esac
        done
        for m in ArgumentParser PropertyBased; do "${alone[@]}" --target "$m" >/dev/null 2>&1 || true; done
        "$@"
        return
    fi
    rm -f "$log"
    return 1
}
