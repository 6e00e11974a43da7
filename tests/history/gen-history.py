#!/usr/bin/env python3
"""gen-history.py - write N nights of synthetic sweep runs for gdr-history tests.

Each night is a run directory (manifest.json + client result documents) made
from a template sweep (default results/examples/lab): every value is the
template's, times a performance factor p (bandwidth * p, latency / p; p < 1
is worse) made of Gaussian noise and the planted effects:
  --step NIGHT:PCT      from NIGHT on, p *= 1 - PCT/100 (a regression for PCT > 0)
  --outlier NIGHT:PCT   only on NIGHT
  --drift NIGHT:PCT     from NIGHT on, PCT worse per night, cumulative
  --fail NIGHT          the first run of NIGHT fails (manifest status failed)
  --dirty NIGHT:PCT     every row of NIGHT is not clean (clean: false, a
                        retransmission counter moved at both ends) and PCT worse
  --clean               every other row says clean: true (without it rows have
                        no clean field: unknown, as in documents before the counters)
  --limit-pct P         bandwidth rows get a limit (fixed per size: the
                        template's bandwidth / P %) and their pct_of_limit
  --matrix              the full matrix: send_bw too (from write_bw's documents)
                        and 23 sizes, 2 B .. 8 MiB (from the template's rows)
Nights are numbered from 1 and dated START + night - 1 days, 02:30 UTC; their
run ids are night-NNN. Deterministic for a given --seed.
"""
import argparse
import copy
import datetime
import json
import os
import random
import sys


def night_spec(text):
    night, _, pct = text.partition(":")
    return int(night), float(pct or 0)


def full_matrix(runs, docs):
    """Add send_bw (write_bw's documents renamed) and give every document
    the sizes 2 B .. 8 MiB, each row scaled from the template row nearest in
    size (bandwidth and latency grow with the size, roughly)."""
    for r in list(runs):
        if r["tool"] == "write_bw":
            s = json.loads(json.dumps(r))
            s["tool"] = "send_bw"
            s["name"] = r["name"].replace("write_bw", "send_bw")
            for k in ("client", "server", "client_log", "server_log"):
                if s["files"].get(k):
                    s["files"][k] = s["files"][k].replace("write_bw", "send_bw")
            d = copy.deepcopy(docs[r["name"]])
            d["test"], d["verb"] = "send_bw", "RDMA send"
            d["tool"]["binary"] = "gdr_send_bw"
            runs.append(s)
            docs[s["name"]] = d
    sizes = [2 << i for i in range(23)]
    for d in docs.values():
        rows = d["results"]
        new = []
        for size in sizes:
            near = min(rows, key=lambda r: abs(r["size"].bit_length() - size.bit_length()))
            row = copy.deepcopy(near)
            f = size / near["size"]
            row["size"], row["bytes"] = size, size * row["iterations"]
            if d["metric"] == "latency":
                for key in row["latency_s"]:
                    if key != "count":
                        row["latency_s"][key] *= f ** 0.5
            else:
                g = min(f, 1.0) ** 0.8      # small messages: lower bandwidth
                row["bw_avg_bytes_per_s"] *= g
                row["bw_peak_bytes_per_s"] *= g
                row["msg_rate_per_s"] *= g / f
            new.append(row)
        d["results"] = new
        d["parameters"]["sizes"] = sizes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--template", required=True, help="a sweep run directory")
    ap.add_argument("--out", required=True)
    ap.add_argument("--nights", type=int, default=60)
    ap.add_argument("--first", type=int, default=1, help="first night to write")
    ap.add_argument("--docs", type=int, default=0, help="use the first N client documents")
    ap.add_argument("--noise", type=float, default=1.0, help="night-to-night spread, %% (1)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", default="2026-01-01")
    ap.add_argument("--step", type=night_spec, action="append", default=[])
    ap.add_argument("--outlier", type=night_spec, action="append", default=[])
    ap.add_argument("--drift", type=night_spec)
    ap.add_argument("--fail", type=int, action="append", default=[])
    ap.add_argument("--matrix", action="store_true")
    ap.add_argument("--dirty", type=night_spec, action="append", default=[])
    ap.add_argument("--clean", action="store_true")
    ap.add_argument("--limit-pct", type=float)
    a = ap.parse_args()

    with open(os.path.join(a.template, "manifest.json")) as f:
        manifest = json.load(f)
    runs = [r for r in manifest["runs"] if r["status"] == "ok" and r["files"]["client"]]
    if a.docs:
        runs = runs[:a.docs]
    docs = {}
    for r in runs:
        with open(os.path.join(a.template, r["files"]["client"])) as f:
            docs[r["name"]] = json.load(f)
    if a.matrix:
        full_matrix(runs, docs)
    rng = random.Random(a.seed)
    start = datetime.datetime.strptime(a.start, "%Y-%m-%d").replace(hour=2, minute=30)
    for night in range(1, a.nights + 1):
        # Draw every night's noise, written or not, so --first continues a history.
        noise = {(n, i): rng.gauss(0, a.noise / 100)
                 for n in docs for i in range(len(docs[n]["results"]))}
        if night < a.first:
            continue
        planted = 1.0
        for n, pct in a.step:
            if night >= n:
                planted *= 1 - pct / 100
        for n, pct in a.outlier:
            if night == n:
                planted *= 1 - pct / 100
        if a.drift and night >= a.drift[0]:
            planted *= 1 - a.drift[1] / 100 * (night - a.drift[0] + 1)
        dirty = False
        for n, pct in a.dirty:
            if night == n:
                planted *= 1 - pct / 100
                dirty = True
        date = start + datetime.timedelta(days=night - 1)
        stamp = date.strftime("%Y-%m-%dT%H:%M:%SZ")
        out = os.path.join(a.out, "night-%03d" % night)
        os.makedirs(out, exist_ok=True)
        m = copy.deepcopy(manifest)
        m.update(run_id="night-%03d" % night, date=stamp, end_date=stamp,
                 git_version="synthetic-%d" % (1 + night // 30))
        m["runs"] = []
        for k, r in enumerate(runs):
            r = copy.deepcopy(r)
            r["index"] = k + 1
            if k == 0 and night in a.fail:
                r.update(status="failed", reason="synthetic failure", files=dict(
                    r["files"], client=None, server=None))
            else:
                d = copy.deepcopy(docs[r["name"]])
                d["start_time"] = d["end_time"] = stamp
                d["tool"]["version"] = m["git_version"]
                for i, row in enumerate(d["results"]):
                    p = planted * (1 + noise[(r["name"], i)])
                    if d["metric"] == "latency":
                        for key in row["latency_s"]:
                            if key != "count":
                                row["latency_s"][key] /= p
                    else:
                        limit = row["bw_avg_bytes_per_s"] * 100 / a.limit_pct if a.limit_pct else 0
                        row["bw_avg_bytes_per_s"] *= p
                        row["bw_peak_bytes_per_s"] *= p
                        row["msg_rate_per_s"] *= p
                        if limit:
                            row["limit"] = {"bytes_per_s": limit, "bound_by": "port"}
                            row["pct_of_limit"] = 100 * row["bw_avg_bytes_per_s"] / limit
                    if dirty:
                        end = {"available": True, "clean": False,
                               "deltas": {"hw_counters/packet_seq_err": 12},
                               "moved": [{"name": "hw_counters/packet_seq_err",
                                          "class": "retransmission"}]}
                        row["clean"] = False
                        row["nic_counters"] = {"client": end, "server": end}
                    elif a.clean:
                        row["clean"] = True
                with open(os.path.join(out, r["files"]["client"]), "w") as f:
                    json.dump(d, f, indent=1)
            m["runs"].append(r)
        m["planned"] = len(m["runs"])
        m["failed"] = sum(r["status"] != "ok" for r in m["runs"])
        m["ok"] = m["planned"] - m["failed"]
        with open(os.path.join(out, "manifest.json"), "w") as f:
            json.dump(m, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
