#!/usr/bin/env python3
"""PyTorch eager running a stax graph op by op: the baseline column of scripts/bench.sh.

    bench/torch_eager.py MODEL.json [--reps N] [--warmup N] [--threads N] [--seed N] [--json]

Each node of the graph (inline nodes included) is one call of the matching torch function, in
graph order, under torch.no_grad(); a value is dropped after its last use, as eager code drops
its temporaries. Inputs are random (floats standard normal, ints in [-8, 8], bools a fair coin),
created once. Prints the median wall-clock time of --reps runs of the whole graph after
--warmup runs (ms), and with --json one JSON object. Needs torch (Debian: python3-torch, which
`scripts/setup.sh --bench` installs); exits with status 2 and a message when it is missing.
"""

import argparse
import json
import math
import statistics
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # the script reports "n/a" for this column
    print("torch_eager.py: PyTorch is not installed (python3-torch)", file=sys.stderr)
    sys.exit(2)

DTYPES = {"float32": torch.float32, "float64": torch.float64, "int32": torch.int32,
          "int64": torch.int64, "bool": torch.bool}
SCALARS = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}

UNARY = {name: getattr(torch, name) for name in (
    "neg abs sign exp exp2 expm1 log log2 log10 log1p sqrt rsqrt reciprocal sin cos tan asin acos "
    "atan sinh cosh tanh sigmoid relu erf erfc floor ceil round trunc logical_not bitwise_not isnan "
    "isinf isfinite").split()}
UNARY["silu"] = F.silu
BINARY = {name: getattr(torch, name) for name in (
    "add sub mul remainder pow maximum minimum atan2 eq ne lt le gt ge logical_and logical_or "
    "logical_xor bitwise_and bitwise_or bitwise_xor").split()}
# Ops whose torch functions take no Python scalar operand: scalars become 0-d tensors, which
# promote as Python scalars do.
TENSOR_ONLY = {"maximum", "minimum", "atan2", "logical_and", "logical_or", "logical_xor"}


def as_tensor_arg(v):
    return v if isinstance(v, torch.Tensor) else torch.tensor(v)


def dims(node, ndim_default=None):
    d = node.get("dim")
    if d is None:
        return ndim_default
    return d if isinstance(d, list) else [d]


def reduce_each(fn, x, node):
    """prod/any/all take one dim at a time in torch."""
    ds = dims(node)
    keep = node.get("keepdim", False)
    if ds is None:
        r = fn(x)
        return r.reshape([1] * x.dim()) if keep else r
    for d in sorted((d % x.dim() for d in ds), reverse=True):
        x = fn(x, dim=d, keepdim=keep)
    return x


def run_op(node, a):
    op = node["op"]
    keep = node.get("keepdim", False)
    if op in UNARY:
        return UNARY[op](a[0])
    if op in BINARY:
        if op in TENSOR_ONLY:
            a = [as_tensor_arg(v) for v in a]
        elif not isinstance(a[0], torch.Tensor):  # torch.add(2, x) needs the tensor first
            return BINARY[op](torch.tensor(a[0]), a[1])
        return BINARY[op](a[0], a[1])
    if op == "div":
        return torch.div(a[0] if isinstance(a[0], torch.Tensor) else torch.tensor(a[0]), a[1],
                         rounding_mode=node.get("rounding_mode"))
    if op == "gelu":
        return F.gelu(a[0], approximate=node.get("approximate", "none"))
    if op == "leaky_relu":
        return F.leaky_relu(a[0], node.get("negative_slope", 0.01))
    if op == "clamp":
        return torch.clamp(a[0], min=node.get("min"), max=node.get("max"))
    if op == "where":
        return torch.where(a[0], as_tensor_arg(a[1]), as_tensor_arg(a[2]))
    if op == "to":
        return a[0].to(DTYPES[node["dtype"]])
    if op == "full":
        dt = node.get("dtype")
        return torch.full(node["shape"], scalar(node["value"]), dtype=DTYPES[dt] if dt else None)
    if op == "arange":
        dt = node.get("dtype")
        return torch.arange(node.get("start", 0), node["end"], node.get("step", 1), dtype=DTYPES[dt] if dt else None)
    if op in ("sum", "mean", "amax", "amin", "logsumexp"):
        fn = getattr(torch, op)
        ds = dims(node)
        if ds is None:
            ds = list(range(a[0].dim()))
        return fn(a[0], dim=ds, keepdim=keep)
    if op in ("prod", "any", "all"):
        return reduce_each(getattr(torch, op), a[0], node)
    if op in ("argmax", "argmin"):
        return getattr(torch, op)(a[0], dim=node.get("dim"), keepdim=keep)
    if op in ("var", "std"):
        return getattr(torch, op)(a[0], dim=dims(node), correction=node.get("correction", 1), keepdim=keep)
    if op in ("cumsum", "cumprod"):
        return getattr(torch, op)(a[0], dim=node["dim"])
    if op == "reshape":
        return a[0].reshape(node["shape"])
    if op == "permute":
        return a[0].permute(node["dims"])
    if op == "transpose":
        return a[0].transpose(node["dim0"], node["dim1"])
    if op == "expand":
        return a[0].expand(node["shape"])
    if op == "unsqueeze":
        return a[0].unsqueeze(node["dim"])
    if op == "squeeze":
        d = node.get("dim")
        if d is None:
            return a[0].squeeze()
        x = a[0]
        for k in sorted((k % x.dim() for k in (d if isinstance(d, list) else [d])), reverse=True):
            x = x.squeeze(k)
        return x
    if op == "flatten":
        return a[0].flatten(node.get("start_dim", 0), node.get("end_dim", -1))
    if op == "slice":
        index = [slice(None)] * a[0].dim()
        index[node["dim"]] = slice(node.get("start"), node.get("end"), node.get("step", 1))
        return a[0][tuple(index)]
    if op == "select":
        return a[0].select(node["dim"], node["index"])
    if op == "cat":
        return torch.cat(a, dim=node["dim"])
    if op == "pad":
        return F.pad(a[0], node["pad"], value=scalar(node.get("value", 0)))
    if op == "softmax":
        return torch.softmax(a[0], dim=node["dim"])
    if op == "log_softmax":
        return torch.log_softmax(a[0], dim=node["dim"])
    if op == "layer_norm":
        shape = node["normalized_shape"]
        shape = shape if isinstance(shape, list) else [shape]
        w = a[1] if len(a) > 1 else None
        b = a[2] if len(a) > 2 else None
        return F.layer_norm(a[0], shape, w, b, eps=node.get("eps", 1e-5))
    if op == "rms_norm":
        shape = node["normalized_shape"]
        shape = shape if isinstance(shape, list) else [shape]
        x, w = a[0], a[1] if len(a) > 1 else None
        eps = node.get("eps")
        if hasattr(F, "rms_norm"):  # torch >= 2.4
            return F.rms_norm(x, shape, w, eps=eps)
        eps = torch.finfo(x.dtype).eps if eps is None else eps
        y = x * torch.rsqrt(torch.mean(x * x, dim=list(range(-len(shape), 0)), keepdim=True) + eps)
        return y * w if w is not None else y
    if op == "linear":
        return F.linear(a[0], a[1], a[2] if len(a) > 2 else None)
    if op == "matmul":
        return torch.matmul(a[0], a[1])
    raise SystemExit(f"torch_eager.py: op '{op}' is not supported here")


def scalar(v):
    return SCALARS[v] if isinstance(v, str) else v


class Program:
    """The graph flattened into steps (inline nodes first), with each value's last use."""

    def __init__(self, graph):
        self.steps = []  # (name, node, argument list of ("value", name) / ("scalar", v) / ("none",))
        self.count = 0
        for node in graph.get("nodes", []):
            self.add(node, node["name"])
        self.outputs = graph["outputs"]
        last = {}
        for i, (_, _, args) in enumerate(self.steps):
            for kind, *rest in args:
                if kind == "value":
                    last[rest[0]] = i
        self.last_use = last

    def add(self, node, name):
        args = []
        for arg in node.get("args", []):
            if isinstance(arg, dict):
                self.count += 1
                inner = f"%inline{self.count}"
                self.add(arg, inner)
                args.append(("value", inner))
            elif isinstance(arg, str) and arg not in SCALARS:
                args.append(("value", arg))
            elif arg is None:
                args.append(("none",))
            else:
                args.append(("scalar", scalar(arg)))
        self.steps.append((name, node, args))

    def run(self, env):
        env = dict(env)
        keep = set(self.outputs)
        for i, (name, node, args) in enumerate(self.steps):
            values = [env[r[0]] if k == "value" else (r[0] if k == "scalar" else None) for k, *r in args]
            while values and values[-1] is None and node["op"] in ("layer_norm", "rms_norm", "linear"):
                values.pop()
            env[name] = run_op(node, values)
            for k, *r in args:  # drop what no later step reads
                if k == "value" and self.last_use.get(r[0]) == i and r[0] not in keep:
                    env.pop(r[0], None)
        return [env[o] for o in self.outputs]


def random_tensor(spec, gen):
    dtype, shape = DTYPES[spec["dtype"]], spec["shape"]
    if dtype.is_floating_point:
        return torch.randn(shape, generator=gen, dtype=dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=gen).bool()
    return torch.randint(-8, 9, shape, generator=gen, dtype=dtype)


def constant_tensor(spec, base_dir):
    dtype, shape = DTYPES[spec["dtype"]], spec["shape"]
    if "fill" in spec:
        return torch.full(shape, scalar(spec["fill"]), dtype=dtype)
    if "data" in spec:
        return torch.tensor([scalar(v) for v in spec["data"]], dtype=dtype).reshape(shape)
    with open(f"{base_dir}/{spec['file']}", "rb") as f:
        return torch.frombuffer(bytearray(f.read()), dtype=dtype).reshape(shape).clone()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model")
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: torch's default)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    o = p.parse_args()
    if o.threads > 0:
        torch.set_num_threads(o.threads)
    with open(o.model) as f:
        graph = json.load(f)
    base_dir = o.model.rsplit("/", 1)[0] if "/" in o.model else "."
    gen = torch.Generator().manual_seed(o.seed)
    env = {spec["name"]: random_tensor(spec, gen) for spec in graph["inputs"]}
    for spec in graph.get("constants", []):
        env[spec["name"]] = constant_tensor(spec, base_dir)
    program = Program(graph)
    times = []
    with torch.no_grad():
        for _ in range(o.warmup):
            program.run(env)
        for _ in range(o.reps):
            t0 = time.perf_counter()
            program.run(env)
            times.append((time.perf_counter() - t0) * 1e3)
    result = {"model": graph["name"], "threads": torch.get_num_threads(), "torch": torch.__version__,
              "median_ms": statistics.median(times), "min_ms": min(times), "ms": times}
    if o.json:
        print(json.dumps(result))
    else:
        print(f"{graph['name']}: median {result['median_ms']:.3f} ms over {o.reps} runs "
              f"(torch {torch.__version__}, {result['threads']} threads)")


if __name__ == "__main__":
    main()
