#!/bin/sh
# sim-agents.sh [NODES] [K] - gdr-cluster in agent mode on NODES (default
# 256) simulated nodes, all on this machine: the fake srun of
# tests/cluster/fake-launch runs one agent process per node in one "job
# step", the fake benchmark's ends meet through FAKE_MEET as the real ones
# do through their control channel, and one node (n77, or the last node
# when fewer) is planted at half speed. random:K pairing (default 8), write_bw
# H-H, both directions. Checks: every run recorded ok, the planted node the
# one suspect, confirmed by its serial retest, exit 1; prints the wall time
# of gdr-cluster and of its agent step. Not part of make check (a couple of
# minutes of both cores); docs/cluster.md has the result.
# From the build directory: sh tests/cluster/sim-agents.sh [256 [8]]
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${top_builddir:-$PWD}
core=$build/tools/gdr-cluster-core
[ -x "$core" ] || { echo "sim-agents: $core not built (run from the build directory)" >&2; exit 3; }
export GDR_JSON="$build/tools/gdr-json"
n=${1:-256} k=${2:-8}
bad=n77
[ "$n" -ge 77 ] || bad=n$n
T=$(mktemp -d "${TMPDIR:-/tmp}/gdr-cluster-sim.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
mkdir -p "$T/bin" "$T/path" "$T/state" "$T/meet"
for t in write_bw read_lat send_bw; do ln -s "$here/fake-bench" "$T/bin/gdr_$t"; done
for c in srun ssh scontrol getent; do ln -s "$here/fake-launch" "$T/path/$c"; done
printf '%s * * 0.5\n* %s * 0.5\n' "$bad" "$bad" >"$T/table"
nodes=$(seq 1 "$n" | sed 's/^/n/' | paste -sd, -)
start=$(date +%s)
# Every end is a shell script here, and hundreds wait for their partners at
# once on two cores: the ends look for each other once a second, and the
# deadlines are long (no node is dead; a late partner must not fail).
PATH=$T/path:$PATH FAKE_STATE=$T/state FAKE_MEET=$T/meet FAKE_MEET_POLL=1 FAKE_TABLE=$T/table \
    SLURM_JOB_NODELIST=$nodes SLURM_JOB_ID=1 \
    sh "$src/scripts/gdr-cluster" --bindir="$T/bin" --core="$core" --remote-tmp="$T/remote" \
    --launch=agents --pairing=random:"$k" --seed=1 --placements=H-H --timeout=300 \
    --run-timeout=600 --out="$T/out" 2>"$T/err"
rc=$?
took=$(( $(date +%s) - start ))
get() { "$GDR_JSON" get "$@" 2>/dev/null; }
m=$T/out/manifest.json s=$T/out/suspects.json
agent_s=$(sed -n 's/.*\[agents\] .*elapsed \([0-9:]*\).*/\1/p' "$T/err" | tail -1)
echo "sim-agents: $n nodes, random:$k: exit $rc in $took s (agent step: last progress at $agent_s)"
echo "sim-agents: runs $(get "$m" ok) ok, $(get "$m" failed) failed, $(get "$m" missing) missing of $(get "$m" planned)"
echo "sim-agents: suspects $(get "$s" summary.suspects): $(get "$s" 'suspects[0].kind') $(get "$s" 'suspects[0].nodes[0]') $(get "$s" 'suspects[0].status')"
ok=yes
[ "$rc" = 1 ] || ok=no
[ "$(get "$m" ok)" = "$(get "$m" planned)" ] || ok=no
[ "$(get "$s" summary.suspects)" = 1 ] || ok=no
[ "$(get "$s" 'suspects[0].nodes[0]')/$(get "$s" 'suspects[0].status')" = "$bad/confirmed" ] || ok=no
if [ $ok = yes ]; then
    echo "sim-agents: PASS: $bad confirmed, every run recorded"
    exit 0
fi
tail -20 "$T/err" >&2
echo "sim-agents: FAIL" >&2
exit 1
