#!/usr/bin/env python3
"""Writes samples/transformer/transformer_block.json and its weights file, transformer_block.weights.

A post-LN transformer encoder block, as torch.nn.TransformerEncoderLayer computes it in eval
mode with GELU: multi-head self-attention (4 heads), residual add, layer norm, a GELU MLP,
residual add, layer norm. x is [T, D] = [16, 32], the MLP's hidden size 64. The weights are
seeded uniform values in [-1/sqrt(fan_in), 1/sqrt(fan_in)] (PyTorch's default initialization
range), all in one raw little-endian float32 file that the constants name with offsets.

    python3 samples/transformer/make_transformer_block.py     # rewrites both files, the same bytes each time
"""
import json
import math
import os
import random
import struct

T, D, HEADS, FF = 16, 32, 4, 64
DH = D // HEADS
HERE = os.path.dirname(os.path.abspath(__file__))

rng = random.Random(7)
weights = bytearray()
constants = []


def constant(name, shape, fan_in=None, fill=None):
    count = 1
    for n in shape:
        count *= n
    if fill is not None:
        values = [fill] * count
    else:
        bound = 1.0 / math.sqrt(fan_in)
        values = [rng.uniform(-bound, bound) for _ in range(count)]
    constants.append({"name": name, "dtype": "float32", "shape": shape,
                      "file": "transformer_block.weights", "offset": len(weights)})
    weights.extend(struct.pack("<%df" % count, *values))


for w in ("wq", "wk", "wv", "wo"):
    constant(w, [D, D], fan_in=D)
    constant("b" + w[1], [D], fan_in=D)
constant("ln1_w", [D], fill=1.0)
constant("ln1_b", [D], fill=0.0)
constant("w1", [FF, D], fan_in=D)
constant("b1", [FF], fan_in=D)
constant("w2", [D, FF], fan_in=FF)
constant("b2", [D], fan_in=FF)
constant("ln2_w", [D], fill=1.0)
constant("ln2_b", [D], fill=0.0)


def heads(name, src):
    """[T, D] -> [HEADS, T, DH]"""
    return [{"name": name + "_r", "op": "reshape", "args": [src], "shape": [T, HEADS, DH]},
            {"name": name + "_h", "op": "permute", "args": [name + "_r"], "dims": [1, 0, 2]}]


nodes = [
    {"name": "q", "op": "linear", "args": ["x", "wq", "bq"]},
    {"name": "k", "op": "linear", "args": ["x", "wk", "bk"]},
    {"name": "v", "op": "linear", "args": ["x", "wv", "bv"]},
    *heads("q", "q"), *heads("k", "k"), *heads("v", "v"),
    {"name": "kt", "op": "transpose", "args": ["k_h"], "dim0": 1, "dim1": 2},
    {"name": "scores", "op": "matmul", "args": ["q_h", "kt"]},
    {"name": "scaled", "op": "mul", "args": ["scores", 1.0 / math.sqrt(DH)]},
    {"name": "attn", "op": "softmax", "args": ["scaled"], "dim": -1},
    {"name": "ctx_h", "op": "matmul", "args": ["attn", "v_h"]},
    {"name": "ctx_t", "op": "permute", "args": ["ctx_h"], "dims": [1, 0, 2]},
    {"name": "ctx", "op": "reshape", "args": ["ctx_t"], "shape": [T, D]},
    {"name": "proj", "op": "linear", "args": ["ctx", "wo", "bo"]},
    {"name": "res1", "op": "add", "args": ["x", "proj"]},
    {"name": "h1", "op": "layer_norm", "args": ["res1", "ln1_w", "ln1_b"], "normalized_shape": [D]},
    {"name": "ff1", "op": "linear", "args": ["h1", "w1", "b1"]},
    {"name": "act", "op": "gelu", "args": ["ff1"]},
    {"name": "ff2", "op": "linear", "args": ["act", "w2", "b2"]},
    {"name": "res2", "op": "add", "args": ["h1", "ff2"]},
    {"name": "y", "op": "layer_norm", "args": ["res2", "ln2_w", "ln2_b"], "normalized_shape": [D]},
]

graph = {
    "format": "stax-graph",
    "version": 1,
    "name": "transformer_block",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [T, D]}],
    "constants": constants,
    "nodes": nodes,
    "outputs": ["y"],
}

with open(os.path.join(HERE, "transformer_block.weights"), "wb") as f:
    f.write(weights)
with open(os.path.join(HERE, "transformer_block.json"), "w") as f:
    f.write(json.dumps(graph, indent=1) + "\n")
