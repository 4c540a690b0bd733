#!/usr/bin/python3
"""ONNX's own operator tests through staxc: every node test case that the installed onnx package
generates (onnx.backend.test.case.node: one small model per case, with its inputs and the outputs
ONNX's reference computes), imported and evaluated by `staxc interpret`, the outputs compared
with ONNX's within the case's tolerances (rtol 1e-3, atol 1e-7 unless the case says otherwise).

    scripts/onnx_node_tests.py [--staxc build/tools/staxc] [--only REGEX] [--compile]
                               [--verbose] [--keep DIR] [--jobs N]

A case is `pass`, `FAIL` (imported and run, wrong outputs, or a crash), or `refused` (the
importer's error: an operator, attribute, dtype or opset outside what docs/onnx.md maps; each
refusal is one clear error). `--compile` also builds and runs the generated code of every case
that imports (`staxc check`: generated code against the interpreter), which takes minutes.
Prints one line per failing case, then a table per ONNX operator; exit status 1 when a case
failed. Not part of CTest (it needs python3-onnx: scripts/setup.sh --onnx).
"""
import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_cases():
    # The case generators of onnx 1.12 use aliases NumPy 1.24 removed.
    for name, t in (("float", float), ("int", int), ("bool", bool), ("object", object), ("complex", complex),
                    ("str", str)):
        if name not in np.__dict__:
            setattr(np, name, t)
    import warnings
    warnings.simplefilter("ignore")
    from onnx.backend.test.case.node import collect_testcases
    return collect_testcases(None)


def op_types(model):
    return sorted({n.op_type for n in model.graph.node})


def run_case(staxc, case, work, compile_too):
    """Returns (status, detail)."""
    import onnx
    from onnx import numpy_helper
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "model.onnx")
    onnx.save(case.model, path)
    initializers = {t.name for t in case.model.graph.initializer}
    inputs = [i.name for i in case.model.graph.input if i.name not in initializers]
    outputs = [o.name for o in case.model.graph.output]
    status, detail = "pass", ""
    for v in list(case.model.graph.input) + list(case.model.graph.output):
        if not v.type.HasField("tensor_type"):
            return "refused", "%s is not a tensor (sequences, maps and optionals are not in the format)" % v.name
    for d, (ins, outs) in enumerate(case.data_sets):
        args = [staxc, "interpret", path, "--output-dir", os.path.join(work, "out%d" % d)]
        for name, value in zip(inputs, ins):
            f = os.path.join(work, "in%d_%d.npy" % (d, len(args)))
            np.save(f, np.asarray(value))
            args += ["--input", "%s=%s" % (name, f)]
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
        if r.returncode == 2:  # the importer's (or the validator's) refusal
            return "refused", r.stderr.strip().split("\n")[0][:160]
        if r.returncode != 0:
            return "FAIL", "exit %d: %s" % (r.returncode, r.stderr.strip()[:200])
        for name, want in zip(outputs, outs):
            f = os.path.join(work, "out%d" % d, name + ".npy")
            if not os.path.exists(f):
                return "FAIL", "no output %s (%s)" % (name, ", ".join(sorted(os.listdir(os.path.join(work, "out%d" % d)))))
            got = np.load(f)
            want = np.asarray(want)
            if got.shape != want.shape:
                return "FAIL", "%s: shape %s, ONNX %s" % (name, list(got.shape), list(want.shape))
            if want.dtype.kind in "fc":
                ok = np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=case.rtol, atol=case.atol,
                                 equal_nan=True)
            else:
                ok = np.array_equal(got.astype(want.dtype), want)
            if not ok:
                diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
                at = np.unravel_index(np.nanargmax(np.where(np.isnan(diff), -1, diff)), diff.shape) if diff.size else ()
                return "FAIL", "%s: max |diff| %.3g at %s (got %r, ONNX %r)" % (
                    name, np.nanmax(diff) if diff.size else 0, list(at), got[at] if diff.size else None,
                    want[at] if diff.size else None)
        if compile_too and d == 0:
            r = subprocess.run([staxc, "check", path] + args[5:], capture_output=True, text=True, timeout=600)
            if r.returncode != 0:
                return "FAIL", "staxc check: exit %d: %s" % (r.returncode, (r.stderr or r.stdout).strip()[:200])
    return status, detail


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--staxc", default=os.path.join(ROOT, "build", "tools", "staxc"))
    p.add_argument("--only", default="", help="run the cases whose name matches this regex")
    p.add_argument("--compile", action="store_true", help="also build and check the generated code")
    p.add_argument("--verbose", action="store_true", help="print every case's result")
    p.add_argument("--keep", help="keep each case's files in this folder")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="cases run at once (default: the cores)")
    a = p.parse_args()
    if not os.path.exists(a.staxc):
        sys.exit("onnx_node_tests.py: no staxc at %s (build it, or pass --staxc)" % a.staxc)
    cases = sorted(load_cases(), key=lambda c: c.name)
    if a.only:
        cases = [c for c in cases if re.search(a.only, c.name)]
    work = a.keep or tempfile.mkdtemp(prefix="onnx_node_tests_")
    by_op = collections.defaultdict(collections.Counter)
    failed = 0
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            results = pool.map(lambda case: run_case(a.staxc, case, os.path.join(work, case.name), a.compile), cases)
            results = list(results)
        for case, (status, detail) in zip(cases, results):
            for op in op_types(case.model):
                by_op[op][status] += 1
            if status == "FAIL":
                failed += 1
            if status == "FAIL" or a.verbose:
                print("%-7s %s %s" % (status, case.name, detail), flush=True)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("\n%-28s %5s %5s %7s" % ("ONNX op", "pass", "FAIL", "refused"))
    for op in sorted(by_op):
        c = by_op[op]
        print("%-28s %5d %5d %7d" % (op, c["pass"], c["FAIL"], c["refused"]))
    total = collections.Counter()
    for c in by_op.values():
        total.update(c)
    print("cases: %d, failed: %d" % (len(cases), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
