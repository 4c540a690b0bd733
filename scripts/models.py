#!/usr/bin/python3
"""The model zoo against ONNX Runtime and PyTorch eager (scripts/models.sh runs it).

The models: ResNet-18 at batch 1 and 8, MobileNet-V2, ResNet-50 (its build time and memory are
those of 25.6M parameters of weights), a BERT encoder layer and an MLP. Each model is a PyTorch module with seeded random weights in eval mode, exported by
torch.onnx.export, then:
  1. staxc import + staxc compile (timed; the kernels after fusion from --dump-schedule, the
     workspace from the header);
  2. the generated code built with the documented command (timed, peak memory by
     /usr/bin/time -v) into test/cli/model_main.cpp, and run on the input;
  3. staxc bench on the same input: the generated code's own timing loop, buffers reused, at 1
     and 2 threads under OMP_WAIT_POLICY unset and passive;
  4. ONNX Runtime (npm's onnxruntime-node; scripts/models_ort.js) at 1 and 2 threads, timed by
     its profiler's model_run events (the Node binding copies tensors in and out);
  5. PyTorch eager at 1 and 2 threads.
One table: ONNX nodes, parameters, kernels, workspace, import + compile and build times, the
times, the worst error against ORT relative to the largest magnitude of ORT's output, and for
the classifiers the top-1 agreement with ORT. A model staxc cannot compile yet is listed with
the reason and ORT's and PyTorch's columns.

With --set operators, the same table for single operators sized beyond the caches (16 to 64 MiB
of input: reductions along each kind of dim, scans, softmax and norms, permutes and transposes,
pads and cats, broadcasts, activations, products of few rows, small convolutions), which is
where a slow path of one form shows up against ONNX Runtime.

  /usr/bin/python3 scripts/models.py --staxc build/tools/staxc --work build/models [--only RE]
                                     [--set models|operators]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np
import onnx
import torch
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "importer", "models"))
from make_models import TinyTransformer  # noqa: E402  (the BERT layer, at another size)

OPSET = 17
BUILD = ["g++", "-std=c++17", "-O3", "-march=native", "-fopenmp"]


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(1024, 4096)
        self.down = torch.nn.Linear(4096, 1024)

    def forward(self, x):
        return self.down(torch.nn.functional.gelu(self.up(x)))


def models():
    """(name, module factory, input shape, is a classifier)."""
    return [
        ("resnet18", lambda: torchvision.models.resnet18(), (1, 3, 224, 224), True),
        ("resnet18_b8", lambda: torchvision.models.resnet18(), (8, 3, 224, 224), True),
        ("mobilenet_v2", lambda: torchvision.models.mobilenet_v2(), (1, 3, 224, 224), True),
        ("resnet50", lambda: torchvision.models.resnet50(), (1, 3, 224, 224), True),
        ("bert_layer", lambda: TinyTransformer(d=256, heads=4, ffn=1024), (1, 128, 256), False),
        ("mlp", Mlp, (512, 1024), False),
    ]


class Op(torch.nn.Module):
    """One operator (or a short chain) as a module: f(x, modules)."""

    def __init__(self, f, mods=None):
        super().__init__()
        self.f = f
        self.mods = torch.nn.ModuleList(mods or [])

    def forward(self, x):
        return self.f(x, self.mods)


def operators():
    """(name, module factory, input shape, False): single operators sized beyond the caches."""
    F = torch.nn.functional
    nn = torch.nn

    def op(name, f, shape, mods=None):
        return (name, lambda: Op(f, mods() if mods else None), shape, False)
    return [
        op("softmax_last", lambda x, _: torch.softmax(x, -1), (64, 256, 1024)),
        op("softmax_mid", lambda x, _: torch.softmax(x, 1), (64, 256, 1024)),
        op("softmax_rows64", lambda x, _: torch.softmax(x, -1), (262144, 64)),
        op("logsumexp", lambda x, _: torch.logsumexp(x, -1), (16384, 1024)),
        op("layernorm", lambda x, m: m[0](x), (16384, 1024), lambda: [nn.LayerNorm(1024)]),
        op("layernorm_rows64", lambda x, m: m[0](x), (65536, 64), lambda: [nn.LayerNorm(64)]),
        op("l2_normalize", lambda x, _: x / x.norm(dim=-1, keepdim=True), (16384, 1024)),
        op("sum_last", lambda x, _: x.sum(-1), (16384, 1024)),
        op("sum_first", lambda x, _: x.sum(0), (1024, 16384)),
        op("mean_mid", lambda x, _: x.mean(1), (64, 1024, 256)),
        op("max_last", lambda x, _: x.amax(-1), (16384, 1024)),
        op("argmax_last", lambda x, _: x.argmax(-1).float(), (16384, 1024)),
        op("var_last", lambda x, _: x.var(-1), (16384, 1024)),
        op("global_avg_pool", lambda x, _: x.mean((2, 3)), (32, 256, 56, 56)),
        op("cumsum_last", lambda x, _: torch.cumsum(x, -1), (4096, 2048)),
        op("cumsum_mid", lambda x, _: torch.cumsum(x, 1), (64, 1024, 256)),
        op("gelu", lambda x, _: F.gelu(x), (16, 1024, 1024)),
        op("gelu_tanh", lambda x, _: F.gelu(x, approximate="tanh"), (16, 1024, 1024)),
        op("silu", lambda x, _: x * torch.sigmoid(x), (32, 1024, 1024)),
        op("where_leaky", lambda x, _: torch.where(x > 0, x, x * 0.1), (32, 1024, 1024)),
        op("bias_broadcast", lambda x, _: x + torch.arange(64.0).reshape(1, 64, 1, 1), (8, 64, 112, 112)),
        op("row_scale", lambda x, _: x * x.mean(-1, keepdim=True), (16384, 1024)),
        op("bn_relu", lambda x, m: F.relu(m[0](x)), (8, 64, 112, 112), lambda: [nn.BatchNorm2d(64)]),
        op("permute_0213", lambda x, _: x.permute(0, 2, 1, 3).contiguous() * 2.0, (16, 512, 16, 128)),
        op("transpose_2d", lambda x, _: x.t().contiguous() + 1.0, (4096, 4096)),
        op("transpose_batched", lambda x, _: x.transpose(-1, -2).contiguous() + 1.0, (64, 512, 512)),
        op("strided_slice", lambda x, _: x[:, ::2, 1::2] * 3.0, (64, 1024, 512)),
        op("cat_mid", lambda x, _: torch.cat([x, x * 2], 1) + 1.0, (8, 1024, 2048)),
        op("cat_last", lambda x, _: torch.cat([x, x.flip(-1)], -1), (4096, 2048)),
        op("pad_2d", lambda x, _: F.pad(x, (1, 1, 1, 1)) * 2.0, (8, 64, 224, 224)),
        op("gather_rows", lambda x, _: x[torch.arange(0, 16384, 3)], (16384, 1024)),
        op("max_pool", lambda x, _: F.max_pool2d(x, 3, 2, 1), (8, 64, 112, 112)),
        op("avg_pool", lambda x, _: F.avg_pool2d(x, 2), (8, 128, 112, 112)),
        op("depthwise_conv", lambda x, m: m[0](x), (8, 128, 112, 112), lambda: [nn.Conv2d(128, 128, 3, padding=1, groups=128)]),
        op("conv1d", lambda x, m: m[0](x), (8, 256, 4096), lambda: [nn.Conv1d(256, 256, 3, padding=1)]),
        op("conv3x3_32ch", lambda x, m: m[0](x), (1, 32, 256, 256), lambda: [nn.Conv2d(32, 32, 3, padding=1)]),
        op("bmm", lambda x, _: torch.matmul(x, x.transpose(1, 2)), (16, 512, 256)),
        op("gemv", lambda x, m: m[0](x), (1, 4096), lambda: [nn.Linear(4096, 4096)]),
        op("linear_8_rows", lambda x, m: m[0](x), (8, 2048), lambda: [nn.Linear(2048, 2048)]),
    ]


def run(argv, env=None, cwd=None):
    r = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd)
    if r.returncode != 0:
        lines = (r.stderr.strip() or r.stdout.strip() or "exit status %d" % r.returncode).splitlines()
        raise RuntimeError(lines[-1][:160])
    return r


def timed(argv, **kw):
    t0 = time.perf_counter()
    r = run(argv, **kw)
    return r, time.perf_counter() - t0


def export(name, factory, shape, d, reps):
    torch.manual_seed(0)
    module = factory().eval()
    x = torch.randn(shape, generator=torch.Generator().manual_seed(1))
    path = os.path.join(d, name + ".onnx")
    with torch.no_grad():
        torch.onnx.export(module, (x,), path, opset_version=OPSET, input_names=["x"], output_names=["y"],
                          do_constant_folding=True)
    np.save(os.path.join(d, "x.npy"), x.numpy())
    x.numpy().astype("<f4").tofile(os.path.join(d, "x.bin"))
    times = {}
    with torch.no_grad():
        for threads in (1, 2):
            torch.set_num_threads(threads)
            for _ in range(3):
                y = module(x)
            ms = []
            for _ in range(reps):
                t0 = time.perf_counter()
                module(x)
                ms.append((time.perf_counter() - t0) * 1e3)
            times[threads] = statistics.median(ms)
    m = onnx.load(path)
    params = sum(int(np.prod(t.dims)) for t in m.graph.initializer)
    return path, y.numpy(), times, len(m.graph.node), params


def ort(onnx_path, shape, d, reps):
    out = os.path.join(d, "ort_y.bin")
    r = run(["node", os.path.join(HERE, "models_ort.js"), onnx_path, os.path.join(d, "x.bin"),
             ",".join(map(str, shape)), out, str(reps)], cwd=d)
    return np.fromfile(out, dtype="<f4"), json.loads(r.stdout.strip().splitlines()[-1])


def staxc_side(a, onnx_path, d, policies, s):
    """Import, compile, build, run, bench: fills the row's staxc figures into `s` (raises at the
    first failure, with what was measured before it kept)."""
    _, s["import_s"] = timed([a.staxc, "import", onnx_path, "-o", os.path.join(d, "model.json")])
    _, s["compile_s"] = timed([a.staxc, "compile", os.path.join(d, "model.json"), "-o", os.path.join(d, "model.cpp"),
                               "--header", os.path.join(d, "model.h"), "--name", "model",
                               "--dump-schedule", os.path.join(d, "schedule.json")])
    s["kernels"] = len(json.load(open(os.path.join(d, "schedule.json")))["kernels"])
    header = open(os.path.join(d, "model.h")).read()
    s["workspace"] = int(re.search(r"model_WORKSPACE_SIZE \(\(size_t\)(\d+)\)", header).group(1))
    r, s["build_s"] = timed(["/usr/bin/time", "-v"] + BUILD + ["-c", "model.cpp", "-o", "model.o"], cwd=d)
    s["build_mib"] = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr).group(1)) / 1024
    run(BUILD + ["-I.", os.path.join(ROOT, "test", "cli", "model_main.cpp"), "model.o", "-o", "model", "-lsleef"], cwd=d)
    run(["./model", "x.bin", "staxc_y.bin"], cwd=d)
    s["y"] = np.fromfile(os.path.join(d, "staxc_y.bin"), dtype="<f4")
    r = run([a.staxc, "bench", os.path.join(d, "model.json"), "--input", "x=" + os.path.join(d, "x.npy"),
             "--threads", "1,2", "--omp-wait-policy", policies, "--reps", str(a.reps), "--json",
             "--cxxflags", " ".join(BUILD[1:])])  # the documented build's flags, as the build column's
    for b in json.loads(r.stdout)["runs"]:
        s[(b["threads"], b["wait_policy"])] = b["median_ms"]


def one_model(a, name, factory, shape, classifier, policies):
    d = os.path.join(a.work, name)
    os.makedirs(d, exist_ok=True)
    onnx_path, torch_y, torch_ms, nodes, params = export(name, factory, shape, d, a.reps)
    ort_y, ort_ms = ort(onnx_path, shape, d, a.reps)
    row = {"name": name, "nodes": nodes, "params": params, "torch": torch_ms, "ort": ort_ms,
           "torch_err": float(np.abs(torch_y.ravel() - ort_y).max() / np.abs(ort_y).max())}
    try:
        staxc_side(a, onnx_path, d, policies, row)
        row["err"] = float(np.abs(row["y"] - ort_y).max() / np.abs(ort_y).max())
        if classifier:
            top_s = row["y"].reshape(shape[0], -1).argmax(1)
            top_o = ort_y.reshape(shape[0], -1).argmax(1)
            row["top1"] = "%d/%d" % ((top_s == top_o).sum(), shape[0])
    except RuntimeError as e:
        row["failed"] = re.sub(r"^staxc: error: ", "", str(e))
    return row


def cell(row, key, spec, width):
    v = row.get(key)
    return (format(v, spec) if v is not None else "-").rjust(width)


def print_table(rows, policies):
    pols = policies.split(",")
    timed_cols = [(1, pols[0])] + [(2, p) for p in pols]
    print("model           nodes  params kernels workspace import s compile s build s build MiB |"
          + "".join(("staxc %dT" % t + ("" if i == 0 else " " + p[:7])).rjust(17) for i, (t, p) in enumerate(timed_cols))
          + " |  ORT 1T  ORT 2T | torch 1T torch 2T | err vs ORT top-1 | torch vs ORT")
    notes = []
    for r in rows:
        line = "%-14s %6d %6.2fM" % (r["name"], r["nodes"], r["params"] / 1e6)
        line += cell(r, "kernels", "d", 8) + (("%9.1fM" % (r["workspace"] / 2**20)) if "workspace" in r else "-".rjust(10))
        line += cell(r, "import_s", ".2f", 9) + cell(r, "compile_s", ".2f", 10) + cell(r, "build_s", ".1f", 8)
        line += cell(r, "build_mib", ".0f", 10) + " |"
        line += "".join(cell(r, k, ".2f", 17) for k in timed_cols)
        line += " | %7.2f %7.2f | %8.2f %8.2f |" % (r["ort"]["1"], r["ort"]["2"], r["torch"][1], r["torch"][2])
        line += cell(r, "err", ".2e", 11) + cell(r, "top1", "s", 6) + " | %.2e" % r["torch_err"]
        if "failed" in r:
            notes.append("%s: %s" % (r["name"], r["failed"]))
            line += "  (*)"
        print(line)
    print("times: median ms per call; staxc from 'staxc bench' (its own loop, buffers reused) under "
          "OMP_WAIT_POLICY %s; ORT from its profiler's model_run; errors: max |a - ORT| / max |ORT|" % " and ".join(pols))
    for n in notes:
        print("(*) " + n)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--staxc", default=os.path.join(ROOT, "build", "tools", "staxc"))
    p.add_argument("--work", default=os.path.join(ROOT, "build", "models"))
    p.add_argument("--only", default="", help="a regular expression on the model names")
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--policies", default="default,passive", help="OMP_WAIT_POLICY values for staxc bench")
    p.add_argument("--set", choices=["models", "operators"], default="models",
                   help="the model zoo, or single operators sized beyond the caches")
    a = p.parse_args()
    a.staxc = os.path.abspath(a.staxc)
    a.work = os.path.abspath(a.work)
    rows = []
    for name, factory, shape, classifier in (models() if a.set == "models" else operators()):
        if a.only and not re.search(a.only, name):
            continue
        print("%s ..." % name, file=sys.stderr, flush=True)
        rows.append(one_model(a, name, factory, shape, classifier, a.policies))
    print_table(rows, a.policies)


if __name__ == "__main__":
    main()
