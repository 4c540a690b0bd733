#!/usr/bin/python3
"""Compare staxc with PyTorch eager on small graphs with edge-case inputs.

Every case is a small stax graph (graph-format.md) with its inputs given as .npy files. Three
results are compared: PyTorch eager (the expected one), `staxc interpret` (the reference
interpreter) and `staxc run` (the generated code, built with the system compiler, for each
instruction set asked for). Dtypes and shapes must match exactly, ints and bools exactly, floats
within RTOL relative + ATOL absolute (NaN matches NaN, an infinity the same infinity, a zero a
zero of the same sign). The cases are written out below, one function per group, then come the
random graphs of test/randgraph (randgraph_dump). A graph PyTorch rejects must make
`staxc validate` exit with status 2, one it accepts must validate; an integer division by zero
and an index out of range must make both staxc commands exit with status 3. The convolution,
pooling, normalization and indexing groups live in torch_nn.py; graphs holding an op that code
generation does not lower yet (torch_nn.NOT_LOWERED) skip `staxc run`. Convolutions and average
pools are compared within the accumulation bound of graph-format.md (K u sum |a||b|).

Where graph-format.md's "Precise rules" deliberately differ from PyTorch (bool rejected by
`sign`, no zero-size values, ...) the case expects the documented behaviour and is counted as a
deviation, not a mismatch; differences left on purpose (the `known` of a case) are listed
apart. Where the installed PyTorch is older than 2.x and differs from it (`squeeze`, `any`,
`all`, `prod` with a list of dims, `rms_norm`, a float `correction`, the vectorized float
`remainder` and floor division), the 2.x semantics are computed from ops both versions share.

Run with the interpreter that has torch: /usr/bin/python3 scripts/torch_check.py [--staxc PATH]
Exit status: 0 when nothing differs (or torch is missing), 1 otherwise.
"""
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("skipped: no torch")
    sys.exit(0)

import argparse
import json
import math
import operator
import os
import re
import shutil
import subprocess
import tempfile
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

import torch_nn

RTOL, ATOL = 1e-5, 1e-6
DTYPES = ["float32", "float64", "int32", "int64", "bool"]
TORCH_DT = {"float32": torch.float32, "float64": torch.float64, "int32": torch.int32,
            "int64": torch.int64, "bool": torch.bool}
NP_DT = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "int64": np.int64,
         "bool": np.bool_}
DT_NAME = {v: k for k, v in TORCH_DT.items()}

# ---------------------------------------------------------------------------------------------
# Input data: special values first, then seeded random ones.

NAN, INF = float("nan"), float("inf")
F_SPECIAL = [NAN, INF, -INF, 0.0, -0.0, 1.4e-45, 1e-40, -1e-40, 1.1754944e-38, 3.4e38, -3.4e38,
             1e20, -1e20, 1e-20, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.5, -3.5, 0.49999997,
             88.0, -88.0, 89.0, -104.0, 100.0, -100.0, 1e6, 7.0, -7.0, 1e-7, 3.14159265,
             16777217.0, 0.75, -0.999, 1e-3]
F64_EXTRA = [5e-324, 1e-310, 1.7e308, -1.7e308, 1e200, 710.0, -745.0, 2.0 ** 53 + 1]
I32_SPECIAL = [0, 1, -1, 2, -2, 3, -3, 7, -7, 8, -8, 100, -100, 2 ** 31 - 1, -2 ** 31,
               2 ** 31 - 2, -2 ** 31 + 1, 65536, 46341, -46341, 16777217, 5, -5]
I64_SPECIAL = I32_SPECIAL + [2 ** 63 - 1, -2 ** 63, 2 ** 32, 3037000500, -3037000500,
                             2 ** 53 + 1, 2 ** 62]


def rng(tag):
    """A generator seeded from a case's tag, so a case's data does not depend on the others."""
    return np.random.default_rng([ord(c) for c in tag] or [0])


def data(dtype, shape, kind="special", tag="", nonzero=False):
    """An array of `dtype` and `shape`: `special` edge values then random ones, `normal`
    standard normal floats / small ints, `positive` values away from zero."""
    shape = tuple(shape)
    n = int(np.prod(shape)) if shape else 1
    g = rng(f"{tag}/{dtype}/{shape}/{kind}")
    if dtype == "bool":
        vals = g.integers(0, 2, n).astype(bool) | nonzero
        return vals.reshape(shape)
    if dtype.startswith("float"):
        if kind == "special":
            sp = F_SPECIAL + (F64_EXTRA if dtype == "float64" else [])
            rest = g.standard_normal(max(0, n - len(sp))) * 10.0 ** g.integers(-3, 4, max(0, n - len(sp)))
            vals = np.concatenate([np.array(sp[:n]), rest])
        elif kind == "positive":
            vals = np.abs(g.standard_normal(n)) + 0.1
        else:
            vals = g.standard_normal(n)
        if nonzero:
            vals[vals == 0] = 1.0
        with np.errstate(over="ignore"):
            return vals.astype(NP_DT[dtype]).reshape(shape)
    info = np.iinfo(NP_DT[dtype])
    if kind == "special":
        sp = [v for v in (I64_SPECIAL if dtype == "int64" else I32_SPECIAL)]
        rest = g.integers(-20, 21, max(0, n - len(sp)))
        vals = np.concatenate([np.array(sp[:n], dtype=np.int64).astype(NP_DT[dtype]),
                               rest.astype(NP_DT[dtype])])
    elif kind == "positive":
        vals = g.integers(1, 10, n).astype(NP_DT[dtype])
    else:
        vals = g.integers(-8, 9, n).astype(NP_DT[dtype])
    if nonzero:
        vals[vals == 0] = 3
    assert vals.min() >= info.min
    return vals.reshape(shape)


# ---------------------------------------------------------------------------------------------
# Cases.

@dataclass
class Case:
    group: str
    label: str
    inputs: "OrderedDict[str, np.ndarray]"
    nodes: list
    outputs: list
    constants: list = field(default_factory=list)   # graph constants, as the format writes them
    div_by_zero: bool = False        # an integer division by zero: exit status 3 expected
    index_error: bool = False        # an index out of range: exit status 3 expected
    rule: str = ""                    # a Precise rule that makes staxc reject what torch accepts
    known: str = ""                   # why a difference from PyTorch is left on purpose
    expected: object = None           # filled in: list of tensors, "reject" or "runtime-error"
    alternative: object = None        # unary ops: PyTorch element by element (its scalar path)
    tol: object = None                # per output, an absolute allowance per element (accumulations)
    torch_error: str = ""
    results: dict = field(default_factory=dict)


CASES = []


def add_case(group, label, inputs, nodes, outputs=("out",), **kw):
    CASES.append(Case(group, label, OrderedDict(inputs), list(nodes), list(outputs), **kw))


def node(op, *args, name="out", **attrs):
    return dict(name=name, op=op, args=list(args), **attrs)


def lit(v):
    """A scalar argument as the format writes it."""
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


N = 67          # an odd length beyond every vector width: vector bodies and tails


SLEEF_LOG1P = ("PyTorch's log1p (SLEEF) returns inf above 1e38 (float32) or 1e307 (float64); "
               "staxc returns the finite log1p, as std::log1p and NumPy do")
DOUBLE_ACCUMULATION = ("staxc accumulates float32 sums, products and matmuls in double; PyTorch in "
                       "float32, so its partial sums overflow or underflow where staxc's do not")


def unary_cases():
    ops = ["neg", "abs", "sign", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
           "rsqrt", "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
           "tanh", "sigmoid", "relu", "silu", "erf", "erfc", "floor", "ceil", "round", "trunc",
           "logical_not", "bitwise_not", "isnan", "isinf", "isfinite", "gelu"]
    for op in ops:
        for dt in DTYPES:
            known = SLEEF_LOG1P if op == "log1p" and dt.startswith("float") else ""
            add_case("unary", f"{op} {dt}", {"x": data(dt, [N], tag=op)}, [node(op, "x")], known=known)
    for dt in ["float32", "float64"]:
        x = {"x": data(dt, [N], tag="attr")}
        add_case("unary", f"gelu tanh {dt}", x, [node("gelu", "x", approximate="tanh")])
        add_case("unary", f"leaky_relu {dt}", x, [node("leaky_relu", "x")])
        add_case("unary", f"leaky_relu 0.2 {dt}", x, [node("leaky_relu", "x", negative_slope=0.2)])
        add_case("unary", f"clamp -0.5..0.75 {dt}", x, [node("clamp", "x", min=-0.5, max=0.75)])
        add_case("unary", f"clamp max only {dt}", x, [node("clamp", "x", max=1)])
        add_case("unary", f"clamp lo>hi {dt}", x, [node("clamp", "x", min=1.0, max=-1.0)])
        add_case("unary", f"clamp -inf..nan {dt}", x, [node("clamp", "x", min="-inf", max="nan")])
    for dt in ["int32", "int64", "bool"]:
        x = {"x": data(dt, [N], tag="clamp")}
        add_case("unary", f"clamp int bounds {dt}", x, [node("clamp", "x", min=-3, max=100)])
        add_case("unary", f"clamp float bound {dt}", x, [node("clamp", "x", min=-2.5)])
        add_case("unary", f"leaky_relu {dt}", x, [node("leaky_relu", "x")])
    add_case("unary", "clamp no bounds", {"x": data("float32", [3])}, [node("clamp", "x")])
    # Large and tiny arguments of the transcendental functions on a 2-D input.
    for op in ["exp", "expm1", "log1p", "tanh", "erf", "sigmoid", "sin", "gelu", "silu"]:
        g = rng(op)
        x = (g.standard_normal((9, 33)) * 30).astype(np.float32)
        add_case("unary", f"{op} wide range", {"x": x}, [node(op, "x")])


def binary_cases():
    ops = ["add", "sub", "mul", "div", "remainder", "pow", "maximum", "minimum", "atan2", "eq",
           "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
           "bitwise_and", "bitwise_or", "bitwise_xor"]
    int_ops = {"div", "remainder"}
    for op in ops:
        for dt in DTYPES:
            a = data(dt, [N], tag=op + "a")
            b = data(dt, [N], tag=op + "b", nonzero=op in int_ops)[::-1].copy()
            add_case("binary", f"{op} {dt}", {"a": a, "b": b}, [node(op, "a", "b")])
    # Division and remainder of ints with every sign combination, and the rounding modes.
    for dt in ["int32", "int64", "float32", "float64"]:
        a = np.array([7, -7, 7, -7, 0, 1, -1, 9, -9, 6, -6, 2, -2], dtype=NP_DT[dt])
        b = np.array([2, 2, -2, -2, 3, -4, 4, -3, 3, -3, 3, 5, 5], dtype=NP_DT[dt])
        ab = {"a": a, "b": b}
        for mode in [None, "trunc", "floor"]:
            attrs = {"rounding_mode": mode} if mode else {}
            add_case("division", f"div {mode} {dt}", ab, [node("div", "a", "b", **attrs)])
            add_case("division", f"div {mode} {dt} by -3", {"a": a}, [node("div", "a", -3, **attrs)])
            add_case("division", f"div {mode} 10 by {dt}", {"b": b}, [node("div", 10, "b", **attrs)])
            add_case("division", f"div {mode} {dt} by 2.5", {"a": a}, [node("div", "a", 2.5, **attrs)])
        add_case("division", f"remainder {dt}", ab, [node("remainder", "a", "b")])
        add_case("division", f"remainder {dt} by -3", {"a": a}, [node("remainder", "a", -3)])
        add_case("division", f"remainder 10 by {dt}", {"b": b}, [node("remainder", 10, "b")])
        add_case("division", f"remainder {dt} by 1.5", {"a": a}, [node("remainder", "a", 1.5)])
    for dt in ["float32", "float64"]:
        a = data(dt, [N], tag="fdiv")
        b = data(dt, [N], tag="fdivb")[::-1].copy()
        for mode in ["trunc", "floor"]:
            add_case("division", f"div {mode} {dt} specials", {"a": a, "b": b},
                     [node("div", "a", "b", rounding_mode=mode)])
        add_case("division", f"remainder {dt} specials", {"a": a, "b": b}, [node("remainder", "a", "b")])
        add_case("division", f"remainder {dt} by inf", {"a": a}, [node("remainder", "a", "inf")])
        add_case("division", f"remainder {dt} by -inf", {"a": a}, [node("remainder", "a", "-inf")])
        add_case("division", f"div {dt} by 0.0", {"a": a}, [node("div", "a", 0.0)])
        add_case("division", f"div {dt} by -0.0", {"a": a}, [node("div", "a", -0.0)])
    # INT_MIN / -1 and INT_MIN % -1 wrap (Precise rules); PyTorch traps on them, so the
    # expected values are written here: the quotient wraps to INT_MIN, the remainder is 0.
    for dt, lo in [("int32", -2 ** 31), ("int64", -2 ** 63)]:
        a = np.array([lo, lo, 5], dtype=NP_DT[dt])
        for mode in ["trunc", "floor"]:
            add_case("division", f"div {mode} {dt} INT_MIN by -1", {"a": a},
                     [node("div", "a", -1, rounding_mode=mode)],
                     expected=[torch.tensor([lo, lo, -5], dtype=TORCH_DT[dt])])
        add_case("division", f"remainder {dt} INT_MIN by -1", {"a": a}, [node("remainder", "a", -1)],
                 expected=[torch.tensor([0, 0, 0], dtype=TORCH_DT[dt])])
    # Integer division by zero: a run-time error of both staxc commands.
    for dt in ["int32", "int64"]:
        a = np.array([1, 2, 3], dtype=NP_DT[dt])
        b = np.array([1, 0, 3], dtype=NP_DT[dt])
        add_case("division", f"div floor {dt} by zero", {"a": a, "b": b},
                 [node("div", "a", "b", rounding_mode="floor")], div_by_zero=True)
        add_case("division", f"remainder {dt} by zero", {"a": a, "b": b},
                 [node("remainder", "a", "b")], div_by_zero=True)
    add_case("division", "div trunc int32 by literal 0", {"a": np.array([1, 2], np.int32)},
             [node("div", "a", 0, rounding_mode="trunc")], div_by_zero=True)
    # Integer overflow wraps.
    for dt, hi in [("int32", 2 ** 31 - 1), ("int64", 2 ** 63 - 1)]:
        a = np.array([hi, -hi - 1, hi, 3, -hi - 1], dtype=NP_DT[dt])
        b = np.array([1, -1, hi, hi, -1], dtype=NP_DT[dt])
        for op in ["add", "sub", "mul"]:
            add_case("overflow", f"{op} {dt} wraps", {"a": a, "b": b}, [node(op, "a", "b")])
        add_case("overflow", f"neg {dt} INT_MIN", {"a": a}, [node("neg", "a")])
        add_case("overflow", f"abs {dt} INT_MIN", {"a": a}, [node("abs", "a")])
        add_case("overflow", f"add {dt} + 1 literal", {"a": a}, [node("add", "a", 1)])
        add_case("overflow", f"mul {dt} * 3 literal", {"a": a}, [node("mul", "a", 3)])
    out_of_range = "a number beyond the range of the dtype it is stored in is an error"
    add_case("overflow", "add int32 + literal beyond int32", {"a": np.array([1, -5], np.int32)},
             [node("add", "a", 2 ** 31)], rule=out_of_range)
    add_case("overflow", "mul int32 * literal 2**40", {"a": np.array([1, 3], np.int32)},
             [node("mul", "a", 2 ** 40)], rule=out_of_range)
    # pow: integer exponents, negative ones, overflow, float exponents on ints.
    for dt in ["int32", "int64"]:
        base = np.array([2, -2, 1, -1, 0, 3, 7, -3, 10, 0], dtype=NP_DT[dt])
        ex = np.array([3, 3, -5, -5, 0, -1, 40, 5, 12, -2], dtype=NP_DT[dt])
        add_case("pow", f"pow {dt} tensor exponents", {"a": base, "b": ex}, [node("pow", "a", "b")])
        add_case("pow", f"pow {dt} ** 2", {"a": base}, [node("pow", "a", 2)])
        add_case("pow", f"pow {dt} ** 0", {"a": base}, [node("pow", "a", 0)])
        add_case("pow", f"pow {dt} ** -1 literal", {"a": base}, [node("pow", "a", -1)])
        add_case("pow", f"pow {dt} ** 0.5", {"a": base}, [node("pow", "a", 0.5)])
        add_case("pow", f"pow 2 ** {dt}", {"b": np.abs(ex)}, [node("pow", 2, "b")])
        add_case("pow", f"pow 2.0 ** {dt}", {"b": ex}, [node("pow", 2.0, "b")])
        add_case("pow", f"pow -1 ** {dt}", {"b": ex}, [node("pow", -1, "b")])
    for dt in ["float32", "float64"]:
        x = data(dt, [N], tag="pow")
        for e in [2, 3, -1, -2, 0.5, 0, 1.5, -0.5, "inf", "-inf", "nan"]:
            add_case("pow", f"pow {dt} ** {e}", {"x": x}, [node("pow", "x", e)])
        add_case("pow", f"pow 0.0 ** {dt}", {"x": x}, [node("pow", 0.0, "x")])
        add_case("pow", f"pow -2.0 ** {dt}", {"x": x}, [node("pow", -2.0, "x")])
        add_case("pow", f"pow {dt} ** {dt}", {"x": x, "e": x[::-1].copy()}, [node("pow", "x", "e")])
    add_case("pow", "pow bool ** bool", {"a": data("bool", [8]), "b": data("bool", [8], tag="b")},
             [node("pow", "a", "b")])
    add_case("pow", "pow int32 ** 2.0 float literal", {"a": np.array([3, -4], np.int32)},
             [node("pow", "a", 2.0)])


def promotion_cases():
    """Type promotion: every dtype pair, with 0-d tensors and Python scalars on either side."""
    scalars = [3, -2, 2.5, True, False, "inf", 0]
    for op in ["add", "mul", "maximum", "div", "eq", "lt", "sub", "atan2", "bitwise_or", "remainder", "pow"]:
        for da in DTYPES:
            for db in DTYPES:
                for sa, sb in [([N], [N]), ([N], []), ([], [N]), ([], []), ([5, 1], [3])]:
                    a = data(da, sa, kind="normal", tag="pa")
                    b = data(db, sb, kind="normal", tag="pb", nonzero=op == "remainder")
                    add_case("promotion", f"{op} {da}{sa} {db}{sb}", {"a": a, "b": b},
                             [node(op, "a", "b")])
            for s in scalars:
                if op == "remainder" and s in (0, False):
                    continue
                x = data(da, [7], kind="normal", tag="ps", nonzero=op == "remainder")
                add_case("promotion", f"{op} {da} {s!r}", {"x": x}, [node(op, "x", lit_of(s))])
                add_case("promotion", f"{op} {s!r} {da}", {"x": x}, [node(op, lit_of(s), "x")])
                x0 = data(da, [], kind="normal", tag="ps0", nonzero=op == "remainder")
                add_case("promotion", f"{op} {da}[] {s!r}", {"x": x0}, [node(op, "x", lit_of(s))])
    # The computation dtype of a comparison with a float literal is float32: 16777217 == 16777216.0.
    for dt in ["int32", "int64"]:
        x = np.array([16777217, 16777216, 3], dtype=NP_DT[dt])
        add_case("promotion", f"eq {dt} 16777217 vs 16777216.0", {"x": x}, [node("eq", "x", 16777216.0)])
        add_case("promotion", f"lt {dt} vs 16777217.0", {"x": x}, [node("lt", "x", 16777217.0)])
        add_case("promotion", f"add {dt} + 0.5", {"x": x}, [node("add", "x", 0.5)])
    x = np.array([2 ** 53 + 1, 2 ** 62 + 1, -(2 ** 62) - 1], dtype=np.int64)
    add_case("promotion", "eq int64 large vs float literal", {"x": x}, [node("eq", "x", 4611686018427387904.0)])
    add_case("promotion", "eq int64 large vs int64 literal", {"x": x}, [node("eq", "x", 2 ** 62 + 1)])
    add_case("promotion", "add float32 + 0.1 literal (double scalar)", {"x": data("float32", [N])},
             [node("add", "x", 0.1)])
    add_case("promotion", "mul float32 * 1e-45", {"x": data("float32", [N])}, [node("mul", "x", 1e-45)])
    add_case("promotion", "add float32 + 1e39 literal", {"x": data("float32", [5], kind="normal")},
             [node("add", "x", 1e39)], rule="a number beyond the range of the dtype it is stored in is an error")
    add_case("promotion", "int32 + float64[] inline", {"x": data("int32", [5])},
             [node("add", "x", node("to", node("full", shape=[], value=1.5, name=None), dtype="float64", name=None))])


def lit_of(s):
    return lit(s) if not isinstance(s, str) else s


def where_to_cases():
    c = data("bool", [N], tag="cond")
    for da in DTYPES:
        for db in DTYPES:
            add_case("where", f"where {da} {db}", {"c": c, "a": data(da, [N], tag="wa"),
                                                   "b": data(db, [N], tag="wb")},
                     [node("where", "c", "a", "b")])
        x = data(da, [N], tag="w1")
        for s in [2, 2.5, True, "nan"]:
            add_case("where", f"where {da} {s!r}", {"c": c, "x": x}, [node("where", "c", "x", s)])
            add_case("where", f"where {s!r} {da}", {"c": c, "x": x}, [node("where", "c", s, "x")])
        add_case("where", f"where {da}[] 0-d else", {"c": c, "x": data(da, [], tag="w0"),
                                                     "y0": data("int32", [N], tag="w0b")},
                 [node("where", "c", "y0", "x")])
    add_case("where", "where literal true", {"x": data("float32", [5])}, [node("where", True, "x", 0.0)])
    add_case("where", "where 2 3 literals", {"c": c}, [node("where", "c", 2, 3)])
    add_case("where", "where 2 3.5 literals", {"c": c}, [node("where", "c", 2, 3.5)])
    add_case("where", "where True 2 literals", {"c": c}, [node("where", "c", True, 2)])
    add_case("where", "where False -inf literals", {"c": c}, [node("where", "c", False, "-inf")])
    add_case("where", "where float condition", {"c": data("float32", [4]), "x": data("float32", [4])},
             [node("where", "c", "x", "x")])
    add_case("where", "where broadcast", {"c": data("bool", [4, 1]), "a": data("float32", [5]),
                                          "b": data("int64", [4, 5])}, [node("where", "c", "a", "b")])
    # to: every pair of dtypes on values each target can hold.
    safe = {"float32": np.array([0.0, -0.0, 1.5, -2.7, 100.9, -128.5, 3e9, 255.5, 1e-40, 0.5, -0.5, 7], np.float32),
            "float64": np.array([0.0, -0.0, 1.5, -2.7, 100.9, -128.5, 3e9, 1e-310, 0.49999999999, -1.0, 1e300, 7], np.float64),
            "int32": np.array([0, 1, -1, 2 ** 31 - 1, -2 ** 31, 16777217, 255, 256, -129, 7, 3, 2], np.int32),
            "int64": np.array([0, 1, -1, 2 ** 31 - 1, -2 ** 31, 2 ** 53 + 1, 2 ** 62, -2 ** 63, 2 ** 63 - 1, 2 ** 32 + 5, 3, 2], np.int64),
            "bool": np.array([True, False] * 6)}
    for src in DTYPES:
        for dst in DTYPES:
            x = safe[src]
            if src.startswith("float") and dst == "int32":
                x = x[np.abs(x) < 2 ** 31]
            if src.startswith("float") and dst == "int64":
                x = x[np.abs(x) < 2 ** 62]
            add_case("to", f"to {src} -> {dst}", {"x": x}, [node("to", "x", dtype=dst)])
    add_case("to", "to float32 nan/inf -> bool", {"x": data("float32", [N])}, [node("to", "x", dtype="bool")])
    add_case("to", "to float64 -> float32 specials", {"x": data("float64", [N])}, [node("to", "x", dtype="float32")])


def creation_cases():
    for v in [2, 2.5, True, -7, "inf", "nan", 0.0, -0.0, 2 ** 40]:
        add_case("creation", f"full {v!r}", {}, [node("full", shape=[2, 3], value=v)])
        for dt in DTYPES:
            add_case("creation", f"full {v!r} {dt}", {}, [node("full", shape=[5], value=v, dtype=dt)])
    add_case("creation", "full 0-d", {}, [node("full", shape=[], value=3)])
    add_case("creation", "full 2**40 int32", {}, [node("full", shape=[2], value=2 ** 40, dtype="int32")])
    add_case("creation", "full 1e40 float32", {}, [node("full", shape=[2], value=1e40, dtype="float32")])
    add_case("creation", "full empty shape [0]", {}, [node("full", shape=[0], value=1)], rule="no zero-size values")
    aranges = [dict(end=5), dict(end=5.0), dict(start=2, end=11, step=3), dict(start=10, end=0, step=-3),
               dict(start=0.0, end=1.0, step=0.1), dict(start=-1, end=1, step=0.25),
               dict(start=1, end=2, step=0.3), dict(end=10, dtype="float64"), dict(end=10, dtype="int32"),
               dict(start=0, end=1.5, step=0.5, dtype="float64"), dict(end=2.5, dtype="int64"),
               dict(start=0, end=5, step=0), dict(start=5, end=0), dict(end=3, dtype="bool"),
               dict(start=2 ** 40, end=2 ** 40 + 3), dict(start=0.1, end=0.7, step=0.2, dtype="float32")]
    for a in aranges:
        rule = "no zero-size values" if a == dict(start=5, end=0) else ""
        if a.get("dtype") == "int64" and isinstance(a.get("end"), float):
            rule = "an int arange dtype needs int arguments"
        add_case("creation", "arange " + json.dumps(a), {}, [node("arange", **a)], rule=rule)


def reduction_cases():
    ops = ["sum", "mean", "prod", "amax", "amin", "any", "all", "var", "std", "logsumexp",
           "argmax", "argmin"]
    dims = [None, 0, -1, 1, [0, 2], [-1, 0], [1], [0, 1, 2]]
    for op in ops:
        for dt in DTYPES:
            for kind in ["normal", "special"]:
                x = data(dt, [4, 5, 6], kind=kind, tag=op)
                if kind == "special" and dt.startswith("float") and op in ("sum", "mean", "var", "std", "prod"):
                    # PyTorch and staxc sum in different orders: keep the magnitudes from
                    # overflowing or cancelling, keep the NaN, infinities and signed zeros.
                    x = np.where(np.abs(x) > 1e3, np.float32(3.0), x).astype(x.dtype)
                for d in dims:
                    if op in ("argmax", "argmin") and isinstance(d, list):
                        continue
                    for keep in [False, True]:
                        attrs = {"keepdim": keep}
                        if d is not None:
                            attrs["dim"] = d
                        if kind == "special" and (keep or d not in (None, 1)):
                            continue
                        rule = ""
                        if op == "logsumexp" and not dt.startswith("float"):
                            rule = "logsumexp rejects int and bool"
                        add_case("reduction", f"{op} {dt} {kind} dim={d} keep={keep}", {"x": x},
                                 [node(op, "x", **attrs)], rule=rule)
    x = data("float32", [4, 5], kind="normal", tag="var")
    for corr in [0, 1, 2, 0.5, 5, 4]:
        for op in ["var", "std"]:
            add_case("reduction", f"{op} correction={corr}", {"x": x}, [node(op, "x", dim=1, correction=corr)])
            add_case("reduction", f"{op} all correction={corr}", {"x": x}, [node(op, "x", correction=corr)])
    add_case("reduction", "var one element", {"x": data("float64", [3, 1])}, [node("var", "x", dim=1)])
    add_case("reduction", "std float64 dim=-1 keep", {"x": data("float64", [3, 8], kind="normal")},
             [node("std", "x", dim=-1, keepdim=True, correction=0)])
    for op in ["sum", "amax", "argmax", "prod", "any", "mean", "logsumexp"]:
        for dt in ["float32", "int64"]:
            x0 = data(dt, [], kind="normal", tag="0d")
            rule = "logsumexp rejects int and bool" if op == "logsumexp" and dt == "int64" else ""
            add_case("reduction", f"{op} 0-d {dt}", {"x": x0}, [node(op, "x")], rule=rule)
            add_case("reduction", f"{op} 0-d {dt} dim=0", {"x": x0}, [node(op, "x", dim=0)], rule=rule)
            add_case("reduction", f"{op} 0-d {dt} dim=-1 keep", {"x": x0}, [node(op, "x", dim=-1, keepdim=True)], rule=rule)
    x = data("float32", [3, 4], kind="normal")
    add_case("reduction", "sum dim=[] rejected", {"x": x}, [node("sum", "x", dim=[])], rule="dim [] is an error")
    add_case("reduction", "sum dim=2 out of range", {"x": x}, [node("sum", "x", dim=2)])
    add_case("reduction", "sum dim=[0,0] repeated", {"x": x}, [node("sum", "x", dim=[0, 0])])
    add_case("reduction", "sum dim=[0,-2] repeated", {"x": x}, [node("sum", "x", dim=[0, -2])])
    add_case("reduction", "argmax dim list", {"x": x}, [node("argmax", "x", dim=[0])])
    add_case("reduction", "mean int32", {"x": data("int32", [3])}, [node("mean", "x")])
    # Integer sums that overflow int32 but not int64, and int64 wraparound.
    big = np.array([2 ** 31 - 1] * 8 + [5], np.int32)
    add_case("reduction", "sum int32 beyond int32", {"x": big}, [node("sum", "x")])
    add_case("reduction", "prod int32 beyond int32", {"x": big[:3]}, [node("prod", "x")])
    add_case("reduction", "sum int64 wraps", {"x": np.array([2 ** 63 - 1, 1, 5], np.int64)}, [node("sum", "x")])
    add_case("reduction", "prod int64 wraps", {"x": np.array([2 ** 62, 4, 3], np.int64)}, [node("prod", "x")])
    add_case("reduction", "sum bool", {"x": data("bool", [N])}, [node("sum", "x")])
    add_case("reduction", "amax ties and nan first", {"x": np.array([1, NAN, 3, NAN, 3], np.float32)},
             [node("argmax", "x")])
    add_case("reduction", "argmin ties", {"x": np.array([[2, 1, 1], [0, 0, 5]], np.int32)},
             [node("argmin", "x", dim=1)])
    add_case("reduction", "argmax -inf only", {"x": np.array([-INF, -INF], np.float32)}, [node("argmax", "x")])
    add_case("reduction", "argmax keepdim no dim", {"x": data("float32", [3, 4], kind="normal")},
             [node("argmax", "x", keepdim=True)])
    add_case("reduction", "logsumexp all -inf", {"x": np.array([[-INF, -INF], [1, INF]], np.float32)},
             [node("logsumexp", "x", dim=1)])
    add_case("reduction", "logsumexp large", {"x": np.array([[1e30, 1e30], [-1e30, 3]], np.float32)},
             [node("logsumexp", "x", dim=1)])
    add_case("reduction", "amax of -0.0 and 0.0", {"x": np.array([-0.0, 0.0, -0.0], np.float32)},
             [node("amax", "x")])
    # Long rows: blocked and vectorized reductions.
    g = rng("long")
    xl = g.standard_normal((3, 1000)).astype(np.float32)
    for op in ["sum", "mean", "amax", "var", "logsumexp", "argmax", "prod"]:
        xi = xl if op != "prod" else (1 + 0.001 * xl).astype(np.float32)
        add_case("reduction", f"{op} long rows", {"x": xi}, [node(op, "x", dim=1)])
        add_case("reduction", f"{op} long columns", {"x": xi.T.copy()}, [node(op, "x", dim=0)])
    xi = g.integers(-2 ** 31, 2 ** 31, (3, 1000)).astype(np.int32)
    add_case("reduction", "sum int32 long rows", {"x": xi}, [node("sum", "x", dim=1)])
    add_case("reduction", "amin int32 long rows", {"x": xi}, [node("amin", "x", dim=1)])
    for op in ["cumsum", "cumprod"]:
        for dt in DTYPES:
            for d in [0, 1, -1]:
                x = data(dt, [5, 7], kind="normal" if op == "cumprod" else "special", tag=op)
                add_case("scan", f"{op} {dt} dim={d}", {"x": x}, [node(op, "x", dim=d)])
        add_case("scan", f"{op} 0-d", {"x": data("float32", [])}, [node(op, "x", dim=0)])
        add_case("scan", f"{op} dim out of range", {"x": data("float32", [3])}, [node(op, "x", dim=1)])
        add_case("scan", f"{op} long", {"x": (1 + 0.001 * xl).astype(np.float32)}, [node(op, "x", dim=1)])
    add_case("scan", "cumsum int64 wraps", {"x": np.array([2 ** 63 - 1, 1, 1], np.int64)}, [node("cumsum", "x", dim=0)])
    add_case("scan", "cumsum nan inf", {"x": np.array([1, INF, -INF, 2, NAN, 3], np.float32)}, [node("cumsum", "x", dim=0)])


def view_cases():
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    X = {"x": x}
    v = lambda label, nd, rule="": add_case("view", label, X, [nd], rule=rule)
    for shp in [[4, 6], [-1], [6, -1], [2, -1, 2], [24], [1, 24, 1], [5, 5], [-1, -1], [0, -1]]:
        v(f"reshape {shp}", node("reshape", "x", shape=shp), rule="no zero-size values" if shp == [0, -1] else "")
    for dims in [[2, 0, 1], [-1, -2, -3], [0, 0, 1], [0, 1]]:
        v(f"permute {dims}", node("permute", "x", dims=dims))
    for d0, d1 in [(0, 2), (-1, 0), (1, 1), (0, 3)]:
        v(f"transpose {d0} {d1}", node("transpose", "x", dim0=d0, dim1=d1))
    for d in [0, 3, -1, -4, 4, -5]:
        v(f"unsqueeze {d}", node("unsqueeze", "x", dim=d))
    y = {"y0": np.arange(6, dtype=np.int32).reshape(1, 3, 1, 2)}
    for d in [None, 0, 2, -2, 1, [0, 2], [0, -2], [1], [0, 0]]:
        attrs = {} if d is None else {"dim": d}
        add_case("view", f"squeeze {d}", y, [node("squeeze", "y0", **attrs)])
    add_case("view", "squeeze []", y, [node("squeeze", "y0", dim=[])], rule="squeeze dim [] is an error")
    add_case("view", "squeeze 0-d dim=0", {"s": data("float32", [])}, [node("squeeze", "s", dim=0)])
    for s, e in [(0, -1), (1, 2), (-2, -1), (0, 0), (2, 1), (0, 3)]:
        v(f"flatten {s} {e}", node("flatten", "x", start_dim=s, end_dim=e))
    add_case("view", "flatten 0-d", {"s": data("float32", [])}, [node("flatten", "s")])
    for shp in [[3, 2, 3, 4], [-1, 3, 4], [2, 3, 4], [2, 1, 4], [4, 2, 3, 4], [2, -1, -1]]:
        v(f"expand {shp}", node("expand", "x", shape=shp))
    add_case("view", "expand [3,1]->[3,5]", {"c": data("float32", [3, 1])}, [node("expand", "c", shape=[3, 5])])
    add_case("view", "expand 0-d", {"s": data("int64", [])}, [node("expand", "s", shape=[2, 3])])
    for d, st, en, sp in [(2, 1, 3, 1), (2, -3, None, 2), (0, None, None, 1), (1, 5, None, 1),
                          (-1, -100, 100, 3), (1, 2, 1, 1), (2, 0, 4, 5), (1, None, -1, 2), (2, 1, 3, 0),
                          (2, 1, 3, -1), (3, 0, 1, 1)]:
        attrs = {"dim": d, "step": sp}
        if st is not None:
            attrs["start"] = st
        if en is not None:
            attrs["end"] = en
        empty = (d == 1 and st == 5) or (d == 1 and st == 2 and en == 1)
        rule = "no zero-size values" if empty else ("slice step >= 1" if sp == -1 else "")
        v(f"slice {attrs}", node("slice", "x", **attrs), rule=rule)
    for d, i in [(0, 1), (1, -1), (-1, 3), (2, 4), (0, -3), (1, -3)]:
        v(f"select {d} {i}", node("select", "x", dim=d, index=i))
    add_case("view", "select 0-d", {"s": data("float32", [])}, [node("select", "s", dim=0, index=0)])
    # Views of views, then arithmetic on them (strided reads in generated code).
    v("transpose then add", node("add", node("transpose", "x", dim0=0, dim1=2, name=None), 1.0))
    v("slice step then exp", node("exp", node("slice", "x", dim=2, start=1, step=2, name=None)))
    v("permute reshape", node("reshape", node("permute", "x", dims=[2, 0, 1], name=None), shape=[4, 6]))
    v("select expand", node("expand", node("select", "x", dim=1, index=2, name=None), shape=[3, 2, 4]))
    # cat
    a, b = data("float32", [2, 3], tag="ca"), data("float32", [2, 5], tag="cb")
    add_case("view", "cat dim=1", {"a": a, "b": b}, [node("cat", "a", "b", dim=1)])
    add_case("view", "cat dim=-1", {"a": a, "b": b}, [node("cat", "a", "b", dim=-1)])
    add_case("view", "cat dim=0 mismatch", {"a": a, "b": b}, [node("cat", "a", "b", dim=0)])
    add_case("view", "cat one arg", {"a": a}, [node("cat", "a", dim=0)])
    add_case("view", "cat three, int32 int64 bool", {"a": data("int32", [2, 2]), "b": data("int64", [1, 2]),
                                                     "c": data("bool", [3, 2])},
             [node("cat", "a", "b", "c", dim=0)])
    add_case("view", "cat float32 int64", {"a": a, "b": data("int64", [2, 1])}, [node("cat", "a", "b", dim=1)])
    add_case("view", "cat 0-d", {"s": data("float32", [])}, [node("cat", "s", "s", dim=0)])
    add_case("view", "cat rank mismatch", {"a": a, "b": data("float32", [3])}, [node("cat", "a", "b", dim=0)])
    add_case("view", "cat of itself", {"a": a}, [node("cat", "a", "a", dim=0)])
    # pad
    for p, val in [([1, 2], 0), ([1, 1, 2, 0], 1.5), ([0, 0, 0, 0, 1, 1], "-inf"), ([-1, 1], 0),
                   ([-2, -1, 1, 0], 7), ([1], 0), ([1, 1, 1, 1, 1, 1, 1, 1], 0), ([0, 0], 0), ([-4, 0], 0)]:
        rule = "no zero-size values" if p == [-4, 0] else ""
        v(f"pad {p} {val}", node("pad", "x", pad=p, value=val), rule=rule)
    add_case("view", "pad int32 value 2.5", {"i": data("int32", [3, 3])}, [node("pad", "i", pad=[1, 1], value=2.5)])
    add_case("view", "pad int32 value 2", {"i": data("int32", [3, 3])}, [node("pad", "i", pad=[1, 1], value=2)])
    add_case("view", "pad bool", {"i": data("bool", [3])}, [node("pad", "i", pad=[1, 0], value=True)])


def composite_cases():
    g = rng("comp")
    for dt in ["float32", "float64"]:
        x = (g.standard_normal((4, 37)) * 3).astype(NP_DT[dt])
        xs = data(dt, [3, 39], tag="comp")
        for op in ["softmax", "log_softmax"]:
            for d in [0, 1, -1]:
                add_case("composite", f"{op} {dt} dim={d}", {"x": x}, [node(op, "x", dim=d)])
            add_case("composite", f"{op} {dt} specials", {"x": xs}, [node(op, "x", dim=1)])
            add_case("composite", f"{op} {dt} huge", {"x": np.array([[1e30, -1e30, 0], [-INF, 0, 1]], NP_DT[dt])},
                     [node(op, "x", dim=1)])
        w = g.standard_normal(37).astype(NP_DT[dt])
        b = g.standard_normal(37).astype(NP_DT[dt])
        add_case("composite", f"layer_norm {dt}", {"x": x}, [node("layer_norm", "x", normalized_shape=37)])
        add_case("composite", f"layer_norm {dt} w b", {"x": x, "w": w, "b": b},
                 [node("layer_norm", "x", "w", "b", normalized_shape=[37], eps=1e-3)])
        add_case("composite", f"layer_norm {dt} bias only", {"x": x, "b": b},
                 [node("layer_norm", "x", None, "b", normalized_shape=[37])])
        add_case("composite", f"layer_norm {dt} 2 dims", {"x": x}, [node("layer_norm", "x", normalized_shape=[4, 37])])
        add_case("composite", f"layer_norm {dt} constant row", {"x": np.full((2, 8), 3.0, NP_DT[dt])},
                 [node("layer_norm", "x", normalized_shape=8)])
        add_case("composite", f"rms_norm {dt}", {"x": x}, [node("rms_norm", "x", normalized_shape=37)])
        add_case("composite", f"rms_norm {dt} w eps", {"x": x, "w": w},
                 [node("rms_norm", "x", "w", normalized_shape=[37], eps=1e-2)])
        add_case("composite", f"rms_norm {dt} zeros", {"x": np.zeros((2, 8), NP_DT[dt])},
                 [node("rms_norm", "x", normalized_shape=8)])
        W = g.standard_normal((5, 37)).astype(NP_DT[dt])
        add_case("composite", f"linear {dt}", {"x": x, "W": W, "b": b[:5]}, [node("linear", "x", "W", "b")])
        add_case("composite", f"linear {dt} no bias", {"x": x, "W": W}, [node("linear", "x", "W")])
        add_case("composite", f"gelu {dt} specials", {"x": xs}, [node("gelu", "x")])
    add_case("composite", "layer_norm wrong shape", {"x": data("float32", [4, 5])},
             [node("layer_norm", "x", normalized_shape=[4])])
    add_case("composite", "softmax int", {"x": data("int32", [4])}, [node("softmax", "x", dim=0)])
    add_case("composite", "linear mixed dtypes", {"x": data("float32", [2, 3]), "W": data("float64", [4, 3])},
             [node("linear", "x", "W")])
    # matmul: 1-D, 2-D, batched with broadcast batch dims, ints.
    shapes = [([5], [5]), ([3, 5], [5]), ([5], [5, 4]), ([3, 5], [5, 4]), ([2, 3, 5], [5, 4]),
              ([2, 1, 3, 5], [4, 5, 2]), ([5], [2, 5, 3]), ([3, 5], [4, 4]), ([17, 33], [33, 19])]
    for sa, sb in shapes:
        for dt in ["float32", "int64", "float64", "int32"]:
            kind = "normal"
            add_case("matmul", f"matmul {dt} {sa} @ {sb}",
                     {"a": data(dt, sa, kind=kind, tag="ma"), "b": data(dt, sb, kind=kind, tag="mb")},
                     [node("matmul", "a", "b")])
    add_case("matmul", "matmul int32 @ float32", {"a": data("int32", [2, 3]), "b": data("float32", [3, 2])},
             [node("matmul", "a", "b")])
    add_case("matmul", "matmul bool", {"a": data("bool", [2, 3]), "b": data("bool", [3, 2])},
             [node("matmul", "a", "b")])
    add_case("matmul", "matmul 0-d", {"a": data("float32", []), "b": data("float32", [3])},
             [node("matmul", "a", "b")])
    add_case("matmul", "matmul nan inf", {"a": np.array([[INF, 0.0], [NAN, 1.0]], np.float32),
                                          "b": np.array([[1.0, 0.0], [2.0, 3.0]], np.float32)},
             [node("matmul", "a", "b")])


def broadcast_cases():
    sh = [([3, 1, 5], [4, 1]), ([1], [2, 3]), ([2, 3], [3, 3]), ([4, 1, 1], [1, 3, 1]), ([], [2, 2]),
          ([2, 1, 3], [2, 4, 3])]
    for sa, sb in sh:
        add_case("broadcast", f"add {sa} {sb}", {"a": data("float32", sa, tag="ba"), "b": data("int32", sb, tag="bb")},
                 [node("add", "a", "b")])
        add_case("broadcast", f"lt {sa} {sb}", {"a": data("int64", sa, tag="ba"), "b": data("float64", sb, tag="bb")},
                 [node("lt", "a", "b")])
    # A chain of ops with broadcast inline nodes and an output that is an input.
    add_case("broadcast", "softmax by hand", {"x": data("float32", [8, 33], kind="normal")},
             [node("amax", "x", name="m", dim=[-1], keepdim=True),
              node("exp", node("sub", "x", "m", name=None), name="e"),
              node("sum", "e", name="s", dim=-1, keepdim=True),
              node("div", "e", "s")], outputs=["out", "x", "m"])
    add_case("broadcast", "arity: add with one arg", {"x": data("float32", [3])}, [node("add", "x")])
    add_case("broadcast", "arity: exp with two args", {"x": data("float32", [3])}, [node("exp", "x", "x")])
    add_case("broadcast", "two scalars", {}, [node("add", 1, 2)], rule="one argument must be a tensor")


def long_cases():
    """Rows long enough for the vector and blocked paths, with NaN, infinities and signed zeros
    at chosen places, and values whose variance cancels."""
    g = rng("longnan")
    base = g.standard_normal((6, 301)).astype(np.float32)
    x = base.copy()
    x[0, 150] = NAN
    x[1, 0] = NAN
    x[2, 300] = NAN
    x[3, 17] = INF
    x[3, 200] = -INF
    x[4, :] = -INF
    x[5, :] = -0.0
    for op in ["amax", "amin", "argmax", "argmin", "sum", "prod", "mean", "logsumexp", "any", "all",
               "var", "std"]:
        add_case("long", f"{op} rows with nan/inf", {"x": x}, [node(op, "x", dim=1)])
        add_case("long", f"{op} columns with nan/inf", {"x": x.T.copy()}, [node(op, "x", dim=0)])
        add_case("long", f"{op} of a transposed view", {"x": x},
                 [node(op, node("transpose", "x", dim0=0, dim1=1, name=None), dim=0)])
    for op in ["softmax", "log_softmax", "cumsum", "cumprod"]:
        add_case("long", f"{op} rows with nan/inf", {"x": x}, [node(op, "x", dim=1)])
    for op in ["maximum", "minimum"]:
        add_case("long", f"{op} with nan both sides", {"x": x, "x2": x[::-1].copy()}, [node(op, "x", "x2")])
    shifted = (1e4 + base).astype(np.float32)
    for op in ["var", "std"]:
        add_case("long", f"{op} with a large mean", {"x": shifted}, [node(op, "x", dim=1)])
        add_case("long", f"{op} all with a large mean", {"x": shifted}, [node(op, "x")])
    xi = g.integers(-2 ** 31, 2 ** 31, (5, 301)).astype(np.int32)
    for op in ["sum", "prod", "amax", "amin", "argmax", "argmin", "cumsum", "any"]:
        attrs = {"dim": 1}
        add_case("long", f"{op} int32 rows", {"x": xi}, [node(op, "x", **attrs)])
    xl = g.integers(-2 ** 62, 2 ** 62, (4, 301)).astype(np.int64)
    for op in ["sum", "prod", "cumprod", "amax", "argmin"]:
        add_case("long", f"{op} int64 rows wrap", {"x": xl}, [node(op, "x", dim=1)])
    add_case("long", "matmul int32 wraps", {"a": xi[:, :40].copy(), "b": xi[:, :40].T.copy()}, [node("matmul", "a", "b")])
    add_case("long", "matmul int64 wraps", {"a": xl[:, :40].copy(), "b": xl[:, :40].T.copy()}, [node("matmul", "a", "b")])
    add_case("long", "linear 1-D x", {"x": base[0, :37].copy(), "w": base[:3, :37].copy()}, [node("linear", "x", "w")])
    add_case("long", "linear 1-D weight", {"x": base[:3, :37].copy(), "w": base[0, :37].copy()}, [node("linear", "x", "w")])
    add_case("long", "linear 1-D both", {"x": base[1, :37].copy(), "w": base[0, :37].copy(),
                                          "b": np.array(1.5, np.float32)}, [node("linear", "x", "w", "b")])
    b = np.array([True, False] * 150 + [True])
    add_case("long", "sum bool long", {"x": b}, [node("sum", "x")])
    add_case("long", "cumsum bool long", {"x": b}, [node("cumsum", "x", dim=0)])
    add_case("long", "where with nan scalar long", {"c": b, "x": base[0].copy()}, [node("where", "c", "x", "nan")])


def layout_cases():
    """Transposed, permuted and broadcast operands of many shapes: the tiled and strided loops
    of the generated code."""
    for shape in [(33, 65), (64, 64), (16, 1000), (1000, 3), (1, 67), (67, 1), (8, 8), (9, 17)]:
        r, c = shape
        for dt in ["float32", "int32", "float64"]:
            x = data(dt, [r, c], kind="normal", tag="lx")
            y = data(dt, [c, r], kind="normal", tag="ly")
            lbl = f"{dt}[{r}, {c}]"
            add_case("layout", f"x + y^T {lbl}", {"x": x, "y": y},
                     [node("add", "x", node("transpose", "y", dim0=0, dim1=1, name=None))])
            add_case("layout", f"x^T * 2 {lbl}", {"x": x},
                     [node("mul", node("permute", "x", dims=[1, 0], name=None), 2)])
            add_case("layout", f"sum dim 0 of y^T {lbl}", {"y": y},
                     [node("sum", node("transpose", "y", dim0=0, dim1=1, name=None), dim=0)])
            add_case("layout", f"amax dim 1 of y^T {lbl}", {"y": y},
                     [node("amax", node("transpose", "y", dim0=0, dim1=1, name=None), dim=1, keepdim=True)])
            add_case("layout", f"x - mean(x, 0) {lbl}", {"x": x.astype(np.float64)},
                     [node("sub", "x", node("mean", "x", dim=0, keepdim=True, name=None))])
            add_case("layout", f"x + y^T into float64 {lbl}", {"x": x, "y": y.astype(np.float64)},
                     [node("add", "x", node("transpose", "y", dim0=0, dim1=1, name=None))])
            add_case("layout", f"where(x > y^T) {lbl}", {"x": x, "y": y},
                     [node("where", node("gt", "x", node("transpose", "y", dim0=0, dim1=1, name=None), name=None), "x", 0)])
    for shape, dims in [((5, 7, 300), [2, 0, 1]), ((4, 33, 9), [1, 2, 0]), ((3, 4, 5), [2, 1, 0]),
                        ((16, 16, 16), [0, 2, 1])]:
        x = data("float32", list(shape), kind="normal", tag="p3")
        add_case("layout", f"permute {shape} {dims} + 1", {"x": x}, [node("add", node("permute", "x", dims=dims, name=None), 1.0)])
        add_case("layout", f"sum over permuted {shape} {dims}", {"x": x},
                 [node("sum", node("permute", "x", dims=dims, name=None), dim=[0, 2])])
        add_case("layout", f"softmax over permuted {shape} {dims}", {"x": x},
                 [node("softmax", node("permute", "x", dims=dims, name=None), dim=1)])
        add_case("layout", f"x + x permuted back {shape}", {"x": x},
                 [node("add", "x", node("permute", node("permute", "x", dims=dims, name=None),
                                        dims=[dims.index(k) for k in range(3)], name=None))])
    x = data("float32", [12, 40], kind="normal", tag="sl")
    add_case("layout", "slice step 3 of transpose + expand", {"x": x},
             [node("add", node("slice", node("transpose", "x", dim0=0, dim1=1, name=None), dim=0, start=1, step=3, name=None),
                   node("expand", node("slice", "x", dim=1, start=0, end=1, name=None), shape=[12, 12], name=None))])
    add_case("layout", "cat of transposes", {"x": x},
             [node("cat", node("transpose", "x", dim0=0, dim1=1, name=None),
                   node("transpose", "x", dim0=0, dim1=1, name=None), dim=1)])
    add_case("layout", "pad of transpose then sum", {"x": x},
             [node("sum", node("pad", node("transpose", "x", dim0=0, dim1=1, name=None), pad=[1, 2, 3, 0], value=0.5, name=None), dim=1)])


def zero_dim_cases():
    """Shape ops, composites and chains on 0-d tensors."""
    s = {"s": np.array(2.5, np.float32)}
    for label, nd in [("unsqueeze 0", node("unsqueeze", "s", dim=0)), ("unsqueeze -1", node("unsqueeze", "s", dim=-1)),
                      ("unsqueeze 1", node("unsqueeze", "s", dim=1)), ("reshape [1, 1]", node("reshape", "s", shape=[1, 1])),
                      ("reshape [-1]", node("reshape", "s", shape=[-1])), ("permute []", node("permute", "s", dims=[])),
                      ("transpose 0 -1", node("transpose", "s", dim0=0, dim1=-1)), ("squeeze", node("squeeze", "s")),
                      ("expand []", node("expand", "s", shape=[])), ("softmax", node("softmax", "s", dim=0)),
                      ("log_softmax", node("log_softmax", "s", dim=-1)), ("var", node("var", "s")),
                      ("var correction 0", node("var", "s", correction=0)), ("std dim 0", node("std", "s", dim=0, correction=0)),
                      ("argmin", node("argmin", "s")), ("cumsum -1", node("cumsum", "s", dim=-1)),
                      ("where", node("where", node("gt", "s", 0, name=None), "s", -1)),
                      ("pad", node("pad", "s", pad=[1, 1])), ("slice", node("slice", "s", dim=0, start=0, end=1)),
                      ("layer_norm []", node("layer_norm", "s", normalized_shape=[])),
                      ("matmul 0-d", node("matmul", "s", "s"))]:
        add_case("0-d", label, s, [nd])
    add_case("0-d", "select 1-D to 0-d then add", {"v": data("float32", [5])},
             [node("add", node("select", "v", dim=0, index=-1, name=None), 1)])
    add_case("0-d", "sum to 0-d then broadcast", {"v": data("float32", [5], kind="normal")},
             [node("sub", "v", node("sum", "v", name=None))])


def accumulation_cases():
    """Sums that overflow or lose precision in float32 and wrap in ints."""
    big = np.array([3e38, 3e38, -3e38, -3e38], np.float32)
    for op in ["sum", "mean", "cumsum", "var", "logsumexp"]:
        known = DOUBLE_ACCUMULATION if op in ("sum", "mean") else ""
        add_case("accumulate", f"{op} float32 past the float32 range", {"x": big}, [node(op, "x", dim=0)], known=known)
    add_case("accumulate", "prod float32 underflow then overflow", {"x": np.array([1e-30, 1e-30, 1e30, 1e30], np.float32)},
             [node("prod", "x")], known=DOUBLE_ACCUMULATION)
    add_case("accumulate", "matmul float32 past the range", {"a": big.reshape(1, 4).copy(), "b": np.ones((4, 1), np.float32)},
             [node("matmul", "a", "b")], known=DOUBLE_ACCUMULATION)
    x = np.array([1.0] + [1e-8] * 1000, np.float32)
    add_case("accumulate", "sum float32 of tiny terms", {"x": x}, [node("sum", "x")])
    add_case("accumulate", "cumsum float32 of tiny terms", {"x": x}, [node("cumsum", "x", dim=0)])
    add_case("accumulate", "sum int32 into int64 long", {"x": np.full(3000, 2 ** 31 - 1, np.int32)}, [node("sum", "x")])
    add_case("accumulate", "cumsum int32 into int64", {"x": np.full(3000, 2 ** 31 - 1, np.int32)}, [node("cumsum", "x", dim=0)])


def error_cases():
    """Graphs PyTorch rejects: staxc must reject them with status 2."""
    x = {"x": data("float32", [3, 4], kind="normal")}
    bad = [("cat dim out of range", node("cat", "x", "x", dim=2)),
           ("expand to a smaller size", node("expand", "x", shape=[3, 2])),
           ("expand with fewer dims", node("expand", "x", shape=[4])),
           ("reshape to another numel", node("reshape", "x", shape=[5, -1])),
           ("reshape with two -1", node("reshape", "x", shape=[-1, -1])),
           ("softmax dim out of range", node("softmax", "x", dim=2)),
           ("gelu approximate 'foo'", node("gelu", "x", approximate="foo")),
           ("full negative size", node("full", shape=[-1, 2], value=1)),
           ("layer_norm weight of another shape", node("layer_norm", "x", "x", normalized_shape=[4])),
           ("linear bias of another shape", node("linear", "x", "x", "x")),
           ("transpose dim out of range", node("transpose", "x", dim0=0, dim1=-3)),
           ("select dim out of range", node("select", "x", dim=2, index=0)),
           ("flatten start after end", node("flatten", "x", start_dim=1, end_dim=0)),
           ("permute too few dims", node("permute", "x", dims=[0])),
           ("argmax dim out of range", node("argmax", "x", dim=-3)),
           ("var dim out of range", node("var", "x", dim=[0, 5])),
           ("matmul of mismatched inner dims", node("matmul", "x", "x")),
           ("where of mismatched shapes", node("where", node("gt", "x", 0, name=None), "x", node("transpose", "x", dim0=0, dim1=1, name=None))),
           ("bitwise_and of float and int", node("bitwise_and", "x", 1)),
           ("logical_not of a 2-arg call", node("logical_not", "x", "x")),
           ("div rounding_mode 'round'", node("div", "x", 2, rounding_mode="round")),
           ("pad of odd length", node("pad", "x", pad=[1, 2, 3])),
           ("unsqueeze out of range", node("unsqueeze", "x", dim=3))]
    for label, nd in bad:
        add_case("errors", label, x, [nd])


LAYER_NORM_ZERO = ("PyTorch's layer_norm computes x * (rstd * w) - mean * rstd * w, so a constant row "
                   "gives +0.0 where staxc's (x - mean) * rstd * w gives -0.0 under a negative weight")
KNOWN_RANDOM = {557: LAYER_NORM_ZERO, 974: LAYER_NORM_ZERO}


def random_cases(dump, count):
    """Graphs of the project's random generator (test/randgraph), seeds 0 to count - 1, with
    finite inputs drawn here: PyTorch's results on graphs nobody wrote by hand."""
    for seed in range(count):
        flags = ["--finite"] if seed % 2 else []     # odd seeds finite, even ones with inf and nan
        text = subprocess.run([dump, str(seed)] + flags, capture_output=True, text=True, check=True).stdout
        g = json.loads(text)
        if any(k.get("file") for k in g.get("constants", [])):
            continue
        inputs = OrderedDict((k["name"], data(k["dtype"], k["shape"], kind="normal", tag=f"rg{seed}{k['name']}"))
                             for k in g["inputs"])
        add_case("random", f"randgraph seed {seed}", inputs, g.get("nodes", []), outputs=g["outputs"],
                 constants=g.get("constants", []), known=KNOWN_RANDOM.get(seed, ""))


def build_cases():
    unary_cases()
    binary_cases()
    promotion_cases()
    where_to_cases()
    creation_cases()
    reduction_cases()
    view_cases()
    composite_cases()
    broadcast_cases()
    long_cases()
    layout_cases()
    zero_dim_cases()
    accumulation_cases()
    torch_nn.cases(torch_nn.Ctx(add_case, node, data, rng))
    error_cases()
    for c in CASES:
        fixup_names(c)


def fixup_names(c):
    """Inline nodes are written with name=None above: drop the key."""
    def fix(n):
        if isinstance(n, dict):
            if n.get("name", "") is None:
                del n["name"]
            n["args"] = [fix(a) for a in n.get("args", [])]
        return n
    c.nodes = [fix(n) for n in c.nodes]


# ---------------------------------------------------------------------------------------------
# PyTorch's results.

PYOP = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
        "remainder": operator.mod, "pow": operator.pow, "bitwise_and": operator.and_,
        "bitwise_or": operator.or_, "bitwise_xor": operator.xor, "eq": operator.eq,
        "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
        "ge": operator.ge}
UNARY_F = {"silu": F.silu}
RULE_NO_BOOL = {"neg", "abs", "relu", "sign", "ceil", "floor", "round", "trunc", "sub"}
RULE_FLOAT_ONLY = {"gelu", "silu", "leaky_relu", "softmax", "log_softmax", "layer_norm", "rms_norm",
                   "mean", "var", "std", "logsumexp"}


class Rejected(Exception):
    pass


def scalar_value(a):
    if isinstance(a, str):
        return float(a)
    return a


def is_tensor(a):
    return isinstance(a, torch.Tensor)


def wrap(a, other):
    """A Python scalar as the 0-d tensor of the promoted dtype (same result type)."""
    if is_tensor(a):
        return a
    return torch.tensor(a, dtype=torch.result_type(other, a))


def elementwise_scalar_path(fn, a, b):
    """fn(a, b) of floats element by element. PyTorch 1.13's vectorized float remainder and
    floor division give NaN where the quotient overflows, its scalar path (c10::div_mod,
    c10::div_floor_floating, what 2.x computes in every lane) does not; ints go through as they are."""
    out = fn(a, b)
    if not out.is_floating_point():
        return out
    a, b = torch.broadcast_tensors(a.to(out.dtype), b.to(out.dtype))
    flat = [fn(p.reshape(1), q.reshape(1)) for p, q in zip(a.reshape(-1), b.reshape(-1))]
    return torch.cat(flat).reshape(out.shape) if flat else out


def norm_dims(d, ndim):
    ds = [d] if isinstance(d, int) else list(d)
    r = max(ndim, 1)
    out = []
    for x in ds:
        if not -r <= x < r:
            raise Rejected(f"dim {x} out of range")
        out.append(x % r)
    if len(set(out)) != len(out):
        raise Rejected("repeated dim")
    return out


def var_float_correction(op, x, dim, keep, corr):
    """var/std with a float correction (2.x; 1.13 takes ints only): sum of squared deviations
    over max(0, N - correction)."""
    dims = list(range(x.dim())) if dim is None else norm_dims(dim, x.dim())
    n = 1
    for k in dims:
        n *= x.shape[k] if x.dim() else 1
    v = torch.var(x, dim=dims, correction=0, keepdim=keep) * n / max(0.0, n - corr)
    return v.sqrt() if op == "std" else v


def reduce_each(fn, x, d, keep):
    """PyTorch 2.x's list-of-dims form of a reduction that 1.13 takes one dim at a time."""
    if d is None:
        r = fn(x)
        return r.reshape([1] * x.dim()) if keep else r
    for k in sorted(norm_dims(d, x.dim()), reverse=True):
        x = fn(x, k, keepdim=keep)
    return x


def rule_violation(op, n, args):
    """The Precise rule a node breaks although PyTorch accepts it, or ""."""
    ts = [a for a in args if is_tensor(a)]
    if op in RULE_NO_BOOL and any(t.dtype == torch.bool for t in ts):
        return f"{op} rejects bool"
    if op in RULE_FLOAT_ONLY and ts and not ts[0].is_floating_point():
        return f"{op} rejects int and bool"
    if op == "where" and not (is_tensor(args[0]) and args[0].dtype == torch.bool or isinstance(args[0], bool)):
        return "the where condition is bool"
    return torch_nn.rule_violation(op, args, n)


def t_eval(n, env, rules):
    args = [t_eval(a, env, rules) if isinstance(a, dict) else
            (env[a] if isinstance(a, str) and a in env else
             (scalar_value(a) if a is not None else None)) for a in n["args"]]
    op = n["op"]
    attrs = {k: v for k, v in n.items() if k not in ("name", "op", "args")}
    r = rule_violation(op, n, args)
    if r:
        rules.append(r)
    return t_op(op, args, attrs)


def t_op(op, args, at):
    x = args[0] if args else None
    dim = at.get("dim")
    keep = at.get("keepdim", False)
    if op in PYOP and len(args) == 2 and not (op == "div" and at.get("rounding_mode")):
        a, b = args
        if not is_tensor(a) and not is_tensor(b):
            raise Rejected("two scalars")
        if op in ("bitwise_and", "bitwise_or", "bitwise_xor") and (
                not is_tensor(a) or not is_tensor(b)):
            a, b = wrap(a, b), wrap(b, a)
        if op == "pow" and is_tensor(b) and not b.dtype.is_floating_point and not is_tensor(a) and isinstance(a, int) and not isinstance(a, bool):
            return torch.pow(a, b)
        if op == "remainder":
            return elementwise_scalar_path(torch.remainder, wrap(a, b), wrap(b, a))
        return PYOP[op](a, b)
    if op == "div":
        a, b = args
        mode = at["rounding_mode"]
        return elementwise_scalar_path(lambda p, q: torch.div(p, q, rounding_mode=mode), wrap(a, b), wrap(b, a))
    if op in ("maximum", "minimum", "atan2", "logical_and", "logical_or", "logical_xor"):
        if len(args) != 2:
            raise Rejected("arity")
        a, b = args
        if not is_tensor(a) and not is_tensor(b):
            raise Rejected("two scalars")
        return getattr(torch, op)(wrap(a, b), wrap(b, a))
    if op in PYOP:
        raise Rejected("arity")
    if op == "where":
        c, a, b = args
        if not is_tensor(c):
            c = torch.tensor(c)
        if not is_tensor(a) and not is_tensor(b):
            ta, tb = torch.tensor(a), torch.tensor(b)
            dt = torch.promote_types(ta.dtype, tb.dtype)
            if dt == torch.float64 and (ta.dtype != torch.float64 or tb.dtype != torch.float64):
                dt = torch.get_default_dtype()
            return torch.where(c, ta.to(dt), tb.to(dt))
        return torch.where(c, a, b)
    if op == "to":
        return x.to(TORCH_DT[at["dtype"]])
    if op == "full":
        v = scalar_value(at["value"])
        return torch.full(at["shape"], v, dtype=TORCH_DT.get(at.get("dtype")))
    if op == "arange":
        return torch.arange(at.get("start", 0), at["end"], at.get("step", 1), dtype=TORCH_DT.get(at.get("dtype")))
    nn = torch_nn.t_op(op, args, at, Rejected)
    if nn is not None:
        return nn
    if len(args) != {"cat": len(args), "layer_norm": len(args), "rms_norm": len(args),
                     "linear": len(args), "matmul": 2}.get(op, 1):
        raise Rejected("arity")
    if op == "gelu":
        # PyTorch hands contiguous float32 tensors to oneDNN, which returns +0 where its own
        # kernel (and float64, and any strided input) returns -0: compare with its own kernel.
        with torch.backends.mkldnn.flags(enabled=False):
            return F.gelu(x, approximate=at.get("approximate", "none"))
    if op == "leaky_relu":
        return F.leaky_relu(x, at.get("negative_slope", 0.01))
    if op == "clamp":
        lo, hi = at.get("min"), at.get("max")
        return torch.clamp(x, min=scalar_value(lo) if lo is not None else None,
                           max=scalar_value(hi) if hi is not None else None)
    if op in UNARY_F:
        return UNARY_F[op](x)
    if op in ("sum", "mean", "amax", "amin", "var", "std", "logsumexp"):
        if dim == []:
            raise Rejected("dim []")
        if dim is not None:
            norm_dims(dim, x.dim())
        corr = at.get("correction", 1)
        if op in ("var", "std") and isinstance(corr, float):
            return var_float_correction(op, x, dim, keep, corr)
        extra = {"correction": corr} if op in ("var", "std") else {}
        if op == "logsumexp":
            d = list(range(x.dim())) if dim is None else dim
            if x.dim() == 0:
                return torch.logsumexp(x, 0)
            return torch.logsumexp(x, d, keepdim=keep)
        if op in ("amax", "amin"):
            return getattr(torch, op)(x, dim=() if dim is None else dim, keepdim=keep)
        if dim is None:
            if op in ("var", "std"):
                return getattr(torch, op)(x, dim=None, keepdim=keep, **extra)
            r = getattr(torch, op)(x)
            return r.reshape([1] * x.dim()) if keep else r
        return getattr(torch, op)(x, dim=dim, keepdim=keep, **extra)
    if op in ("prod", "any", "all"):
        if dim == []:
            raise Rejected("dim []")
        return reduce_each(getattr(torch, op), x, dim, keep)
    if op in ("argmax", "argmin"):
        return getattr(torch, op)(x, dim=dim, keepdim=keep)
    if op in ("cumsum", "cumprod"):
        return getattr(torch, op)(x, dim)
    if op == "reshape":
        return x.reshape(at["shape"])
    if op == "permute":
        return x.permute(at["dims"])
    if op == "transpose":
        return x.transpose(at["dim0"], at["dim1"])
    if op == "expand":
        return x.expand(at["shape"])
    if op == "unsqueeze":
        return x.unsqueeze(at["dim"])
    if op == "squeeze":
        if dim is None:
            return x.squeeze()
        if dim == []:
            raise Rejected("dim []")
        for k in sorted(norm_dims(dim, x.dim()), reverse=True):
            x = x.squeeze(k)
        return x
    if op == "flatten":
        return x.flatten(at.get("start_dim", 0), at.get("end_dim", -1))
    if op == "slice":
        d = at["dim"]
        if not -max(x.dim(), 1) <= d < max(x.dim(), 1) or x.dim() == 0:
            raise Rejected("slice dim")
        d %= x.dim()
        idx = (slice(None),) * d + (slice(at.get("start"), at.get("end"), at.get("step", 1)),)
        try:
            return x[idx]
        except ValueError as e:
            raise Rejected(str(e))
    if op == "select":
        return x.select(at["dim"], at["index"])
    if op == "cat":
        return torch.cat(args, at["dim"])
    if op == "pad":
        return F.pad(x, at["pad"], value=scalar_value(at.get("value", 0)))
    if op in ("softmax", "log_softmax"):
        return getattr(torch, op)(x, at["dim"])
    if op == "layer_norm":
        ns = at["normalized_shape"]
        ns = [ns] if isinstance(ns, int) else ns
        w, b = (args + [None, None])[1:3]
        return F.layer_norm(x, ns, w, b, at.get("eps", 1e-5))
    if op == "rms_norm":
        ns = at["normalized_shape"]
        ns = [ns] if isinstance(ns, int) else ns
        if list(x.shape[x.dim() - len(ns):]) != list(ns):
            raise Rejected("normalized_shape")
        if not x.is_floating_point():
            raise Rejected("rms_norm of int")
        eps = at.get("eps", torch.finfo(x.dtype).eps)
        dims = list(range(x.dim() - len(ns), x.dim()))
        y = x * torch.rsqrt((x * x).mean(dims, keepdim=True) + eps)
        w = args[1] if len(args) > 1 else None
        return y * w if w is not None else y
    if op == "linear":
        return F.linear(*args)
    if op == "matmul":
        return torch.matmul(*args)
    return getattr(torch, op)(x)


def torch_expected(c):
    """PyTorch's outputs of a case, or "reject", or "runtime-error"."""
    if c.expected is not None:
        return
    env = {k: torch.from_numpy(v.copy()) for k, v in c.inputs.items()}
    for k in c.constants:
        dt = TORCH_DT[k["dtype"]]
        if "fill" in k:
            env[k["name"]] = torch.full(k["shape"], scalar_value(k["fill"]), dtype=dt)
        else:
            env[k["name"]] = torch.tensor([scalar_value(v) for v in k["data"]], dtype=dt).reshape(k["shape"])
    rules = []
    try:
        for n in c.nodes:
            env[n["name"]] = t_eval(n, env, rules)
        outs = [env[o] for o in c.outputs]
    except (RuntimeError, TypeError, ValueError, IndexError, Rejected, KeyError) as e:
        msg = str(e).split("\n")[0][:100]
        c.torch_error = msg
        c.expected = "runtime-error" if c.div_by_zero or c.index_error else "reject"
        return
    if c.div_by_zero or c.index_error:
        raise AssertionError(f"{c.label}: torch did not fail on a division by zero or a bad index")
    if rules and not c.rule:
        c.rule = rules[0]
    c.expected = "reject" if c.rule else [o.contiguous() for o in outs]
    c.tol = None if c.rule else torch_nn.tolerance(c, env)
    if c.rule or c.group != "unary" or len(c.nodes) != 1 or len(c.inputs) != 1:
        return
    # PyTorch's vectorized kernels (SLEEF) and its scalar ones differ at the edges of the range
    # (sinh(89.0) in float32 is inf in a vector lane, 2.24e38 alone): either one is PyTorch's.
    (name,) = c.inputs
    alone = [t_eval(c.nodes[0], {name: v.reshape(1)}, []) for v in env[name].reshape(-1)]
    c.alternative = [torch.cat(alone).reshape(outs[0].shape)]


# ---------------------------------------------------------------------------------------------
# staxc.

def graph_json(cases):
    """One graph holding the given cases, each case's names prefixed with c<index>."""
    inputs, constants, nodes, outputs = [], [], [], []
    for i, c in cases:
        p = f"c{i}."
        names = {n["name"] for n in c.nodes} | {k["name"] for k in c.constants}
        ren = lambda a: p + a if isinstance(a, str) and (a in c.inputs or a in names) else a

        def rn(n):
            m = dict(n)
            if "name" in m:
                m["name"] = p + m["name"]
            m["args"] = [rn(a) if isinstance(a, dict) else ren(a) for a in n["args"]]
            return m
        for k, v in c.inputs.items():
            inputs.append({"name": p + k, "dtype": DT_NAME[torch.from_numpy(np.asarray(v)).dtype],
                           "shape": list(v.shape)})
        constants += [dict(k, name=p + k["name"]) for k in c.constants]
        nodes += [rn(n) for n in c.nodes]
        outputs += [ren(o) for o in c.outputs]
    return {"format": "stax-graph", "version": 1, "name": "check", "inputs": inputs,
            "constants": constants, "nodes": nodes, "outputs": outputs}


class Staxc:
    def __init__(self, exe, work, cxxflags):
        self.exe, self.work, self.cxxflags = exe, work, cxxflags
        self.count = 0

    def prepare(self, cases):
        self.count += 1
        d = os.path.join(self.work, f"g{self.count}")
        os.makedirs(d)
        g = graph_json(cases)
        path = os.path.join(d, "graph.json")
        with open(path, "w") as f:
            json.dump(g, f, indent=1)
        args = []
        for i, c in cases:
            for k, v in c.inputs.items():
                fn = os.path.join(d, f"c{i}.{k}.npy")
                np.save(fn, np.array(v, order="C"))
                args += ["--input", f"c{i}.{k}={fn}"]
        return d, path, args

    def call(self, argv):
        p = subprocess.run([self.exe] + argv, capture_output=True, text=True)
        return p.returncode, (p.stderr.strip().splitlines() or [""])[-1]

    def validate(self, i, c):
        d, path, _ = self.prepare([(i, c)])
        return self.call(["validate", path])

    def evaluate(self, command, isa, cases):
        """Run `interpret` or `run --isa ISA` on the cases in one graph: (status, error,
        {case index: [arrays]})."""
        d, path, args = self.prepare(cases)
        out = os.path.join(d, "out")
        extra = ["--isa", isa] if isa else []
        extra += ["--cxxflags", self.cxxflags] if command == "run" and self.cxxflags else []
        status, err = self.call([command, path, "--output-dir", out] + args + extra)
        results = {}
        if status == 0:
            for i, c in cases:
                results[i] = [np.load(os.path.join(out, f"c{i}.{o}.npy")) for o in c.outputs]
        return status, err, results


# ---------------------------------------------------------------------------------------------
# Comparison.

def compare(expected, got, tol=None):
    """"" when `got` (a NumPy array) matches `expected` (a torch tensor) within RTOL, ATOL and the
    per-element allowance `tol` (an array of expected's shape, or None), else what differs."""
    e = expected.numpy()
    if got.dtype != e.dtype:
        return f"dtype {DT_NAME.get(torch.from_numpy(got).dtype, got.dtype)} vs torch {DT_NAME[expected.dtype]}"
    if got.shape != e.shape:
        return f"shape {list(got.shape)} vs torch {list(e.shape)}"
    if e.dtype.kind in "biu":
        bad = np.flatnonzero((got != e).reshape(-1))
    else:
        g64, e64 = got.astype(np.float64).reshape(-1), e.astype(np.float64).reshape(-1)
        with np.errstate(invalid="ignore", over="ignore"):
            allowed = ATOL + RTOL * np.abs(e64) + (0 if tol is None else np.asarray(tol, np.float64).reshape(-1))
            close = np.isfinite(e64) & (np.abs(g64 - e64) <= allowed)
        close |= (np.isnan(g64) & np.isnan(e64)) | ((g64 == e64) & np.isinf(e64))
        # A zero of the wrong sign is a mismatch too: 1 / x or atan2 downstream would show it.
        close &= ~((e64 == 0) & (g64 == 0) & (np.signbit(e64) != np.signbit(g64)))
        bad = np.flatnonzero(~close)
    if len(bad) == 0:
        return ""
    k = bad[0]
    return (f"{len(bad)} value(s) differ, first at flat index {k}: "
            f"{got.reshape(-1)[k]!r} vs torch {e.reshape(-1)[k]!r}")


def input_at(c, k):
    """The inputs of a case at one flat output index, when it is an elementwise case."""
    parts = []
    for name, v in c.inputs.items():
        if v.size > k and v.ndim == 1:
            parts.append(f"{name}={v.reshape(-1)[k]!r}")
    return " (" + ", ".join(parts) + ")" if parts else ""


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--staxc", default=os.path.join(here, "..", "build", "tools", "staxc"))
    ap.add_argument("--only", default="", help="regex: only cases whose 'group label' matches")
    ap.add_argument("--random", type=int, default=200, metavar="N",
                    help="also the random graphs of seeds 0..N-1 (needs randgraph_dump)")
    ap.add_argument("--randgraph-dump", default=os.path.join(here, "..", "build", "test", "randgraph", "randgraph_dump"))
    ap.add_argument("--chunk", type=int, default=400, help="cases per generated program of `staxc run`")
    ap.add_argument("--no-run", action="store_true", help="skip `staxc run` (the generated code)")
    ap.add_argument("--isa", default="native,scalar",
                    help="instruction sets of the generated code to run, a list (`staxc run --isa`)")
    ap.add_argument("--cxxflags", default="", help="flags for `staxc run --cxxflags` (default: staxc's)")
    ap.add_argument("--keep", default="", help="keep the graphs and results in this folder")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every mismatch in full")
    opts = ap.parse_args()
    torch.manual_seed(0)
    build_cases()
    if opts.random and os.path.exists(opts.randgraph_dump):
        random_cases(opts.randgraph_dump, opts.random)
    elif opts.random:
        print(f"no random graphs: {opts.randgraph_dump} is not built (target randgraph_dump)")
    cases = [(i, c) for i, c in enumerate(CASES) if re.search(opts.only, f"{c.group} {c.label}")]
    work = opts.keep or tempfile.mkdtemp(prefix="torch_check.")
    if opts.keep:
        shutil.rmtree(work, ignore_errors=True)   # the folder of an earlier run
        os.makedirs(work)
    sx = Staxc(os.path.abspath(opts.staxc), work, opts.cxxflags)
    mismatches = []

    known = []

    def bad(c, where, what):
        (known if c.known else mismatches).append((c, where, what))

    import warnings
    warnings.simplefilter("ignore")
    for _, c in cases:
        torch_expected(c)
    accepted = []
    for i, c in cases:
        status, err = sx.validate(i, c)
        want = 2 if c.expected == "reject" else 0
        if status != want:
            why = c.torch_error or c.rule or ""
            bad(c, "validate", f"exit {status} ({err}), torch: " + ("rejects: " + why if want == 2 else "accepts"))
        elif status == 0:
            accepted.append((i, c))
    stages = [("interpret", "")] + ([] if opts.no_run else [("run", isa) for isa in opts.isa.split(",")])
    for command, isa in stages:
        where = f"run --isa {isa}" if isa else command
        size = opts.chunk if command == "run" else 60
        todo = [(i, c) for i, c in accepted if command != "run" or torch_nn.lowered(c)]
        plain = [(i, c) for i, c in todo if c.expected != "runtime-error"]
        chunks = [plain[k:k + size] for k in range(0, len(plain), size)]
        chunks += [[(i, c)] for i, c in todo if c.expected == "runtime-error"]
        while chunks:
            chunk = chunks.pop(0)
            status, err, results = sx.evaluate(command, isa, chunk)
            if status != 0 and len(chunk) > 1:
                half = len(chunk) // 2        # find the failing cases by halving
                chunks[:0] = [chunk[:half], chunk[half:]]
                continue
            i, c = chunk[0]
            if c.expected == "runtime-error":
                if status != 3:
                    bad(c, where, f"exit {status} ({err}), torch: {c.torch_error}")
                continue
            if status != 0:
                bad(c, where, f"exit {status} ({err})")
                continue
            for i, c in chunk:
                for k, (o, e, g) in enumerate(zip(c.outputs, c.expected, results[i])):
                    what = compare(e, g, c.tol[k] if c.tol else None)
                    if what and c.alternative is not None and not compare(c.alternative[k], g):
                        what = ""
                    if what:
                        k = re.search(r"flat index (\d+)", what)
                        bad(c, where, f"{o}: {what}" + (input_at(c, int(k.group(1))) if k else ""))

    # Summary.
    groups = OrderedDict()
    for _, c in cases:
        g = groups.setdefault(c.group, {"cases": 0, "rejected": 0, "deviations": 0, "mismatches": set()})
        g["cases"] += 1
        g["rejected"] += c.expected == "reject" and not c.rule
        g["deviations"] += bool(c.rule)
    for c, _, _ in mismatches:
        groups[c.group]["mismatches"].add(c.label)
    print(f"{'group':<12}{'cases':>7}{'torch rejects':>15}{'documented rule':>17}{'mismatched':>12}")
    for name, g in groups.items():
        print(f"{name:<12}{g['cases']:>7}{g['rejected']:>15}{g['deviations']:>17}{len(g['mismatches']):>12}")
    total = sum(len(g["mismatches"]) for g in groups.values())
    print(f"{'total':<12}{len(cases):>7}{sum(g['rejected'] for g in groups.values()):>15}"
          f"{sum(g['deviations'] for g in groups.values()):>17}{total:>12}")
    if mismatches:
        print("\nmismatches (case: stage: what):")
        for c, where, what in mismatches:
            line = f"  [{c.group}] {c.label}: {where}: {what}"
            print(line if opts.verbose else line[:240])
    if known:
        print("\ndifferences left on purpose (not counted):")
        for c, where, what in known:
            print(f"  [{c.group}] {c.label}: {where}: {what}"[:240])
        for why in sorted({c.known for c, _, _ in known}):
            print(f"    because {why}")
    deviations = sorted({c.rule for _, c in cases if c.rule})
    if deviations:
        print("\ndocumented rules (graph-format.md) where staxc rejects what PyTorch accepts: " + "; ".join(deviations))
    if opts.keep:
        print(f"\nfiles in {work}")
    else:
        shutil.rmtree(work)
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
