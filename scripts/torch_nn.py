"""torch_check.py's cases and PyTorch semantics for the convolution, pooling, normalization and
indexing ops (graph-format.md "Convolution, pooling, normalization, indexing").

`cases(ctx)` adds the groups `conv`, `pool`, `norm-act` and `indexing` through torch_check's
add_case/node/data; `t_op` computes an op of these groups with PyTorch (None for any other op);
`rule_violation` names the Precise rule a node breaks where PyTorch accepts it; `tolerance`
gives the per-element allowance of a float accumulation (graph-format.md: K * u * sum |a||b|).
Where the installed PyTorch (Debian's 1.13) differs from 2.x, the 2.x semantics are computed
from ops both share: `elu` (2.x: x < 0 ? expm1(x) * alpha : x) and max_pool2d's padding limit
(2.x: half the effective kernel d(k - 1) + 1, 1.13: half the kernel).
"""
import math

import numpy as np
import torch
import torch.nn.functional as F

NAN, INF = float("nan"), float("inf")

# Ops that code generation does not lower yet: their cases check `validate` and `interpret`.
NOT_LOWERED = set()  # (every op lowers now)
WINDOW_OPS = {"conv1d", "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"}
DATA_FLOAT_ONLY = WINDOW_OPS | {"batch_norm", "embedding", "index_select", "gather"}


class Ctx:
    """What the case builders use of torch_check: add_case, node, data, rng."""

    def __init__(self, add_case, node, data, rng):
        self.add_case, self.node, self.data, self.rng = add_case, node, data, rng


def ops_of(nodes):
    out = set()
    for n in nodes:
        if isinstance(n, dict):
            out.add(n["op"])
            out |= ops_of(n.get("args", []))
    return out


def lowered(c):
    """Whether `staxc run` can compile the case (no op of NOT_LOWERED)."""
    return not (ops_of(c.nodes) & NOT_LOWERED)


# ---------------------------------------------------------------------------------------------
# Cases.

def sprinkled(ctx, dt, shape, tag, specials=(NAN, INF, -INF, -0.0, 0.0)):
    """Standard normal values with a few special ones at seeded places."""
    x = ctx.data(dt, shape, kind="normal", tag=tag).copy()
    flat = x.reshape(-1)
    g = ctx.rng(tag + "/where")
    for v in specials:
        if flat.size > 4 * len(specials):
            flat[g.integers(0, flat.size)] = v
    return x


def conv_cases(ctx):
    add, node = ctx.add_case, ctx.node
    for dt in ["float32", "float64"]:
        x1 = sprinkled(ctx, dt, [2, 4, 13], "c1")
        w1 = ctx.data(dt, [6, 2, 3], kind="normal", tag="w1")
        b1 = ctx.data(dt, [6], kind="normal", tag="b1")
        for attrs in [{}, {"stride": 2}, {"padding": 1}, {"padding": [2], "dilation": 3}, {"padding": "same"},
                      {"padding": "valid", "stride": [3]}, {"padding": "same", "dilation": 2}]:
            add("conv", f"conv1d {dt} groups 2 {attrs}", {"x": x1, "w": w1, "b": b1},
                [node("conv1d", "x", "w", "b", groups=2, **attrs)])
        x2 = sprinkled(ctx, dt, [2, 4, 9, 8], "c2")
        for label, w_shape, attrs in [
                ("3x3", [5, 4, 3, 3], {}),
                ("3x3 pad 1", [5, 4, 3, 3], {"padding": 1}),
                ("stride [2, 3] pad [1, 0]", [5, 4, 3, 2], {"stride": [2, 3], "padding": [1, 0]}),
                ("dilation [2, 1]", [5, 4, 3, 3], {"dilation": [2, 1], "padding": [2, 1]}),
                ("groups 2", [6, 2, 2, 3], {"groups": 2, "padding": 1}),
                ("depthwise", [4, 1, 3, 3], {"groups": 4, "padding": 1}),
                ("depthwise x2", [8, 1, 3, 3], {"groups": 4, "stride": 2}),
                ("same even kernel", [3, 4, 2, 4], {"padding": "same"}),
                ("same dilation 3", [3, 4, 2, 2], {"padding": "same", "dilation": 3}),
                ("valid", [3, 4, 4, 4], {"padding": "valid"}),
                ("1x1", [7, 4, 1, 1], {}),
                ("kernel = input", [2, 4, 9, 8], {})]:
            w = ctx.data(dt, w_shape, kind="normal", tag="w" + label)
            add("conv", f"conv2d {dt} {label}", {"x": x2, "w": w}, [node("conv2d", "x", "w", **attrs)])
            add("conv", f"conv2d {dt} {label} bias", {"x": x2, "w": w, "b": ctx.data(dt, [w_shape[0]], kind="normal", tag="b")},
                [node("conv2d", "x", "w", "b", **attrs)])
    x = ctx.data("float32", [1, 4, 6, 6], kind="normal", tag="ce")
    w = ctx.data("float32", [4, 4, 3, 3], kind="normal", tag="we")
    bad = [("stride 0", {"stride": 0}), ("negative padding", {"padding": -1}), ("dilation 0", {"dilation": [1, 0]}),
           ("groups 0", {"groups": 0}), ("groups 3", {"groups": 3}), ("same with stride 2", {"padding": "same", "stride": 2}),
           ("padding 'full'", {"padding": "full"}), ("three strides", {"stride": [1, 1, 1]}),
           ("kernel larger than the input", {"dilation": 3})]
    for label, attrs in bad:
        add("conv", f"conv2d rejects {label}", {"x": x, "w": w}, [node("conv2d", "x", "w", **attrs)])
    add("conv", "conv2d rejects in-channel mismatch", {"x": x, "w": ctx.data("float32", [4, 3, 3, 3], tag="wm")},
        [node("conv2d", "x", "w")])
    add("conv", "conv2d rejects bias of another size", {"x": x, "w": w, "b": ctx.data("float32", [3], tag="bm")},
        [node("conv2d", "x", "w", "b")])
    add("conv", "conv2d rejects a 3-d weight", {"x": x, "w": w[0]}, [node("conv2d", "x", "w")])
    add("conv", "conv2d rejects mixed dtypes", {"x": x, "w": w.astype(np.float64)}, [node("conv2d", "x", "w")])
    add("conv", "conv2d unbatched input", {"x": x[0], "w": w}, [node("conv2d", "x", "w")])
    add("conv", "conv2d one stride for two dims", {"x": x, "w": w}, [node("conv2d", "x", "w", stride=[2])])
    add("conv", "conv1d int64", {"x": ctx.data("int64", [1, 2, 5], kind="normal"), "w": ctx.data("int64", [1, 2, 2], kind="normal")},
        [node("conv1d", "x", "w")])


def pool_data(ctx, dt, shape, tag):
    return sprinkled(ctx, dt, shape, tag, specials=(NAN, INF, -INF, -0.0, 0.0, 1e30, -1e30, 1.5))


def pool_cases(ctx):
    add, node = ctx.add_case, ctx.node
    for dt in ["float32", "float64"]:
        x = pool_data(ctx, dt, [2, 3, 9, 10], "p" + dt)
        neg = -np.abs(ctx.data(dt, [1, 2, 5, 5], kind="normal", tag="pn")) - 1
        for label, attrs in [("k2", {"kernel_size": 2}), ("k3 s2", {"kernel_size": 3, "stride": 2}),
                             ("k3 s2 ceil", {"kernel_size": 3, "stride": 2, "ceil_mode": True}),
                             ("k2 p1 ceil (dropped window)", {"kernel_size": 2, "padding": 1, "ceil_mode": True}),
                             ("k [3, 2] s [1, 2] p [1, 1]", {"kernel_size": [3, 2], "stride": [1, 2], "padding": [1, 1]}),
                             ("k3 s1 p1", {"kernel_size": 3, "stride": 1, "padding": 1}),
                             ("k 1", {"kernel_size": 1, "stride": 2}),
                             ("stride null", {"kernel_size": 3, "stride": None})]:
            for op in ["max_pool2d", "avg_pool2d"]:
                add("pool", f"{op} {dt} {label}", {"x": x}, [node(op, "x", **attrs)])
            add("pool", f"avg_pool2d {dt} {label} exclude pad", {"x": x},
                [node("avg_pool2d", "x", count_include_pad=False, **attrs)])
            add("pool", f"avg_pool2d {dt} {label} divisor 5", {"x": x}, [node("avg_pool2d", "x", divisor_override=5, **attrs)])
        for label, attrs in [("dilation 2", {"kernel_size": 3, "stride": 1, "dilation": 2}),
                             ("dilation [2, 3] pad 2 ceil", {"kernel_size": 2, "stride": 2, "padding": [1, 2], "dilation": [2, 3], "ceil_mode": True}),
                             ("pad beyond k/2 by dilation", {"kernel_size": 3, "stride": 1, "padding": 2, "dilation": 2}),
                             ("padding -inf on negatives", {"kernel_size": 2, "stride": 1, "padding": 1})]:
            add("pool", f"max_pool2d {dt} {label}", {"x": x if "neg" not in label else neg}, [node("max_pool2d", "x", **attrs)])
            add("pool", f"max_pool2d {dt} {label} on negatives", {"x": neg}, [node("max_pool2d", "x", **attrs)])
        # Windows made only of padding (dilation 3, padding 2, a width of 1): -inf.
        add("pool", f"max_pool2d {dt} all-padding windows", {"x": ctx.data(dt, [2, 3, 1], kind="normal", tag="ap")},
            [node("max_pool2d", "x", kernel_size=[1, 2], stride=1, padding=[0, 2], dilation=[1, 3])])
        add("pool", f"max_pool2d {dt} 3-d input", {"x": x[0]}, [node("max_pool2d", "x", kernel_size=2)])
        add("pool", f"avg_pool2d {dt} 3-d input ceil", {"x": x[0]}, [node("avg_pool2d", "x", kernel_size=3, stride=2, padding=1, ceil_mode=True)])
        for size in [1, 3, [4, 5], [9, 10], [2, None], [None, 3], [13, 7], 20]:
            add("pool", f"adaptive_avg_pool2d {dt} {size}", {"x": x}, [node("adaptive_avg_pool2d", "x", output_size=size)])
        add("pool", f"adaptive_avg_pool2d {dt} 3-d", {"x": x[1]}, [node("adaptive_avg_pool2d", "x", output_size=[4, 3])])
    x = ctx.data("float32", [1, 2, 6, 6], kind="normal", tag="pe")
    for op in ["max_pool2d", "avg_pool2d"]:
        for label, attrs in [("kernel 0", {"kernel_size": 0}), ("stride 0", {"kernel_size": 2, "stride": 0}),
                             ("padding > k/2", {"kernel_size": 3, "padding": 2}), ("negative padding", {"kernel_size": 2, "padding": -1}),
                             ("no kernel_size", {}), ("kernel beyond the input", {"kernel_size": 7}),
                             ("2-d input", {"kernel_size": 2, "_x": "x2"})]:
            inputs = {"x": x[0, 0]} if attrs.pop("_x", None) else {"x": x}
            add("pool", f"{op} rejects {label}", inputs, [node(op, "x", **attrs)])
        add("pool", f"{op} int64", {"x": ctx.data("int64", [1, 4, 4], kind="normal")}, [node(op, "x", kernel_size=2)])
    add("pool", "max_pool2d rejects dilation 0", {"x": x}, [node("max_pool2d", "x", kernel_size=2, dilation=0)])
    add("pool", "max_pool2d padding beyond the effective kernel", {"x": x},
        [node("max_pool2d", "x", kernel_size=2, padding=2, dilation=2)])
    add("pool", "avg_pool2d rejects divisor_override 0", {"x": x}, [node("avg_pool2d", "x", kernel_size=2, divisor_override=0)])
    add("pool", "avg_pool2d negative divisor_override", {"x": x}, [node("avg_pool2d", "x", kernel_size=2, divisor_override=-2)])
    add("pool", "adaptive_avg_pool2d output 0", {"x": x}, [node("adaptive_avg_pool2d", "x", output_size=[0, 2])])
    add("pool", "adaptive_avg_pool2d rejects a negative size", {"x": x}, [node("adaptive_avg_pool2d", "x", output_size=-1)])


def norm_act_cases(ctx):
    add, node = ctx.add_case, ctx.node
    for dt in ["float32", "float64"]:
        x = ctx.data(dt, [67], tag="act")
        for op, attrs in [("hardswish", {}), ("hardsigmoid", {}), ("softplus", {}), ("softplus", {"beta": 2, "threshold": 1}),
                          ("softplus", {"beta": 0.5, "threshold": 40}), ("softplus", {"beta": -1.5}), ("elu", {}),
                          ("elu", {"alpha": 0.25}), ("elu", {"alpha": -2})]:
            add("norm-act", f"{op} {dt} {attrs}", {"x": x}, [node(op, "x", **attrs)])
        g = ctx.rng("bn" + dt)
        c = 5
        xb = sprinkled(ctx, dt, [3, c, 4, 7], "bn" + dt)
        m = g.standard_normal(c).astype(dt)
        v = (np.abs(g.standard_normal(c)) + 0.1).astype(dt)
        w = g.standard_normal(c).astype(dt)
        b = g.standard_normal(c).astype(dt)
        base = {"x": xb, "m": m, "v": v}
        add("norm-act", f"batch_norm {dt} 4-d", dict(base, w=w, b=b), [node("batch_norm", "x", "m", "v", "w", "b")])
        add("norm-act", f"batch_norm {dt} no affine eps 0.1", base, [node("batch_norm", "x", "m", "v", eps=0.1)])
        add("norm-act", f"batch_norm {dt} bias only", dict(base, b=b), [node("batch_norm", "x", "m", "v", None, "b")])
        add("norm-act", f"batch_norm {dt} 2-d", {"x": xb[:, :, 0, 0].copy(), "m": m, "v": v, "w": w},
            [node("batch_norm", "x", "m", "v", "w", training=False)])
        add("norm-act", f"batch_norm {dt} 3-d", {"x": xb[0].transpose(1, 0, 2).copy(), "m": m[:4], "v": v[:4]},
            [node("batch_norm", "x", "m", "v")])
        add("norm-act", f"batch_norm {dt} zero variance", {"x": xb, "m": m, "v": np.zeros(c, dt)},
            [node("batch_norm", "x", "m", "v", eps=0.0)])
    x = ctx.data("float32", [2, 3, 4], kind="normal", tag="bne")
    p = ctx.data("float32", [3], kind="normal", tag="bnp")
    add("norm-act", "batch_norm rejects a 1-d input", {"x": p, "m": p, "v": p}, [node("batch_norm", "x", "m", "v")])
    add("norm-act", "batch_norm rejects parameters of another size", {"x": x, "m": p[:2], "v": p[:2]},
        [node("batch_norm", "x", "m", "v")])
    add("norm-act", "batch_norm rejects mixed dtypes", {"x": x, "m": p.astype(np.float64), "v": p.astype(np.float64)},
        [node("batch_norm", "x", "m", "v")])
    add("norm-act", "batch_norm rejects training", {"x": x, "m": p, "v": p}, [node("batch_norm", "x", "m", "v", training=True)])
    for op in ["hardswish", "hardsigmoid", "softplus", "elu"]:
        add("norm-act", f"{op} rejects int32", {"x": ctx.data("int32", [5])}, [node(op, "x")])


def index_data(ctx, dt, shape, size, tag):
    return ctx.rng(tag).integers(0, size, shape).astype(dt)


def indexing_cases(ctx):
    add, node = ctx.add_case, ctx.node
    w = sprinkled(ctx, "float32", [11, 6], "emb")
    for dt in ["int32", "int64"]:
        for shape in [[], [4], [3, 5], [2, 2, 3]]:
            add("indexing", f"embedding {dt} indices {shape}", {"w": w, "i": index_data(ctx, dt, shape, 11, f"e{shape}")},
                [node("embedding", "w", "i")])
        add("indexing", f"embedding {dt} index 11 of 11", {"w": w, "i": np.array([0, 11], dt)}, [node("embedding", "w", "i")],
            index_error=True)
        add("indexing", f"embedding {dt} index -1", {"w": w, "i": np.array([-1], dt)}, [node("embedding", "w", "i")],
            index_error=True)
        x = sprinkled(ctx, "float64", [4, 5, 6], "isel")
        for d in [0, 1, 2, -1]:
            size = x.shape[d]
            add("indexing", f"index_select {dt} dim {d}", {"x": x, "i": index_data(ctx, dt, [7], size, f"is{d}")},
                [node("index_select", "x", "i", dim=d)])
        add("indexing", f"index_select {dt} out of range", {"x": x, "i": np.array([1, 5], dt)},
            [node("index_select", "x", "i", dim=1)], index_error=True)
        add("indexing", f"index_select {dt} negative", {"x": x, "i": np.array([-2], dt)},
            [node("index_select", "x", "i", dim=0)], index_error=True)
    add("indexing", "index_select 0-d input", {"x": np.array(2.5, np.float32), "i": np.array([0], np.int64)},
        [node("index_select", "x", "i", dim=0)])
    add("indexing", "index_select 0-d input out of range", {"x": np.array(2.5, np.float32), "i": np.array([1], np.int64)},
        [node("index_select", "x", "i", dim=0)], index_error=True)
    add("indexing", "index_select rejects two indices of a 0-d input", {"x": np.array(2.5, np.float32), "i": np.array([0, 0], np.int64)},
        [node("index_select", "x", "i", dim=0)])
    x = sprinkled(ctx, "float32", [4, 5, 3], "gat")
    for d in [0, 1, 2, -2]:
        shape = [6, 2, 3] if d == 0 else [3, 7, 2] if d in (1, -2) else [2, 4, 5]
        size = x.shape[d]
        add("indexing", f"gather dim {d}", {"x": x, "i": index_data(ctx, "int64", shape, size, f"g{d}")},
            [node("gather", "x", "i", dim=d)])
    add("indexing", "gather 0-d", {"x": np.array(-1.5, np.float32), "i": np.array(0, np.int64)}, [node("gather", "x", "i", dim=0)])
    add("indexing", "gather out of range", {"x": x, "i": np.array([[[0], [3]]], np.int64)}, [node("gather", "x", "i", dim=2)],
        index_error=True)
    add("indexing", "gather negative", {"x": x, "i": np.array([[[-1]]], np.int64)}, [node("gather", "x", "i", dim=0)],
        index_error=True)
    add("indexing", "an unused out-of-range index still fails", {"w": w, "i": np.array([20], np.int64)},
        [node("embedding", "w", "i", name="e"), node("neg", "w")], index_error=True)
    f = {"x": x}
    add("indexing", "gather rejects int32 indices", dict(f, i=np.zeros((1, 1, 1), np.int32)), [node("gather", "x", "i", dim=0)])
    add("indexing", "gather rejects a larger index", dict(f, i=np.zeros((1, 6, 1), np.int64)), [node("gather", "x", "i", dim=0)])
    add("indexing", "gather rejects another rank", dict(f, i=np.zeros((2, 2), np.int64)), [node("gather", "x", "i", dim=0)])
    add("indexing", "index_select rejects float indices", dict(f, i=np.zeros(2, np.float32)), [node("index_select", "x", "i", dim=0)])
    add("indexing", "index_select rejects 2-d indices", dict(f, i=np.zeros((2, 2), np.int64)), [node("index_select", "x", "i", dim=0)])
    add("indexing", "index_select 0-d index", dict(f, i=np.array(1, np.int64)), [node("index_select", "x", "i", dim=0)])
    add("indexing", "index_select int64 data", {"x": ctx.data("int64", [3, 4]), "i": np.array([1], np.int64)},
        [node("index_select", "x", "i", dim=0)])
    add("indexing", "embedding rejects a 1-d weight", {"w": w[0], "i": np.array([1], np.int64)}, [node("embedding", "w", "i")])
    add("indexing", "embedding int64 weight", {"w": ctx.data("int64", [3, 2]), "i": np.array([1], np.int64)},
        [node("embedding", "w", "i")])


def cases(ctx):
    conv_cases(ctx)
    pool_cases(ctx)
    norm_act_cases(ctx)
    indexing_cases(ctx)


# ---------------------------------------------------------------------------------------------
# PyTorch's results.

def pair(v, n=2):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


def max_pool_2x(x, at):
    """F.max_pool2d with 2.x's padding limit (half the effective kernel): past 1.13's own limit
    (half the kernel), pad with -inf by hand and slice the windows PyTorch 2.x gives."""
    k = pair(at["kernel_size"])
    s = pair(at.get("stride") if at.get("stride") is not None else at["kernel_size"])
    p, d = pair(at.get("padding", 0)), pair(at.get("dilation", 1))
    ceil = at.get("ceil_mode", False)
    if min(k) < 1 or min(s) < 1 or min(d) < 1 or min(p) < 0 or any(2 * p[i] > d[i] * (k[i] - 1) + 1 for i in range(2)):
        return F.max_pool2d(x, k, s, p, d, ceil)       # PyTorch's own rejection
    if all(2 * p[i] <= k[i] for i in range(2)):
        return F.max_pool2d(x, k, s, p, d, ceil)
    out = []
    for i in range(2):
        size = x.shape[-2 + i]
        o = (size + 2 * p[i] - d[i] * (k[i] - 1) - 1 + (s[i] - 1 if ceil else 0)) // s[i] + 1
        if ceil and (o - 1) * s[i] >= size + p[i]:
            o -= 1
        out.append(o)
    extra = [p[i] + s[i] + d[i] * k[i] for i in range(2)]
    xp = F.pad(x, (p[1], extra[1], p[0], extra[0]), value=-INF)
    return F.max_pool2d(xp, k, s, 0, d, False)[..., :out[0], :out[1]]


def t_op(op, args, at, Rejected):
    """PyTorch's value of one of this module's ops, or None for any other op."""
    if op not in DATA_FLOAT_ONLY and op not in ("hardswish", "hardsigmoid", "softplus", "elu"):
        return None
    x = args[0]
    if op in ("conv1d", "conv2d"):
        if len(args) not in (2, 3):
            raise Rejected("arity")
        n = 1 if op == "conv1d" else 2
        for key in ("stride", "padding", "dilation"):
            v = at.get(key)
            if isinstance(v, list) and len(v) not in (1, n):
                raise Rejected(f"{key} list of another length")
        conv = F.conv1d if op == "conv1d" else F.conv2d
        pad = at.get("padding", 0)
        return conv(x, args[1], args[2] if len(args) > 2 else None, at.get("stride", 1),
                    pad if isinstance(pad, str) else pair(pad, n), at.get("dilation", 1), at.get("groups", 1))
    if len(args) != {"batch_norm": len(args), "embedding": 2, "index_select": 2, "gather": 2}.get(op, 1):
        raise Rejected("arity")
    if op == "max_pool2d":
        if "kernel_size" not in at:
            raise Rejected("kernel_size")
        return max_pool_2x(x, at)
    if op == "avg_pool2d":
        if "kernel_size" not in at:
            raise Rejected("kernel_size")
        return F.avg_pool2d(x, at["kernel_size"], at.get("stride"), at.get("padding", 0), at.get("ceil_mode", False),
                            at.get("count_include_pad", True), at.get("divisor_override"))
    if op == "adaptive_avg_pool2d":
        size = at["output_size"]
        if any(s is not None and s < 0 for s in pair(size)):
            raise Rejected("negative output size")
        return F.adaptive_avg_pool2d(x, tuple(size) if isinstance(size, list) else size)
    if op == "batch_norm":
        if len(args) < 3 or len(args) > 5:
            raise Rejected("arity")
        w, b = (args + [None, None])[3:5]
        if at.get("training", False):
            raise Rejected("training")
        return F.batch_norm(x, args[1], args[2], w, b, training=False, eps=at.get("eps", 1e-5))
    if op == "embedding":
        return F.embedding(args[1], x)
    if op == "index_select":
        if x.dim() == 0 and args[1].numel() != 1:
            # 2.x: "Index to scalar can have only 1 value"; 1.13 writes every pick into the
            # one element (a heap overflow).
            raise Rejected("index_select of a 0-d tensor takes one index")
        return torch.index_select(x, at["dim"], args[1])
    if op == "gather":
        return torch.gather(x, at["dim"], args[1])
    if op == "hardswish":
        return F.hardswish(x)
    if op == "hardsigmoid":
        return F.hardsigmoid(x)
    if op == "softplus":
        return F.softplus(x, at.get("beta", 1), at.get("threshold", 20))
    # elu, as 2.x: x < 0 ? expm1(x) * alpha : x (1.13: x <= 0 ? (exp(x) - 1) * alpha : x)
    if not x.is_floating_point():
        F.elu(x)   # PyTorch's rejection of ints
    return torch.where(x < 0, torch.expm1(x) * at.get("alpha", 1.0), x)


def rule_violation(op, args, at):
    """The Precise rule a node of these ops breaks although PyTorch accepts it, or ""."""
    ts = [a for a in args if isinstance(a, torch.Tensor)]
    if op in DATA_FLOAT_ONLY and ts and not ts[0].is_floating_point():
        return "the data of conv, pooling, batch_norm and indexing ops are floating (int data: later)"
    if op in ("conv1d", "conv2d") and ts and ts[0].dim() == (2 if op == "conv1d" else 3):
        return "convolution inputs are batched"
    if op == "conv2d" and any(isinstance(at.get(k), list) and len(at[k]) == 1 for k in ("stride", "padding", "dilation")):
        return "a list attribute has one entry per spatial dim"
    if op == "avg_pool2d" and isinstance(at.get("divisor_override"), int) and at["divisor_override"] < 0:
        return "divisor_override is an int >= 1"
    if op == "adaptive_avg_pool2d" and 0 in [s for s in pair(at.get("output_size")) if s is not None]:
        return "no zero-size values"
    if op == "index_select" and len(ts) > 1 and ts[1].dim() == 0:
        return "index_select's index is 1-D"
    if op == "gather" and len(ts) > 1 and ts[1].dtype == torch.int32:
        return "gather's index is int64"
    return ""


# ---------------------------------------------------------------------------------------------
# Tolerance of float accumulations.

def tolerance(c, env):
    """Per output, the per-element allowance of a one-node case whose op accumulates (a
    convolution, an average pool): 2 K u sum |a||b| (PyTorch's own rounding and the generated
    code's) for the node's output, None for any other output; None for other cases."""
    if len(c.nodes) != 1 or c.nodes[0]["op"] not in ("conv1d", "conv2d", "avg_pool2d", "adaptive_avg_pool2d"):
        return None
    n = c.nodes[0]
    if not all(a is None or (isinstance(a, str) and a in env) for a in n["args"]):
        return None          # an inline argument: compared within RTOL and ATOL only
    args = [env[a] if a is not None else None for a in n["args"]]
    x = args[0]
    if not x.is_floating_point():
        return None
    u = 2.0 ** -24 if x.dtype == torch.float32 else 2.0 ** -53
    at = {k: v for k, v in n.items() if k not in ("name", "op", "args")}
    ax = torch.nan_to_num(x.double().abs(), nan=0.0, posinf=0.0)
    if n["op"] in ("conv1d", "conv2d"):
        w = args[1].double().abs()
        k = w[0].numel()
        b = args[2].double().abs() if len(args) > 2 and args[2] is not None else None
        bound = t_op(n["op"], [ax, w] + ([b] if b is not None else []), at, Exception) * (k + 1) * u
    elif n["op"] == "avg_pool2d":
        k = math.prod(pair(at["kernel_size"]))
        bound = t_op("avg_pool2d", [ax], at, Exception) * k * u
    else:
        bound = t_op("adaptive_avg_pool2d", [ax], at, Exception) * x.shape[-1] * x.shape[-2] * u
    return [2 * bound.numpy() if o == n["name"] else None for o in c.outputs]
