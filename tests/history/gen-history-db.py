#!/usr/bin/env python3
"""gen-history-db.py - a large synthetic gdr-history database, fast.

Makes DB with NIGHTS nightly runs of one testbed and SERIES series (tests x
placements x registrations x sizes), for the dashboard benchmark
(bench-publish.sh): one real night is ingested with gdr-history (so the
file has the real schema, application id and version), then the other
runs, series and points are inserted with Python's sqlite3 in one
transaction, as gdr-history's own tables hold them. Values are Gaussian
noise (1 %) around a per-series level; a tenth of the series take a 10 %
step three quarters of the way, and every 97th night is one failed run.
Deterministic for a given --seed. Not a test: the benchmark's input.
"""
import argparse
import datetime
import os
import random
import sqlite3
import subprocess
import sys
import tempfile

TESTS = ["write_bw", "send_bw", "read_lat", "write_bw-bidir"]
PAIRS = [("host", "host", "host", "host"), ("host", "host", "cuda", "peermem"),
         ("cuda", "peermem", "host", "host"), ("cuda", "peermem", "cuda", "peermem"),
         ("host", "host", "cuda", "staged"), ("cuda", "staged", "host", "host"),
         ("cuda", "staged", "cuda", "staged")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--gdr-history", required=True)
    ap.add_argument("--template", required=True, help="a sweep run directory")
    ap.add_argument("--gen", required=True, help="gen-history.py")
    ap.add_argument("--nights", type=int, default=1000)
    ap.add_argument("--series", type=int, default=500)
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args()
    if os.path.exists(a.db):
        sys.exit("gen-history-db: %s exists" % a.db)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, a.gen, "--template", a.template, "--out", tmp,
                        "--nights", "1", "--docs", "1"], check=True)
        subprocess.run([a.gdr_history, "--db", a.db, "ingest", "--testbed", "bench",
                        os.path.join(tmp, "night-001")], check=True, stdout=subprocess.DEVNULL)
    rng = random.Random(a.seed)
    con = sqlite3.connect(a.db)
    con.execute("BEGIN")
    con.execute("DELETE FROM points")
    con.execute("DELETE FROM series")
    con.execute("DELETE FROM failures")
    con.execute("DELETE FROM runs")
    start = datetime.datetime(2024, 1, 1, 2, 30)
    run_ids = []
    for n in range(1, a.nights + 1):
        date = (start + datetime.timedelta(days=n - 1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        cur = con.execute(
            "INSERT INTO runs (testbed, run_id, date, version, mode, planned, ok, failed, "
            "source, ingested) VALUES ('bench', ?, ?, ?, 'synthetic', 21, ?, ?, ?, ?)",
            ("night-%04d" % n, date, "v%d" % (1 + n // 100), 21 - (n % 97 == 0),
             int(n % 97 == 0), "/nonexistent/night-%04d" % n, date))
        run_ids.append(cur.lastrowid)
        if n % 97 == 0:
            con.execute("INSERT INTO failures (run, name, reason) VALUES (?, ?, ?)",
                        (cur.lastrowid, "write_bw.H-H.na", "synthetic failure"))
    keys = []
    sizes = [2 << i for i in range(23)]
    for size in sizes:
        for t in TESTS:
            for p in PAIRS:
                keys.append((t, p, size))
    keys = keys[:a.series]
    for t, (cp, cr, sp, sr), size in keys:
        lat = t == "read_lat"
        cur = con.execute(
            "INSERT INTO series (testbed, test, client_placement, client_registration, "
            "server_placement, server_registration, bidirectional, size, metric) VALUES "
            "('bench', ?, ?, ?, ?, ?, ?, ?, ?)",
            (t.replace("-bidir", ""), cp, cr, sp, sr, int(t.endswith("-bidir")), size,
             "latency" if lat else "bandwidth"))
        sid = cur.lastrowid
        level = (2e-6 + size / 12e9) if lat else min(size / 2e-6, 12e9)
        stepped = rng.random() < 0.1
        rows = []
        for n, rid in enumerate(run_ids, 1):
            v = level * (1 + rng.gauss(0, 0.01))
            if stepped and n >= a.nights * 3 // 4:
                v = v * 1.1 if lat else v * 0.9
            rows.append((sid, rid, v, None, 0, 0, "synthetic"))
        con.executemany("INSERT INTO points (series, run, value, spread, simulated, soft_roce, "
                        "document) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    print("gen-history-db: %s: %d nights x %d series" % (a.db, a.nights, len(keys)))


if __name__ == "__main__":
    main()
