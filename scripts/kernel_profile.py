#!/usr/bin/python3
"""Where a model's time goes, kernel by kernel: one table of the generated code's kernels.

    scripts/kernel_profile.py MODEL [--input NAME=FILE.npy ...] [--threads 1,2] [--reps 20]
                              [--staxc build/tools/staxc] [--cxxflags "..."] [--keep DIR]

MODEL is a stax graph (.json) or an ONNX model (.onnx). staxc compiles it; a copy of the
generated source then reads the clock around every kernel call of its run function (and around
each parallel region it opens itself), and a small program calls the model REPS times after 3
warm-up calls, buffers reused, under each thread count. The table gives each kernel's median
milliseconds per call, its share of the sum at the first thread count, and what it computes (the
kernel's first comment line in the generated code). Inputs not given are drawn as `staxc bench`
draws them: floats standard normal, integers 0 (so that indices stay in range), bools false.

Not a test, and not the figure to quote for a whole model (the clock reads add about 50 ns per
kernel): `staxc bench` is. Use it to see which kernels to work on, and compare kernels against
ONNX Runtime's profiler per node (scripts/ort_nodes.js).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DTYPES = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "int64": np.int64, "bool": np.bool_}

MAIN = r"""
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "model.h"
extern "C" double* kprof_times();
extern "C" int kprof_count();
static const char* dtype_name(int d) {
  switch (d) {
    case STAX_FLOAT32: return "float32"; case STAX_FLOAT64: return "float64"; case STAX_INT32: return "int32";
    case STAX_INT64: return "int64"; case STAX_BOOL: return "bool"; default: return "?";
  }
}
static size_t bytes(int dtype, int ndim, const int64_t* shape) {
  size_t n = dtype == STAX_FLOAT64 || dtype == STAX_INT64 ? 8 : dtype == STAX_BOOL ? 1 : 4;
  for (int d = 0; d < ndim; ++d) n *= static_cast<size_t>(shape[d]);
  return n;
}
int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--describe") == 0) {
    for (int i = 0; i < model_num_inputs(); ++i) {
      std::printf("%s %s", model_input_name(i), dtype_name(model_input_dtype(i)));
      for (int d = 0; d < model_input_ndim(i); ++d) std::printf(" %lld", static_cast<long long>(model_input_shape(i)[d]));
      std::printf("\n");
    }
    return 0;
  }
  const int reps = std::atoi(argv[1]);
  std::vector<std::vector<unsigned char>> in(model_num_inputs()), out(model_num_outputs());
  std::vector<const void*> ins;
  std::vector<void*> outs;
  for (int i = 0; i < model_num_inputs(); ++i) {
    in[i].resize(bytes(model_input_dtype(i), model_input_ndim(i), model_input_shape(i)));
    FILE* f = std::fopen(argv[2 + i], "rb");
    if (f == nullptr || std::fread(in[i].data(), 1, in[i].size(), f) != in[i].size()) return 2;
    std::fclose(f);
    ins.push_back(in[i].data());
  }
  for (int i = 0; i < model_num_outputs(); ++i) {
    out[i].resize(bytes(model_output_dtype(i), model_output_ndim(i), model_output_shape(i)) + 1);
    outs.push_back(out[i].data());
  }
  void* ws = std::aligned_alloc(model_WORKSPACE_ALIGNMENT, (model_WORKSPACE_SIZE + 64) / 64 * 64);
  for (int r = 0; r < 3; ++r)
    if (int rc = model_run(ins.data(), outs.data(), ws)) { std::fprintf(stderr, "%s\n", model_strerror(rc)); return 3; }
  const int n = kprof_count();
  std::vector<std::vector<double>> t(n);
  for (int r = 0; r < reps; ++r) {
    double* acc = kprof_times();
    std::fill(acc, acc + n, 0.0);
    model_run(ins.data(), outs.data(), ws);
    for (int i = 0; i < n; ++i) t[i].push_back(acc[i]);
  }
  for (int i = 0; i < n; ++i) {
    std::sort(t[i].begin(), t[i].end());
    std::printf("%d %.6f\n", i, t[i][t[i].size() / 2] * 1e3);
  }
  std::free(ws);
  return 0;
}
"""

PRELUDE = """#include <chrono>
namespace {
double kprof_acc[%d];
inline double kprof_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace
extern "C" double* kprof_times() { return kprof_acc; }
extern "C" int kprof_count() { return %d; }
"""


def instrument(src):
    """The source with a clock read around each kernel call of run_model; the kernels' names."""
    lines = src.split("\n")
    out, names, in_run, region = [], [], False, None
    for i, line in enumerate(lines):
        if re.match(r"^int run_\w+\(const void\* const\* inputs", line):
            in_run = True
        elif in_run and line.startswith("  return STAX_OK;"):
            in_run = False
        if in_run and re.match(r"^  kernel_\w+\(.*\);$", line):
            n = len(names)
            names.append(re.match(r"^  (kernel_\w+)", line).group(1))
            out += ["  { const double kprof_t0 = kprof_now();", line,
                    "  kprof_acc[%d] += kprof_now() - kprof_t0; }" % n]
            continue
        if in_run and line.startswith("  if (stax_rt::run_parallel"):
            region = len(names)
            following = "\n".join(lines[i:i + 6])
            m = re.search(r"(kernel_\w+)\(", following)
            names.append(m.group(1) if m else "parallel region")
            out += ["  const double kprof_r%d = kprof_now();" % region, line]
            continue
        out.append(line)
        if in_run and region is not None and line == "  }":
            out.append("  kprof_acc[%d] += kprof_now() - kprof_r%d;" % (region, region))
            region = None
    return PRELUDE % (max(len(names), 1), len(names)) + "\n".join(out), names


def descriptions(src):
    """Kernel name -> its first comment line in the generated code."""
    d = {}
    for m in re.finditer(r"^// kernel (\w+) \(([^)]*)\)(?::? ?(.*))?\n(//.*\n)?", src, re.M):
        text = (m.group(3) or "").strip()
        if not text and m.group(4):
            text = m.group(4)[2:].strip()
        d["kernel_" + m.group(1)] = (m.group(2) + ": " + text).strip()
    return d


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit("kernel_profile.py: %s failed (%d):\n%s%s" % (cmd[0], r.returncode, r.stdout, r.stderr))
    return r.stdout


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model")
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy")
    p.add_argument("--threads", default="1,2")
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--staxc", default=os.path.join(ROOT, "build", "tools", "staxc"))
    p.add_argument("--cxxflags", default="-std=c++17 -O3 -march=native -fopenmp")
    p.add_argument("--keep", help="build in DIR and keep it (default: a temporary folder)")
    a = p.parse_args()
    given = {}
    for spec in a.input:
        if "=" not in spec:
            sys.exit("kernel_profile.py: --input takes NAME=FILE.npy, got '%s'" % spec)
        name, path = spec.split("=", 1)
        given[name] = np.load(path)
    work = a.keep or tempfile.mkdtemp(prefix="kprof_")
    os.makedirs(work, exist_ok=True)
    try:
        profile(a, work, given)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


def profile(a, work, given):
    cpp = os.path.join(work, "model.cpp")
    run([a.staxc, "compile", os.path.abspath(a.model), "-o", cpp, "--header", os.path.join(work, "model.h"),
         "--name", "model"])
    src = open(cpp).read()
    text, names = instrument(src)
    about = descriptions(src)
    open(cpp, "w").write(text)
    open(os.path.join(work, "main.cpp"), "w").write(MAIN)
    flags = a.cxxflags.split()
    run(["g++"] + flags + ["-I" + work, "-c", cpp, "-o", os.path.join(work, "model.o")], cwd=work)
    run(["g++"] + flags + ["-I" + work, os.path.join(work, "main.cpp"), os.path.join(work, "model.o"),
         "-o", os.path.join(work, "prof"), "-lsleef"], cwd=work)
    exe = os.path.join(work, "prof")
    rng = np.random.default_rng(a.seed)
    files = []
    for i, line in enumerate(run([exe, "--describe"]).split("\n")):
        if not line:
            continue
        name, dtype, *dims = line.split()
        shape = tuple(int(d) for d in dims)
        x = given.get(name)
        if x is None:
            x = rng.standard_normal(shape) if dtype.startswith("float") else np.zeros(shape)
        elif tuple(x.shape) != shape or x.dtype != DTYPES[dtype]:
            sys.exit("kernel_profile.py: input %s must be %s%s, got %s%s" % (name, dtype, list(shape), x.dtype,
                                                                             list(x.shape)))
        f = os.path.join(work, "in%d.bin" % i)
        np.ascontiguousarray(x, dtype=DTYPES[dtype]).tofile(f)
        files.append(f)
    threads = [int(t) for t in a.threads.split(",")]
    times = {}
    for t in threads:
        env = dict(os.environ, OMP_NUM_THREADS=str(t))
        out = run([exe, str(a.reps)] + files, env=env)
        times[t] = [float(l.split()[1]) for l in out.split("\n") if l]
    total = sum(times[threads[0]]) or 1.0
    head = "  # kernel              " + "".join("%9s" % ("%dT ms" % t) for t in threads) + "   share  computes"
    print(head)
    for i, n in enumerate(names):
        ms = "".join("%9.3f" % times[t][i] for t in threads)
        print("%3d %-20s%s %6.1f%%  %s" % (i, n[len("kernel_"):][:20], ms, 100 * times[threads[0]][i] / total,
                                           about.get(n, "")[:110]))
    print("sum " + " " * 19 + "".join("%9.3f" % sum(times[t]) for t in threads))


if __name__ == "__main__":
    main()
