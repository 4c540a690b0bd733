#!/usr/bin/env python3
"""PyTorch eager on the shapes of bench/gemm_bench.cpp (the PyTorch column of scripts/bench_gemm.sh).

    torch_gemm.py --threads 1,2 [--seconds S]

For each thread count and shape: the median of the timed calls after two warm-up calls, inputs
allocated once (torch.matmul; the MLP as F.linear-free matmul + bias -> gelu -> matmul + bias, as
eager runs it op by op). Prints one line per shape: name, threads, ms, GFLOP/s.
"""
import argparse
import statistics
import time

import torch

SHAPES = [  # name, batch, M, N, K, kind (as gemm_bench.cpp)
    ("square 1024", 1, 1024, 1024, 1024, "plain"),
    ("square 2048", 1, 2048, 2048, 2048, "plain"),
    ("MLP up [512,1024]x[1024,4096]", 1, 512, 4096, 1024, "plain"),
    ("MLP down [512,4096]x[4096,1024]", 1, 512, 1024, 4096, "plain"),
    ("attn [128,256]x[256,256]", 1, 128, 256, 256, "plain"),
    ("ffn [128,256]x[256,1024]", 1, 128, 1024, 256, "plain"),
    ("ffn [128,1024]x[1024,256]", 1, 128, 256, 1024, "plain"),
    ("M=1 [1,4096]x[4096,4096]", 1, 1, 4096, 4096, "plain"),
    ("M=16 [16,4096]x[4096,4096]", 1, 16, 4096, 4096, "plain"),
    ("batched [8,128,64]x[8,64,128]", 8, 128, 128, 64, "batched"),
    ("MLP + epilogues (generated)", 2, 512, 4096, 1024, "mlp"),
]


def runner(batch, m, n, k, kind):
    g = torch.Generator().manual_seed(0)
    if kind == "mlp":
        x = torch.randn(m, k, generator=g)
        w1, b1 = torch.randn(k, n, generator=g) * 0.05, torch.randn(n, generator=g) * 0.05
        w2, b2 = torch.randn(n, k, generator=g) * 0.05, torch.randn(k, generator=g) * 0.05
        return lambda: torch.nn.functional.gelu(x @ w1 + b1) @ w2 + b2
    shape_a = (batch, m, k) if kind == "batched" else (m, k)
    shape_b = (batch, k, n) if kind == "batched" else (k, n)
    a, b = torch.randn(*shape_a, generator=g), torch.randn(*shape_b, generator=g)
    out = torch.empty(*(shape_a[:-1] + (n,)))
    return lambda: torch.matmul(a, b, out=out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args()
    print(f"PyTorch {torch.__version__} eager ({torch.__config__.parallel_info().splitlines()[0]})")
    for threads in (int(t) for t in args.threads.split(",")):
        torch.set_num_threads(threads)
        for name, batch, m, n, k, kind in SHAPES:
            f = runner(batch, m, n, k, kind)
            f(), f()
            t0 = time.perf_counter()
            f()
            one = time.perf_counter() - t0
            reps = max(5, min(50, int(args.seconds / max(one, 1e-9))))
            times = []
            for _ in range(reps):
                t0 = time.perf_counter()
                f()
                times.append(time.perf_counter() - t0)
            t = statistics.median(times)
            print(f"{name:<32} {threads:>3} | {t * 1e3:9.3f} ms {2.0 * batch * m * n * k / t / 1e9:8.1f} GFLOP/s")


if __name__ == "__main__":
    main()
