#!/usr/bin/env python3
"""Write the seed corpus for fuzz_oob: one file per message a real run
exchanges (the same fields and shapes common/ sends), plus a few framed
sequences. Usage: tests/fuzz/gen-corpus.py [DIR] (default: corpus/ beside it)."""
import json, os, struct, sys

def frame(mtype, body, version=2, magic=b"GDRB"):  # version: GDR_OOB_VERSION
    payload = json.dumps(body, separators=(",", ":")).encode()
    return magic + struct.pack(">HHI", version, mtype, len(payload)) + payload

HELLO, ACK, ENDPOINT, SIZE_START, READY, SIZE_DONE, SIZE_RESULT, BYE, ERROR = range(1, 10)
params = {"test": "write_bw", "sizes": [4096, 65536], "iters": 1000, "time_per_size": 0,
          "warmup": -1, "qp": 1, "tx_depth": 128, "inline_size": 0, "mtu": 0,
          "validate": True, "rdma_cm": False, "stage_slot": 1048576, "stage_slots": 8}
# Every field gdr_endpoint_to_json writes (the decoder wants them all).
affinity = {"requested": "nic", "binding": "applied", "numa": "preferred", "cpus_allowed": "0-3",
            "nic_cpus": "0-3", "nic_numa_node": 0, "mem_node": 0, "loop_cpu": 2,
            "loop_cpu_why": "a CPU of its own",
            "buffer_numa_node": 0, "ring_numa_node": -1, "note": ""}
endpoint = {"host": "node1", "device": "rxe0", "port": 1, "link_layer": "Ethernet",
            "active_mtu": 1024, "speed_bps": 1e10, "gid_index": 1,
            "gid": "::ffff:198.18.0.1", "gid_type": "RoCEv2", "gid_family": "ipv4",
            "gid_netdev": "veth0", "gid_vlan": -1, "grh": True, "lid": 0,
            "max_qp_rd_atom": 16, "max_qp_init_rd_atom": 16,
            "placement": "host", "registration": "host",
            "buffer_bytes": 8388608, "ring_bytes": 0, "slot_bytes": 0, "cuda_device": -1,
            "cuda_bus_id": "", "cuda_name": "", "registration_note": "", "pcie_path": "NONE",
            "peermem_loaded": False, "dmabuf_possible": True, "relaxed_ordering": True,
            "scatter_to_cqe": "not-mlx5", "gpu_writes_ordering": "", "gpu_writes_flush": "",
            "gpu_alloc": "", "dmabuf_mapping": "", "data_direct": False, "gpu_c2c": False,
            "relaxed_ordering_enabled": None, "affinity": affinity, "qpn": [17, 18],
            "psn": 4660, "addr": "140737488355328", "rkey": 1234, "ring_addr": 0, "ring_rkey": 0,
            "credit_addr": 0, "credit_rkey": 0, "port_data_bps": 0,
            "port_note": "rxe: a software device", "pcie_json": "{}", "gpu_json": "{}"}
lat = {"count": 0, "min": 0, "max": 0, "mean": 0, "stdev": 0, "median": 0, "p99": 0, "p999": 0}
measure = {"iters": 1000, "bytes": 4096000, "elapsed_ns": 1000000, "bw_avg": 4.096e9,
           "bw_peak": 4.5e9, "msg_rate": 1e6, "cpu_user": 0.01, "cpu_system": 0.0, "lat": lat,
           "window_msgs": 128, "window_bytes": 524288,
           "steady": {"slices": 10, "min": 4.0e9, "max": 4.2e9, "cv": 0.01}}
seen = {"nic": {"available": True, "clean": False, "lifespan_s": 0.012, "between_s": 0.03,
                "after_loop_s": 0.022, "waited_s": 0.02,
                "deltas": {"sent_pkts": 4000, "completer_retry_err": 3, "hw_counters/link_downed": 0},
                "lost": {"out_of_sequence": "vanished"}},
        "gpu_gts": 16, "gpu_width": 16,
        "gpu": {"available": True, "pstate": 0, "sm_mhz": 1980, "mem_mhz": 2619, "pcie_gen": 4,
                "pcie_width": 16, "throttle_known": True, "throttle": 8, "replay_delta": 0}}
messages = {
    "hello": frame(HELLO, {"tool": "gdrbench", "version": "1.0", "parameters": params}),
    "hello_ack": frame(ACK, {}),
    "endpoint": frame(ENDPOINT, endpoint),
    "size_start": frame(SIZE_START, {"phase": "timed", "size": 4096, "iters": 1000,
                                     "expect_s": 0.002}),
    "ready": frame(READY, {}),
    "size_done": frame(SIZE_DONE, {"measure": measure, "seen": seen}),
    "size_result": frame(SIZE_RESULT, {"measure": measure, "seen": seen, "bad_bytes": 0,
                                       "prestage_s": 0}),
    "bye": frame(BYE, {}),
    "error": frame(ERROR, {"message": "data check failed at size 4096", "exit_code": 1}),
}
messages["server_sequence"] = (messages["hello"] + messages["endpoint"] +
                               messages["size_start"] + messages["size_done"] + messages["bye"])
messages["client_sequence"] = (messages["hello_ack"] + messages["endpoint"] + messages["ready"] +
                               messages["size_result"] + messages["error"])
messages["truncated"] = messages["endpoint"][:40]
messages["wrong_version"] = frame(HELLO, {}, version=3)

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
os.makedirs(out, exist_ok=True)
for name, data in messages.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
print(f"{len(messages)} seeds in {out}")
