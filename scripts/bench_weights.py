#!/usr/bin/python3
"""Build time and peak memory of generated code with ResNet-50's amount of weights.

The graph: x float32[8, 2048] through six 2048 x 2048 constant matrices (matmul, relu), 25.2M
parameters, 100.7 MB of float32, in a weights file of the graph. For each way of holding the
constants (the weights file and .incbin, the default; with --literals also every constant as
decimal literals, --weights-threshold above them all, which takes minutes and gigabytes), it
prints staxc's time and peak memory, the generated files' sizes and the documented build's
(g++ -std=c++17 -O3 -march=native -fopenmp -c) wall time and peak memory from /usr/bin/time -v,
then runs the program once and checks its output against the interpreter's (staxc check).

  /usr/bin/python3 scripts/bench_weights.py [--staxc build/tools/staxc] [--work DIR] [--literals]
Needs numpy and GNU time (Debian's python3-numpy, time). Run nothing else meanwhile.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

N, LAYERS = 2048, 6
BUILD = ["g++", "-std=c++17", "-O3", "-march=native", "-fopenmp", "-c"]


def make_graph(d):
    rng = np.random.default_rng(0)
    constants, nodes, offset, prev = [], [], 0, "x"
    with open(os.path.join(d, "big.weights"), "wb") as f:
        for i in range(LAYERS):
            w = (rng.standard_normal((N, N)) / np.sqrt(N)).astype("<f4")
            f.write(w.tobytes())
            constants.append({"name": "w%d" % i, "dtype": "float32", "shape": [N, N], "file": "big.weights",
                              "offset": offset})
            offset += w.nbytes
            nodes.append({"name": "m%d" % i, "op": "matmul", "args": [prev, "w%d" % i]})
            nodes.append({"name": "h%d" % i, "op": "relu", "args": ["m%d" % i]})
            prev = "h%d" % i
    graph = {"format": "stax-graph", "version": 1, "name": "big",
             "inputs": [{"name": "x", "dtype": "float32", "shape": [8, N]}],
             "constants": constants, "nodes": nodes, "outputs": [prev]}
    with open(os.path.join(d, "big.json"), "w") as f:
        json.dump(graph, f, indent=1)
    return LAYERS * N * N, offset


def timed(argv, cwd):
    r = subprocess.run(["/usr/bin/time", "-v"] + argv, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(argv), r.stderr[-2000:]))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", r.stderr)
    seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1)) / 1024
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", r.stderr).group(1))
    sys_ = float(re.search(r"System time \(seconds\): ([\d.]+)", r.stderr).group(1))
    return seconds, user + sys_, rss


def one_way(a, d, label, extra):
    sub = os.path.join(d, label)
    os.makedirs(sub, exist_ok=True)
    s = timed([a.staxc, os.path.join(d, "big.json"), "-o", os.path.join(sub, "big.cpp")] + extra, d)
    cpp = os.path.getsize(os.path.join(sub, "big.cpp"))
    wpath = os.path.join(sub, "big.cpp.weights")
    weights = os.path.getsize(wpath) if os.path.exists(wpath) else 0
    b = timed(BUILD + [os.path.join(label, "big.cpp"), "-o", label + ".o"], d)
    print("%-9s staxc %6.1f s %6.0f MiB | source %7.1f MB, weights file %6.1f MB | g++ -O3 %6.1f s (cpu %6.1f s) "
          "peak %6.0f MiB" % (label, s[0], s[2], cpp / 1e6, weights / 1e6, b[0], b[1], b[2]), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--staxc", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build",
                                                   "tools", "staxc"))
    p.add_argument("--work", default="")
    p.add_argument("--literals", action="store_true", help="also every constant as decimal literals (slow)")
    a = p.parse_args()
    a.staxc = os.path.abspath(a.staxc)
    d = a.work or tempfile.mkdtemp(prefix="stax-weights-")
    os.makedirs(d, exist_ok=True)
    params, size = make_graph(d)
    print("graph: %d matrix products of %d x %d, %.1fM parameters, %.1f MB of float32 (in %s)"
          % (LAYERS, N, N, params / 1e6, size / 1e6, d))
    one_way(a, d, "incbin", [])
    if a.literals:
        one_way(a, d, "literals", ["--weights-threshold", str(1 << 40)])
    r = subprocess.run([a.staxc, "check", os.path.join(d, "big.json")], capture_output=True, text=True)
    print("staxc check (the generated code against the interpreter): %s" % ("ok" if r.returncode == 0 else r.stderr))
    sys.exit(r.returncode)


if __name__ == "__main__":
    main()
