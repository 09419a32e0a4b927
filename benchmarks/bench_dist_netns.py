"""The gloo backend between two "hosts": two network namespaces joined by a
veth pair (made and removed here; needs root and iproute2), one rank in each,
so every byte crosses TCP.  ctorch's process group beside PyTorch's gloo in
the same run, each rank running bench_dist.py's worker (same operations,
same timing: the median over rounds of rank 0's time per operation).

PyTorch's gloo picks its interface from GLOO_SOCKET_IFNAME (the veth end in
each namespace); ctorch advertises the address it reaches the store's peers
through.  Usage:
PYTHONPATH=python /usr/bin/python3 benchmarks/bench_dist_netns.py [--quick]
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from _common import QUICK, load_libs, print_table

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "bench_dist.py")
ROUNDS = 2 if QUICK else 3
SHOWN = ["init", "allreduce 8 B", "barrier", "send/recv round trip 8 B", "broadcast 8 B",
         "allreduce 1 MB", "allgather 1 MB", "send/recv 1 MB one way", "allreduce 64 MB"]


def make_hosts():
    tag = "%d" % (os.getpid() % 100000)
    a, b, va, vb = "ctbna" + tag, "ctbnb" + tag, "ctbva" + tag, "ctbvb" + tag
    net = "10.232.%d" % (os.getpid() % 250 + 1)
    cmds = [["ip", "netns", "add", a], ["ip", "netns", "add", b],
            ["ip", "link", "add", va, "type", "veth", "peer", "name", vb],
            ["ip", "link", "set", va, "netns", a], ["ip", "link", "set", vb, "netns", b],
            ["ip", "-n", a, "addr", "add", net + ".1/24", "dev", va],
            ["ip", "-n", b, "addr", "add", net + ".2/24", "dev", vb],
            ["ip", "-n", a, "link", "set", va, "up"], ["ip", "-n", b, "link", "set", vb, "up"],
            ["ip", "-n", a, "link", "set", "lo", "up"], ["ip", "-n", b, "link", "set", "lo", "up"]]
    for c in cmds:
        subprocess.run(c, check=True, capture_output=True)
    return [(a, va), (b, vb)]


def drop_hosts(hosts):
    for ns, _ in hosts:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def run_pair(lib, hosts):
    fd, path = tempfile.mkstemp(prefix="bench_dist_netns_")
    os.close(fd)
    os.unlink(path)
    procs = []
    for rank, (ns, dev) in enumerate(hosts):
        env = dict(os.environ, OMP_NUM_THREADS="1", GLOO_SOCKET_IFNAME=dev)
        procs.append(subprocess.Popen(
            ["ip", "netns", "exec", ns, sys.executable, BENCH, "--worker", lib, str(rank), "2",
             path] + (["--quick"] if QUICK else []), stdout=subprocess.PIPE, env=env, cwd="/tmp"))
    outs = [p.communicate(timeout=900)[0] for p in procs]
    for p in (path, path + ".lock"):
        if os.path.exists(p):
            os.unlink(p)
    if any(p.returncode for p in procs):
        raise RuntimeError("%s: a rank failed" % lib)
    return json.loads(outs[0])


def fmt(v):
    if v is None:
        return "n/a"
    return "%.2f ms" % (v * 1e3) if v >= 1e-3 else "%.1f us" % (v * 1e6)


def main():
    if os.geteuid() != 0 or shutil.which("ip") is None:
        sys.exit("bench_dist_netns: needs root and iproute2 (ip netns)")
    libs = ["ctorch"] + (["torch"] if "torch" in load_libs() else [])
    print("load average before: %.2f %.2f %.2f\n" % os.getloadavg())
    hosts = make_hosts()
    try:
        res = {lib: {} for lib in libs}
        for _ in range(ROUNDS):
            for lib in libs:
                for k, v in run_pair(lib, hosts).items():
                    if not isinstance(v, str):
                        res[lib].setdefault(k, []).append(v)
    finally:
        drop_hosts(hosts)
    table = [["2 ranks over veth TCP"] + libs + (["torch/ctorch"] if len(libs) > 1 else [])]
    for name in SHOWN:
        meds = [statistics.median(res[lib][name]) if res[lib].get(name) else None
                for lib in libs]
        row = [name] + [fmt(m) for m in meds]
        if len(libs) > 1:
            row.append("%.1fx" % (meds[1] / meds[0]) if None not in meds else "")
        table.append(row)
    print_table(table)


if __name__ == "__main__":
    main()
