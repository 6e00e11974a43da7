# shellcheck shell=sh
# scripts/lib.sh - the shell helpers that gdr-sweep, gdr-troubleshoot,
# gdr-cluster, gdr-plot, gdr-compare, bench-vs-perftest and ci/nightly share
# (sourced, not run).
#
# The sourcing script sets, before `. "$gdr_lib"`:
#   prog   its name, the prefix of every message ("gdr-sweep")
#   here   the absolute directory the script lives in
# and, when make install wrote them, inst_version and inst_bindir.
# It finds this file through one variable, gdr_lib (beside the script in
# the source tree; under $(pkgdatadir) when installed).
# shellcheck disable=SC2154  # prog, here, ssh_cmd, ssh_opts, inst_*: the caller's

# die TEXT: bad usage or input: one line, exit 2.
die() { echo "$prog: $*" >&2; exit 2; }
# missing TEXT: a prerequisite is missing: one line, exit 3.
missing() { echo "$prog: missing environment: $*" >&2; exit 3; }
# note TEXT: progress on stderr.
note() { echo "$prog: $*" >&2; }

# need OPTION ARGS...: OPTION has a value after it ("$@" of the option loop).
need() { [ $# -ge 2 ] || die "$1 needs a value ($prog --help)"; }

# q WORD: WORD quoted for sh (and for the remote shell of ssh). In the
# shell itself: a sed per word cost 0.1 s in the lab's emulated VM, and a
# sweep quotes dozens of words a run.
q() {
    q_rest=$1 q_done=
    while :; do
        case $q_rest in
        *\'*) q_done=$q_done${q_rest%%\'*}\'\\\'\'; q_rest=${q_rest#*\'} ;;
        *) break ;;
        esac
    done
    printf "'%s'" "$q_done$q_rest"
}
# words_q TEXT: the blank-separated words of TEXT, each quoted for sh.
words_q() { set -f; for w in $1; do printf ' %s' "$(q "$w")"; done; set +f; }
# split LIST: a comma-separated list, one item a line (empty items dropped).
split() {
    split_rest=$1,
    while [ -n "$split_rest" ]; do
        split_item=${split_rest%%,*} split_rest=${split_rest#*,}
        [ -z "$split_item" ] || printf '%s\n' "$split_item"
    done
}

# run_ssh HOST CMD...: CMD on HOST through $ssh_cmd $ssh_opts (both split
# on blanks, as the user typed them).
# shellcheck disable=SC2034
run_ssh() { rh=$1; shift; eval "set -- $ssh_cmd $ssh_opts \"\$rh\" \"\$@\""; "$@"; }

# find_gdr_json [BUILDDIR]: set gj to the gdr-json binary: $GDR_JSON, else
# BUILDDIR's, else the installed one (inst_bindir, set in an installed
# script), else the build tree's beside this script, one next to it or on
# PATH; exit 3 when there is none.
find_gdr_json() {
    if [ -n "${GDR_JSON:-}" ]; then gj=$GDR_JSON; return 0; fi
    for gj in ${1:+"$1/tools/gdr-json"} ${inst_bindir:+"$inst_bindir/gdr-json"} \
        "$here/../tools/gdr-json" "$here/gdr-json"; do
        [ -x "$gj" ] && return 0
    done
    gj=$(command -v gdr-json 2>/dev/null) ||
        missing "gdr-json not found: build it (make) or set GDR_JSON"
}

# class_of FILE PATH: the error_class at PATH in FILE (a manifest's
# "runs[3].error_class") as "KIND[ WC_STATUS][ EVENT]"; "" when null or
# absent. Needs gj.
class_of() {
    "$gj" get "$1" "$2.kind" "$2.wc_status" "$2.event" 2>/dev/null | {
        read -r kind; read -r wc; read -r event
        [ -z "$kind" ] || printf '%s' "$kind${wc:+ $wc}${event:+ $event}"
    }
}

# git_version SRCDIR: the source version a manifest records: the installed
# copy's, else GDR_GIT_VERSION (ci/rxe-lab takes it on the host and passes
# it in: inside the lab `git describe --dirty` re-reads every tracked file
# over 9p, a minute in a fresh clone, and cannot save its index), else git
# describe of SRCDIR.
git_version() {
    if [ -n "${inst_version:-}" ]; then echo "$inst_version"
    elif [ -n "${GDR_GIT_VERSION:-}" ]; then echo "$GDR_GIT_VERSION"
    else git -C "$1" describe --always --dirty 2>/dev/null || echo unknown; fi
}

# version: "PROG (gdrbench) VERSION", the installed copy's version or the
# source tree's (build-aux/git-version).
version() {
    v=${inst_version:-}
    [ -n "$v" ] || v=$(sh "$here/../build-aux/git-version" 2>/dev/null) || v=""
    echo "$prog (gdrbench) ${v:-unknown}"
}
