#!/usr/bin/python3
"""Check gdrbench result documents: the JSON Schema, every size of the sweep
present in order, and numbers that are consistent with each other.

Usage: check_result.py --schema FILE [--role client|server] [--test NAME]
                       [--pair SERVER_JSON] [--expect-placement C:S]
                       [--expect PATH=VALUE]... RESULT...
PATH is dotted from the document's top (ends.client.relaxed_ordering,
parameters.traffic_class); VALUE is JSON (false, 32, "flush") or a bare string.
Exits 1 with one line per problem."""
import argparse
import json
import sys

import jsonschema


def direction_problems(r, where):
    """A one-way row: bandwidth is bytes / elapsed. A bidirectional row:
    each direction is, and the row is their sum (perftest's -b)."""
    out = []
    dirs = r.get("directions")
    parts = [dirs["client_to_server"], dirs["server_to_client"]] if dirs else [r]
    for d in parts:
        expect = d["bytes"] / d["elapsed_s"] if d["elapsed_s"] > 0 else 0
        if not expect > 0 or abs(expect - d["bw_avg_bytes_per_s"]) > 1e-6 * expect:
            out.append(f"{where}: bandwidth != bytes / elapsed")
    if dirs:
        for key in ("bytes", "iterations", "bw_avg_bytes_per_s", "bw_peak_bytes_per_s"):
            total = parts[0][key] + parts[1][key]
            if abs(r[key] - total) > 1e-6 * total:
                out.append(f"{where}: {key} {r[key]} is not the sum of the directions {total}")
    return out


def problems(doc, args):
    out = []
    params = doc["parameters"]
    rows = doc["results"]
    if doc["status"] != "complete":
        out.append(f"status is {doc['status']}: {doc.get('error')}")
    if args.role and doc["role"] != args.role:
        out.append(f"role {doc['role']}, expected {args.role}")
    if args.test and doc["test"] != args.test:
        out.append(f"test {doc['test']}, expected {args.test}")
    sizes = [r["size"] for r in rows]
    if sizes != params["sizes"]:
        out.append(f"sizes in results {sizes} != swept sizes {params['sizes']}")
    for end in ("client", "server"):
        if end not in doc["ends"]:
            out.append(f"ends.{end} missing")
    # Optional in the schema (older documents lack them); this version writes them.
    if "outstanding_reads" not in doc:
        out.append("outstanding_reads missing")
    pingpong = doc["test"] in ("write_lat", "send_lat")
    if pingpong != ("completion" in doc):
        out.append(f"completion {doc.get('completion')!r} in a {doc['test']} document")
    if doc["test"] == "send_lat" and doc.get("completion") != "cq":
        out.append(f"send_lat: completion {doc.get('completion')!r}, a receive is always a cq entry")
    if args.expect_placement:
        want = args.expect_placement.split(":")
        got = [doc["ends"][e]["placement"] for e in ("client", "server")]
        if got != want:
            out.append(f"placements {got}, expected {want}")
    for end, e in doc["ends"].items():
        # Optional in the schema (older documents lack them); this version writes them.
        missing = [k for k in ("relaxed_ordering", "scatter_to_cqe", "gpu_writes_ordering",
                               "gpu_writes_flush", "gpu_alloc", "dmabuf_mapping", "data_direct",
                               "gpu_c2c", "relaxed_ordering_enabled",
                               "relaxed_ordering_in_effect") if k not in e]
        if missing:
            out.append(f"ends.{end}: missing {missing}")
            continue
        # What the NIC writes into directly: GPU memory registered for RDMA.
        direct_gpu = e["placement"] == "cuda" and e["registration"] != "staged"
        if not direct_gpu and e["scatter_to_cqe"] != "not-needed":
            out.append(f"ends.{end}: scatter_to_cqe {e['scatter_to_cqe']} for a "
                       f"{e['placement']}/{e['registration']} buffer")
        if direct_gpu and e["scatter_to_cqe"] == "not-needed":
            out.append(f"ends.{end}: scatter-to-CQE left alone for a GPU receive buffer")
        if not direct_gpu and e["gpu_writes_flush"] != "not-applicable":
            out.append(f"ends.{end}: gpu_writes_flush {e['gpu_writes_flush']} without GPU RDMA")
        if direct_gpu and e["gpu_writes_flush"] == "not-applicable":
            out.append(f"ends.{end}: no write-ordering decision for a GPU RDMA buffer")
        if (e["gpu_alloc"] == "") != (e["placement"] == "host"):
            out.append(f"ends.{end}: gpu_alloc '{e['gpu_alloc']}' for a {e['placement']} buffer")
        if (e["dmabuf_mapping"] != "") != (e["registration"] == "dmabuf"):
            out.append(f"ends.{end}: dmabuf_mapping '{e['dmabuf_mapping']}' with registration "
                       f"{e['registration']}")
        if e["data_direct"] and e["registration"] != "dmabuf":
            out.append(f"ends.{end}: data_direct without a dma-buf registration")
        if e["gpu_writes_flush"] == "nic-read" and not (
                direct_gpu and (e["gpu_c2c"] or e["data_direct"])):
            out.append(f"ends.{end}: a NIC-read flush without a C2C or Data Direct GPU "
                       f"the NIC writes")
        if e["data_direct"] and e["gpu_writes_flush"] != "nic-read":
            out.append(f"ends.{end}: Data Direct without the NIC-read flush")
        # In effect: never when not asked or forbidden; unknown through Data Direct.
        ro = e["relaxed_ordering_in_effect"]
        if (not e["relaxed_ordering"] or e["relaxed_ordering_enabled"] is False) and ro is not False:
            out.append(f"ends.{end}: relaxed_ordering_in_effect {ro} where it cannot be")
        elif e["data_direct"] and e["relaxed_ordering"] and ro is not None:
            out.append(f"ends.{end}: relaxed_ordering_in_effect {ro} through Data Direct")
    for spec in args.expect or []:
        path, _, want = spec.partition("=")
        try:
            want = json.loads(want)
        except ValueError:
            pass
        got = doc
        for key in path.split("."):
            got = got.get(key) if isinstance(got, dict) else None
        if got != want:
            out.append(f"{path} is {got!r}, expected {want!r}")
    for r in rows:
        where = f"size {r['size']}"
        if r["iterations"] < 1:
            out.append(f"{where}: no iterations")
        if r["bytes"] != r["iterations"] * r["size"]:
            out.append(f"{where}: bytes {r['bytes']} != {r['iterations']} x {r['size']}")
        if r["elapsed_s"] <= 0:
            out.append(f"{where}: elapsed {r['elapsed_s']}")
        if doc["metric"] == "bandwidth":
            if not r["bw_avg_bytes_per_s"] > 0:
                out.append(f"{where}: bandwidth {r['bw_avg_bytes_per_s']}")
            if r["bw_peak_bytes_per_s"] < r["bw_avg_bytes_per_s"]:
                out.append(f"{where}: peak below average")
            out += direction_problems(r, where)
        else:
            lat = r["latency_s"]
            chain = [lat["min"], lat["median"], lat["p99"], lat["p999"], lat["max"]]
            if chain != sorted(chain) or lat["min"] <= 0:
                out.append(f"{where}: latency not ordered min<=median<=p99<=p999<=max: {chain}")
            if not lat["min"] <= lat["mean"] <= lat["max"]:
                out.append(f"{where}: mean outside [min, max]")
            # A sample whose two clock readings came from two CPUs is
            # dropped (latency_s.dropped, absent in older documents).
            if lat["count"] + lat.get("dropped", 0) != r["iterations"]:
                out.append(f"{where}: {lat['count']} samples (+{lat.get('dropped', 0)} dropped) "
                           f"for {r['iterations']} iterations")
        if params["validate"] and not (r["validated"] and r["bad_bytes"] == 0):
            out.append(f"{where}: data check: validated={r['validated']} bad={r['bad_bytes']}")
        for end in ("client", "server"):
            cpu = r["cpu"][end]
            if not (0 <= cpu["user"] <= 64 and 0 <= cpu["system"] <= 64):
                out.append(f"{where}: cpu.{end} out of range: {cpu}")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--schema", required=True)
    ap.add_argument("--role")
    ap.add_argument("--test")
    ap.add_argument("--pair", help="the server's document: its rows must match")
    ap.add_argument("--expect-placement")
    ap.add_argument("--expect", action="append", help="PATH=VALUE that must hold")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    with open(args.schema) as f:
        schema = json.load(f)
    bad = 0
    for path in args.files:
        with open(path) as f:
            doc = json.load(f)
        try:
            jsonschema.validate(doc, schema)
            found = problems(doc, args)
        except jsonschema.ValidationError as e:
            found = [f"schema: {e.message} at {'/'.join(map(str, e.absolute_path))}"]
        if args.pair and not found:
            with open(args.pair) as f:
                other = json.load(f)
            if other["results"] != doc["results"]:
                found.append(f"server document {args.pair} has different rows")
        for p in found:
            print(f"{path}: {p}", file=sys.stderr)
        bad += bool(found)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
