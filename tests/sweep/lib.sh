# shellcheck shell=sh
# Shared by tests/sweep/*.test (sourced): paths, a scratch dir under /var/tmp
# (shareable with the lab), check helpers, a fake benchmark bindir.
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=$(cd "${top_srcdir:-$here/../..}" && pwd)
top_builddir=$(cd "${top_builddir:-$top_srcdir}" && pwd)
name=$(basename "$0" .test)
# shellcheck disable=SC2034 # used by the tests that source this file
sweep=$top_srcdir/scripts/gdr-sweep nightly=$top_srcdir/ci/nightly
GDR_JSON=${GDR_JSON:-$top_builddir/tools/gdr-json}
export GDR_JSON top_srcdir top_builddir
failures=0

fail() { echo "FAIL: $name: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $name: $*"; }
skip() { echo "SKIP: $name: $*"; exit 77; }
# A lab that cannot run fails in CI (CI=true) and skips elsewhere.
lab_skip() {
    [ "${CI:-}" = true ] && { echo "FAIL: $name: lab cannot run in CI: $*"; exit 1; }
    skip "$*"
}
finish() { [ "$failures" -eq 0 ] && { echo "$name: all passed"; exit 0; }; echo "$name: $failures failed"; exit 1; }

[ -x "$GDR_JSON" ] || skip "$GDR_JSON not built"
T=$(mktemp -d /var/tmp/gdr-sweep-test.XXXXXX) || { echo "FAIL: mktemp"; exit 1; }
trap 'rm -rf "$T"' EXIT INT TERM

# check NAME CMD...: pass when CMD succeeds
check() { n=$1; shift; if "$@"; then pass "$n"; else fail "$n"; fi; }
# nonempty FILE...: every FILE is there and not empty (check runs one
# command: `check N [ A ] && [ B ]` would check A alone)
nonempty() { for f; do [ -s "$f" ] || return 1; done; }
# starts TEXT PREFIX: TEXT begins with PREFIX (e.g. "$rc:$msg" "2:tool: ...")
starts() { case $1 in "$2"*) return 0 ;; esac; return 1; }
# get FILE PATH: a JSON value (strings raw)
get() { "$GDR_JSON" get "$1" "$2" 2>/dev/null; }

# manifest_complete DIR RC: the manifest exists, every planned run has an
# entry, every ok run's client (and server) JSON passes gdr-json check.
manifest_complete() {
    m=$1/manifest.json
    [ -f "$m" ] || { echo "no $m"; return 1; }
    planned=$(get "$m" planned) || { echo "manifest unreadable"; return 1; }
    k=0
    while [ $k -lt "$planned" ]; do
        st=$(get "$m" "runs[$k].status") || { echo "runs[$k] missing"; return 1; }
        if [ "$st" = ok ]; then
            for r in client server; do
                f=$1/$(get "$m" "runs[$k].files.$r")
                "$GDR_JSON" check -q "$f" || { echo "$f fails gdr-json check"; return 1; }
            done
        fi
        k=$((k + 1))
    done
}

# fake_bindir DIR: gdr_* that are tests/sweep/fake-bench
fake_bindir() {
    mkdir -p "$1"
    for t in write_bw read_bw send_bw write_lat read_lat send_lat; do
        ln -sf "$here/fake-bench" "$1/gdr_$t"
    done
    FAKE_FIXTURES=$top_srcdir/tests/results/fixtures
    export FAKE_FIXTURES
}
