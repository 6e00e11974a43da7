# shellcheck shell=sh
# Shared helpers for the gdr_doctor shell tests (sourced, not a test).
# Exit codes of a test: 0 pass, 1 fail, 77 skip.
here=$(cd "$(dirname "$0")" && pwd)
# The captured trees: the source tree's (git checkout), else the build
# tree's (a build from the tarball unpacks tests/fixtures/doctor-fixtures.tar
# there before the tests run: doctor/local.am), else unpacked here.
fixtures=$here/../fixtures
if [ ! -d "$fixtures/pix/sys" ]; then
	if [ -d "${top_builddir:-.}/tests/fixtures/pix/sys" ]; then
		fixtures=${top_builddir:-.}/tests/fixtures
	elif [ -f "$here/../fixtures/doctor-fixtures.tar" ]; then
		fx_tmp=$(mktemp -d "${TMPDIR:-/tmp}/gdr-fixtures.XXXXXX") || exit 99
		trap 'rm -rf "$fx_tmp"' EXIT
		(cd "$fx_tmp" && tar -xf "$here/../fixtures/doctor-fixtures.tar") || exit 99
		fixtures=$fx_tmp
	else
		echo "ERROR: no fixture trees (tests/fixtures/pix or doctor-fixtures.tar)"
		exit 99
	fi
fi
doctor=${GDR_DOCTOR:-./doctor/gdr_doctor}
unset NCCL_NET_GDR_LEVEL NCCL_IB_GDR_LEVEL
if [ ! -x "$doctor" ]; then
	echo "SKIP: $doctor not built (set GDR_DOCTOR)"
	exit 77
fi
failures=0
out=
rc=0

# run FIXTURE [ARGS...]: run the doctor on a captured tree; sets $out and $rc.
run() {
	fx=$1
	shift
	out=$("$doctor" --sysfs-root="$fixtures/$fx/sys" --procfs-root="$fixtures/$fx/proc" "$@" 2>&1)
	rc=$?
}

fail() {
	echo "FAIL: $*"
	printf '%s\n' "$out" | sed 's/^/    | /'
	failures=$((failures + 1))
}

# expect_rc CODE WHAT
expect_rc() {
	[ "$rc" = "$1" ] || fail "$2: exit $rc, expected $1"
}

# expect_line ERE WHAT: some output line matches
expect_line() {
	printf '%s\n' "$out" | grep -Eq -- "$1" || fail "$2: no line matching /$1/"
}

# expect_no_line ERE WHAT
expect_no_line() {
	printf '%s\n' "$out" | grep -Eq -- "$1" && fail "$2: unexpected line matching /$1/"
	return 0
}

# expect_json STRING WHAT: the whitespace-free JSON document contains STRING
expect_json() {
	printf '%s' "$out" | tr -d ' \t\n' | grep -Fq -- "$1" || fail "$2: JSON lacks $1"
}

finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$failures failure(s)"
		exit 1
	fi
	echo "all passed"
	exit 0
}
