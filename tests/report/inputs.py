#!/usr/bin/env python3
"""inputs.py KIND OUT - result directories that gdr-report must handle,
made from the lab example (results/examples/lab):

  hostile  every string a document or manifest carries planted with markup
           and script: "<script>", '"onload=', "</svg>", a 10 kB line
  newer    one document of schema gdrbench.result/2 among good ones
  corrupt  one truncated JSON file among good ones
  unclean  rows with the limits issue's optional fields: limit, pct_of_limit,
           clean (false on one row)
"""
import json
import os
import shutil
import sys

HOSTILE = ['<script>document.title="pwned";window.pwned=1</script>',
           '"onload="window.pwned=1" x="', "</svg><script>window.pwned=1</script>",
           "<img src=x onerror=\"window.pwned=1\">"]
LONG = "L" * 10240


def copy_lab(top, out, names=None):
    src = os.path.join(top, "results", "examples", "lab")
    os.makedirs(out, exist_ok=True)
    for n in sorted(os.listdir(src)):
        if n.endswith(".json") and (names is None or n in names or n == "manifest.json"):
            shutil.copy(os.path.join(src, n), out)


def edit(path, fn):
    with open(path) as f:
        d = json.load(f)
    fn(d)
    with open(path, "w") as f:
        json.dump(d, f)


def hostile(top, out):
    names = ["write_bw.H-H.na.client.json", "write_bw.H-D.on.client.json",
             "write_bw.H-D.off.client.json", "read_lat.H-H.na.client.json"]
    copy_lab(top, out, names)

    def doc(d):
        for i, e in enumerate(("client", "server")):
            d["ends"][e]["host"] = HOSTILE[i]
            d["ends"][e]["device"] = "rxe0" + HOSTILE[2][:40]
            d["ends"][e]["registration_note"] = LONG
            if d["ends"][e].get("cuda_name"):
                d["ends"][e]["cuda_name"] = "cudasim " + HOSTILE[3][:100]
        d["command_line"] = d["command_line"] + HOSTILE + [LONG]
        d["tool"]["version"] = HOSTILE[1][:60]
    for n in names:
        edit(os.path.join(out, n), doc)

    def manifest(m):
        m["run_id"] = "nightly-" + HOSTILE[0]
        m["command_line"] = m["command_line"] + HOSTILE + [LONG]
        m["hosts"] = {"client": HOSTILE[0], "server": HOSTILE[1], "server_addr": HOSTILE[2]}
        m["runs"] = [r for r in m["runs"] if r["files"]["client"] in names]
        m["runs"][0]["reason"] = HOSTILE[3] + LONG
        m["runs"][0]["status"] = "failed"
    edit(os.path.join(out, "manifest.json"), manifest)


def newer(top, out):
    copy_lab(top, out)
    edit(os.path.join(out, "read_lat.H-H.na.client.json"),
         lambda d: d.update(schema_version="gdrbench.result/2"))


def corrupt(top, out):
    copy_lab(top, out)
    p = os.path.join(out, "write_bw.D-D.on.client.json")
    with open(p) as f:
        text = f.read()
    with open(p, "w") as f:
        f.write(text[:len(text) // 2])


def unclean(top, out):
    copy_lab(top, out)

    def rows(d):
        rate = d["ends"]["client"]["speed_bps"] / 8
        for i, r in enumerate(d["results"]):
            if "bw_avg_bytes_per_s" in r:
                r["limit"] = {"bytes_per_s": rate * 0.95, "bound_by": "port"}
                r["pct_of_limit"] = 100 * r["bw_avg_bytes_per_s"] / (rate * 0.95)
            r["clean"] = i != 1
    for n in os.listdir(out):
        if n.endswith(".json") and n != "manifest.json":
            edit(os.path.join(out, n), rows)


if __name__ == "__main__":
    kind, out = sys.argv[1], sys.argv[2]
    top = os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__), "..", ".."))
    {"hostile": hostile, "newer": newer, "corrupt": corrupt, "unclean": unclean}[kind](top, out)
