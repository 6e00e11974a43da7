# shellcheck shell=sh disable=SC2154 # out, PYTHON and the helpers are host-host.test's
# Sourced by host-host.test after its lab run (ci/rxe-lab --numa: NUMA node
# 0 = CPU 0, node 1 = CPU 1, rxe2 on a PCI NIC on node 1;
# placement-inner.sh ran the cases). From each run's JSON: by default both
# ends bind to node 1 (memory policy, the buffer and a staged end's bounce
# ring read back on node 1) and, with one CPU there, their loops are not
# pinned (no room: loop_cpu_why says so); --numa=0 puts them on node 0;
# --cpu=0 pins the loop as asked; --no-bind records that nothing was
# applied; a latency run's clock record (the guest's clocksource, the
# reason for its choice); and the bad --cpu/--numa cases exit 2 with one
# line naming the option. Then the cost of the default placement
# (placement-cost-inner.sh): no path slower than under --no-bind.
for r in default numa0 nobind lat lat_numa0 lat_cpu0 staged; do
    for side in client server; do
        [ "$(cat "$out/$r.$side.rc" 2>/dev/null)" = 0 ] ||
            { cat "$out/$r.$side.out" >&2; fail "$r: the $side exited $(cat "$out/$r.$side.rc" 2>/dev/null)"; }
    done
    check_result --role client --pair "$out/$r.server.json" "$out/$r.client.json"
done

"$PYTHON" - "$out" <<'PY' || fail "placement not as expected (above)"
import json, sys
out = sys.argv[1]
def ends(run):
    d = json.load(open(f"{out}/{run}.client.json"))
    return d, d["ends"]["client"]["affinity"], d["ends"]["server"]["affinity"]
bad = []
def expect(run, end, a, **want):
    for k, v in want.items():
        if a.get(k) != v:
            bad.append(f"{run} {end}: affinity.{k} = {a.get(k)!r}, expected {v!r} ({a})")
def no_room(run, end, a, cpus):
    if a.get("loop_cpu") != -1 or not a.get("loop_cpu_why", "").startswith(f"not pinned, no room: {cpus}"):
        bad.append(f"{run} {end}: pinned, or no reason: {a}")
for run in ("default", "lat", "staged"):
    d, c, s = ends(run)
    for end, a in (("client", c), ("server", s)):
        expect(run, end, a, requested="nic", binding="applied", numa="preferred",
               nic_numa_node=1, mem_node=1, cpus_allowed="1", nic_cpus="1")
        no_room(run, end, a, "1 CPU,")
        if not (run == "staged" and end == "client"):
            expect(run, end, a, buffer_numa_node=1, ring_numa_node=-1)
d, c, s = ends("staged")
expect("staged", "client", c, buffer_numa_node=-1, ring_numa_node=1)
for run in ("numa0", "lat_numa0"):
    d, c, s = ends(run)
    for end, a in (("client", c), ("server", s)):
        expect(run, end, a, requested="numa", binding="applied", numa="preferred",
               nic_numa_node=1, mem_node=0, cpus_allowed="0", buffer_numa_node=0)
        no_room(run, end, a, "1 CPU,")
d, c, s = ends("lat_cpu0")
for end, a in (("client", c), ("server", s)):
    expect("lat_cpu0", end, a, requested="cpu", binding="applied", loop_cpu=0, cpus_allowed="0",
           loop_cpu_why="--cpu: pinned as asked")
d, c, s = ends("nobind")
for end, a in (("client", c), ("server", s)):
    expect("nobind", end, a, requested="none", binding="off", numa="default", mem_node=-1,
           loop_cpu=-1, cpus_allowed="0-1", nic_numa_node=1, loop_cpu_why="--no-bind: not pinned")
# The latency clock: pinned only under --cpu; the guest's clocksource and
# why the clock is the one it is (TCG hides the invariant TSC: monotonic_raw).
for run, pinned in (("lat", False), ("lat_numa0", False), ("lat_cpu0", True)):
    d = json.load(open(f"{out}/{run}.client.json"))
    clk = d.get("clock", {})
    if not (clk.get("pinned") is pinned and clk.get("kernel_clocksource") and clk.get("reason")
            and clk.get("dropped_samples") == 0):
        bad.append(f"{run}: clock {clk}")
    for r in d["results"]:
        if r["latency_s"]["count"] + r["latency_s"]["dropped"] != r["iterations"]:
            bad.append(f"{run}: samples {r['latency_s']} for {r['iterations']} iterations")
# GID facts of the path: rxe2's IPv4 RoCEv2 GID on eth0, with a GRH.
d = json.load(open(f"{out}/default.client.json"))
for end in ("client", "server"):
    e = d["ends"][end]
    got = (e["gid"], e["gid_type"], e["gid_family"], e["gid_netdev"], e["gid_vlan"], e["grh"])
    if got != ("::ffff:198.18.2.1", "RoCEv2", "ipv4", "eth0", -1, True):
        bad.append(f"default {end}: GID facts {got}")
    if d["parameters"].get("qp_timeout") != 20 or d["parameters"].get("retry_count") != 7:
        bad.append(f"parameters: qp_timeout/retry_count {d['parameters']}")
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# Bad input: exit 2, one line naming the option.
expect_bad() {   # NAME MESSAGE
    rc=$(cat "$out/$1.rc") lines=$(grep -c . "$out/$1.out")
    if [ "$rc" != 2 ] || [ "$lines" != 1 ] || ! grep -qF "$2" "$out/$1.out"; then
        fail "$1: exit $rc, $lines lines: $(cat "$out/$1.out") (expected 2, one line with '$2')"
    fi
}
expect_bad bad_cpu "gdr_write_bw: --cpu 5: CPU 5 is not one this process may use (0-1)"
expect_bad bad_numa "gdr_write_bw: --numa 3: no such NUMA node (this host has node 0-1)"
expect_bad bad_disagree "gdr_write_bw: --cpu 0 and --numa 1 disagree: CPU 0 is on node 0"
note "placement: default on node 1 (not pinned: no room), --numa=0 on node 0, --cpu=0 pinned, --no-bind recorded, a staged ring on node 1, 3 bad inputs"

# The default placement costs no path anything against --no-bind
# (placement-cost-judge.sh says how that is judged; a path that fails its first
# batch of repeats ran a second one in the same boot).
[ -s "$out/cost.retested" ] && note "placement cost: retested after a failing first batch: $(cat "$out/cost.retested")"
sh "$top_srcdir/tests/integration/placement-cost-judge.sh" "$top_builddir/tools/gdr-json" "$out" ||
    fail "the default placement is slower than --no-bind (above)"
