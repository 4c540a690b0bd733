#!/usr/bin/env python3
"""Prints a stax graph of about N nodes, for timing the compiler on large graphs
(scripts/time_passes.sh). The graph repeats a block of 10 nodes on x[32, 64]: a residual add,
a scale, tanh, a row sum, a division by it, a row max, a subtraction, exp, a mean over rows and
an add that feeds the next block; every 50th block's result is also a graph output, so nothing
is dead. The blocks chain, so fusion, ordering and memory planning see one long graph.

    python3 scripts/scale_graph.py 10000 > big.json
"""
import json
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
nodes, outputs = [], []
prev = "x"
for b in range(max(1, n // 10)):
    p = "b%d_" % b
    nodes += [
        {"name": p + "a", "op": "add", "args": [prev, "x"]},
        {"name": p + "s", "op": "mul", "args": [p + "a", 0.5]},
        {"name": p + "t", "op": "tanh", "args": [p + "s"]},
        {"name": p + "rs", "op": "sum", "args": [p + "t"], "dim": -1, "keepdim": True},
        {"name": p + "d", "op": "div", "args": [p + "t", p + "rs"]},
        {"name": p + "m", "op": "amax", "args": [p + "d"], "dim": -1, "keepdim": True},
        {"name": p + "c", "op": "sub", "args": [p + "d", p + "m"]},
        {"name": p + "e", "op": "exp", "args": [p + "c"]},
        {"name": p + "cm", "op": "mean", "args": [p + "e"], "dim": 0, "keepdim": True},
        {"name": p + "y", "op": "add", "args": [p + "e", p + "cm"]},
    ]
    prev = p + "y"
    if b % 50 == 49:
        outputs.append(prev)
if not outputs or outputs[-1] != prev:
    outputs.append(prev)
graph = {"format": "stax-graph", "version": 1, "name": "scale_%d" % n,
         "inputs": [{"name": "x", "dtype": "float32", "shape": [32, 64]}],
         "nodes": nodes, "outputs": outputs}
json.dump(graph, sys.stdout)
sys.stdout.write("\n")
