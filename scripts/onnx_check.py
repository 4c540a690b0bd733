#!/usr/bin/python3
"""Import real ONNX exports with staxc and compare them with PyTorch.

Each case is a PyTorch module (torchvision's classification models at a small resolution,
transformer encoder and decoder blocks, an embedding model, a module of shape manipulations)
exported by torch.onnx.export at each opset asked for, with a symbolic batch dim. For each export:
  1. `staxc import` must succeed (with --input-shape fixing the batch) and write the graph and its
     weights file;
  2. `staxc interpret MODEL.onnx` (the model imported in memory) must give PyTorch's outputs
     within RTOL relative + ATOL absolute (float32 models through dozens of layers: the
     reference interpreter computes in double, PyTorch in float);
  3. with --run, `staxc run MODEL.onnx` (the generated code) must too.
A model the front end cannot evaluate yet (an op of graph-format.md not in it) is reported as
"imported only" with the op, not as a failure. The summary lists each export, its ONNX ops and
the worst error.

Needs torch, torchvision and onnx (scripts/setup.sh --onnx installs Debian's); run with that
interpreter, after building staxc:
  /usr/bin/python3 scripts/onnx_check.py                   # every case, opsets 11 13 14 17
  /usr/bin/python3 scripts/onnx_check.py --only 'resnet|enc' --opsets 13 --run
Exit status: 0 when every export imports and matches (or torch is missing), 1 otherwise.
"""
import sys

try:
    import numpy as np
    import onnx
    import torch
    import torchvision
except ImportError as e:
    print(f"skipped: {e.name} is missing")
    sys.exit(0)

import argparse
import os
import re
import subprocess
import tempfile
import warnings

RTOL, ATOL = 1e-4, 1e-4
IMAGE = (1, 3, 64, 64)


class EncoderBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.1, batch_first=True,
                                                      activation="gelu")

    def forward(self, x):
        return self.layer(x)


class EncoderPreNorm(torch.nn.Module):
    """A pre-norm encoder layer: ReLU, 8 heads of 4, layer norms of eps 1e-6."""

    def __init__(self):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(32, 8, 48, dropout=0.0, batch_first=True,
                                                      norm_first=True, layer_norm_eps=1e-6)

    def forward(self, x):
        return self.layer(x)


class Gpt2Block(torch.nn.Module):
    """A GPT-2 block written out: fused QKV projection split three ways, a causal mask from a
    lower-triangular buffer by masked_fill, tanh-approximated GELU, residuals around pre-norms."""

    def __init__(self, d=32, heads=4, t=16):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.up, self.down = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)
        self.register_buffer("causal", torch.tril(torch.ones(t, t)).view(1, 1, t, t))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / (d // self.heads) ** 0.5)
        att = att.masked_fill(self.causal[:, :, :t, :t] == 0, float("-inf")).softmax(dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).contiguous().view(b, t, d))
        return x + self.down(torch.nn.functional.gelu(self.up(self.ln2(x)), approximate="tanh"))


class LlamaBlock(torch.nn.Module):
    """A Llama-style block: RMSNorm, rotary position embeddings (rotate_half), grouped-query
    attention (2 key-value heads for 4 query heads), a SiLU-gated MLP, no biases."""

    def __init__(self, d=32, heads=4, kv_heads=2):
        super().__init__()
        self.heads, self.kv, self.hd = heads, kv_heads, d // heads
        self.q = torch.nn.Linear(d, d, bias=False)
        self.k = torch.nn.Linear(d, kv_heads * self.hd, bias=False)
        self.v = torch.nn.Linear(d, kv_heads * self.hd, bias=False)
        self.o = torch.nn.Linear(d, d, bias=False)
        self.gate, self.up = torch.nn.Linear(d, 48, bias=False), torch.nn.Linear(d, 48, bias=False)
        self.down = torch.nn.Linear(48, d, bias=False)
        self.w1, self.w2 = torch.nn.Parameter(torch.rand(d) + 0.5), torch.nn.Parameter(torch.rand(d) + 0.5)

    @staticmethod
    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w

    def rope(self, x, t):
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        f = torch.outer(torch.arange(t).float(), inv)
        emb = torch.cat((f, f), dim=-1)
        x1, x2 = x[..., : self.hd // 2], x[..., self.hd // 2:]
        return x * emb.cos() + torch.cat((-x2, x1), dim=-1) * emb.sin()

    def forward(self, x):
        b, t, d = x.shape
        h = self.rms(x, self.w1)
        q = self.rope(self.q(h).view(b, t, self.heads, self.hd).transpose(1, 2), t)
        k = self.rope(self.k(h).view(b, t, self.kv, self.hd).transpose(1, 2), t)
        v = self.v(h).view(b, t, self.kv, self.hd).transpose(1, 2)
        # Each key-value head repeated for its query heads as Hugging Face's repeat_kv does
        # (torch 1.13 exports repeat_interleave of a computed tensor with a wrong Reshape).
        rep = self.heads // self.kv
        k, v = (z[:, :, None].expand(b, self.kv, rep, t, self.hd).reshape(b, self.heads, t, self.hd) for z in (k, v))
        mask = torch.full((t, t), float("-inf")).triu(1)
        att = ((q @ k.transpose(-2, -1)) / self.hd ** 0.5 + mask).softmax(-1)
        x = x + self.o((att @ v).transpose(1, 2).reshape(b, t, d))
        h = self.rms(x, self.w2)
        return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))


class NormsActs(torch.nn.Module):
    """GroupNorm and InstanceNorm (ONNX InstanceNormalization), SELU, CELU, Mish, LogSigmoid."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.gn = torch.nn.GroupNorm(4, 8)
        self.inorm = torch.nn.InstanceNorm2d(8, affine=True)

    def forward(self, x):
        h = torch.nn.functional.selu(self.gn(self.conv(x)))
        h = torch.nn.functional.celu(self.inorm(h), alpha=0.5)
        return torch.nn.functional.mish(h) + torch.nn.functional.logsigmoid(h)


class DecoderBlock(torch.nn.Module):
    """A pre-norm decoder layer with a causal mask (Trilu from opset 14)."""

    def __init__(self):
        super().__init__()
        self.layer = torch.nn.TransformerDecoderLayer(32, 4, 64, dropout=0.0, batch_first=True,
                                                      norm_first=True)

    def forward(self, x, memory):
        mask = torch.nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        return self.layer(x, memory, tgt_mask=mask)


class TinyBert(torch.nn.Module):
    """Token and position embeddings, a padding mask, two encoder layers, a pooled head."""

    def __init__(self):
        super().__init__()
        self.tok = torch.nn.Embedding(100, 32)
        self.pos = torch.nn.Embedding(16, 32)
        layer = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = torch.nn.Linear(32, 3)

    def forward(self, ids, mask):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        h = self.tok(ids) + self.pos(pos)
        h = self.enc(h, src_key_padding_mask=mask == 0)
        return self.head(h[:, 0]).log_softmax(-1)


class ShapeOps(torch.nn.Module):
    """View, slicing, padding, reductions and masks as exporters write them (Shape chains)."""

    def forward(self, x):
        n = x.shape[0]
        y = x.view(n, -1, 4).transpose(1, 2).contiguous()
        z = torch.cat([y, y * 2], dim=1)[:, ::2, 1:]
        z = torch.nn.functional.pad(z, (1, 2)).clamp(min=-1.0)
        w = torch.where(z > 0, z, torch.zeros_like(z)).amax(dim=1)
        return z.sum(dim=-1, keepdim=True).expand(-1, -1, 3) + torch.arange(3).float(), w, \
            torch.log_softmax(x, 1), x.reshape(n, 3, 4).permute(2, 0, 1).flatten(1)


def vision(name, **kw):
    return lambda: getattr(torchvision.models, name)(**kw)


# name -> (module factory, input shapes, input kinds)
CASES = {
    "resnet18": (vision("resnet18"), [IMAGE], "f"),
    "mobilenet_v3_small": (vision("mobilenet_v3_small"), [IMAGE], "f"),
    "mobilenet_v2": (vision("mobilenet_v2"), [IMAGE], "f"),
    "efficientnet_b0": (vision("efficientnet_b0"), [IMAGE], "f"),
    "squeezenet1_1": (vision("squeezenet1_1"), [IMAGE], "f"),
    "densenet121": (vision("densenet121"), [IMAGE], "f"),
    "googlenet": (vision("googlenet", aux_logits=False, init_weights=True), [IMAGE], "f"),
    "shufflenet_v2_x0_5": (vision("shufflenet_v2_x0_5"), [IMAGE], "f"),
    "mnasnet0_5": (vision("mnasnet0_5"), [IMAGE], "f"),
    "regnet_x_400mf": (vision("regnet_x_400mf"), [IMAGE], "f"),
    "vgg11_bn": (vision("vgg11_bn"), [(1, 3, 224, 224)], "f"),
    "alexnet": (vision("alexnet"), [(1, 3, 224, 224)], "f"),
    "convnext_tiny": (vision("convnext_tiny"), [IMAGE], "f"),
    "vit_b_16": (vision("vit_b_16", image_size=32), [(1, 3, 32, 32)], "f"),
    "swin_t": (vision("swin_t"), [IMAGE], "f"),
    "inception_v3": (vision("inception_v3", aux_logits=False, init_weights=False), [(1, 3, 96, 96)], "f"),
    "resnext50_32x4d": (vision("resnext50_32x4d"), [IMAGE], "f"),
    "regnet_y_400mf": (vision("regnet_y_400mf"), [IMAGE], "f"),
    "mobilenet_v3_large": (vision("mobilenet_v3_large"), [IMAGE], "f"),
    "efficientnet_v2_s": (vision("efficientnet_v2_s"), [IMAGE], "f"),
    "maxvit_t": (vision("maxvit_t"), [(1, 3, 224, 224)], "f"),
    "encoder_block": (EncoderBlock, [(2, 7, 32)], "f"),
    "encoder_prenorm": (EncoderPreNorm, [(2, 7, 32)], "f"),
    "decoder_block": (DecoderBlock, [(2, 5, 32), (2, 6, 32)], "ff"),
    "gpt2_block": (Gpt2Block, [(2, 16, 32)], "f"),
    "norms_acts": (NormsActs, [(2, 3, 12, 12)], "f"),
    "llama_block": (LlamaBlock, [(2, 10, 32)], "f"),
    "tiny_bert": (TinyBert, [(2, 9), (2, 9)], "im"),
    "shape_ops": (ShapeOps, [(2, 12)], "f"),
}


def perturb(module, g):
    """Batch norms with statistics and affine parameters away from the identity, biases away
    from zero, no all-zero weight (ViT's head): a mapping that swaps an argument or drops a
    bias then shows in the outputs."""
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.track_running_stats:
                c = m.num_features
                m.running_mean.copy_(torch.from_numpy(g.normal(0, 0.2, c).astype(np.float32)))
                m.running_var.copy_(torch.from_numpy(g.uniform(0.5, 2.0, c).astype(np.float32)))
                if m.affine:
                    m.weight.copy_(torch.from_numpy(g.uniform(0.5, 1.5, c).astype(np.float32)))
            for name, p in m.named_parameters(recurse=False):
                if name == "bias":
                    p.add_(torch.from_numpy(g.normal(0, 0.1, tuple(p.shape)).astype(np.float32)))
                elif float(p.abs().max()) == 0:
                    p.copy_(torch.from_numpy(g.normal(0, 0.05, tuple(p.shape)).astype(np.float32)))


def make_input(kind, shape, g):
    if kind == "i":
        return torch.from_numpy(g.integers(0, 100, size=shape).astype(np.int64))
    if kind == "m":
        m = np.ones(shape, dtype=np.int64)
        m[-1, shape[1] // 2:] = 0
        return torch.from_numpy(m)
    return torch.from_numpy(g.standard_normal(size=shape).astype(np.float32))


def staxc(args, exe):
    r = subprocess.run([exe] + args, capture_output=True, text=True)
    return r.returncode, (r.stderr or r.stdout).strip()


def missing_op(message):
    """The stax op a later stage does not take yet, from its error message."""
    m = re.search(r"unknown op '([a-z0-9_]+)'", message) or \
        re.search(r"([a-z0-9_]+) is not supported by code generation yet", message)
    return m.group(1) if m else None


def check_export(name, opset, work, exe, run):
    """One export through import, interpret (and run): (status, worst error, ops, detail)."""
    factory, shapes, kinds = CASES[name]
    torch.manual_seed(0)
    module = factory().eval()
    g = np.random.default_rng(0)
    perturb(module, g)
    xs = [make_input(k, s, g) for k, s in zip(kinds, shapes)]
    names = [f"x{i}" for i in range(len(xs))]
    model = os.path.join(work, f"{name}_{opset}.onnx")
    with torch.no_grad():
        ref = module(*xs)
    ref = ref if isinstance(ref, tuple) else (ref,)
    outs = [f"y{i}" for i in range(len(ref))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            torch.onnx.export(module, tuple(xs), model, opset_version=opset, input_names=names,
                              output_names=outs, dynamic_axes={n: {0: "batch"} for n in names})
        except Exception as e:  # an op PyTorch cannot export at this opset
            return "not exported", None, [], str(e).splitlines()[0][:120]
    ops = sorted({n.op_type for n in onnx.load(model, load_external_data=False).graph.node})
    shape_args = []
    for n, x in zip(names, xs):
        shape_args += ["--input-shape", f"{n}={','.join(str(d) for d in x.shape)}"]
    code, msg = staxc(["import", model, "-o", os.path.join(work, f"{name}_{opset}.json")] + shape_args, exe)
    if code != 0:
        return "IMPORT FAILED", None, ops, msg
    input_args = []
    for n, x in zip(names, xs):
        path = os.path.join(work, f"{name}_{opset}_{n}.npy")
        np.save(path, x.numpy())
        input_args += ["--input", f"{n}={path}"]
    worst, scale = 0.0, max(float(np.abs(t.numpy()).max()) for t in ref)
    for command in ["interpret"] + (["run"] if run else []):
        out_dir = os.path.join(work, f"{name}_{opset}_{command}")
        code, msg = staxc([command, model, "--output-dir", out_dir] + shape_args + input_args, exe)
        if code != 0:
            op = missing_op(msg)
            if op and command == "interpret":
                return "imported only", None, ops, f"'{op}' is not in the front end yet"
            if op:
                return "interpreted only", worst, ops, f"'{op}' is not in code generation yet"
            return f"{command.upper()} FAILED", None, ops, msg
        for o, t in zip(outs, ref):
            got, want = np.load(os.path.join(out_dir, f"{o}.npy")), t.numpy()
            if got.shape != want.shape or got.dtype != want.dtype:
                return "MISMATCH", None, ops, f"{o}: {got.dtype}{list(got.shape)} != {want.dtype}{list(want.shape)}"
            err = np.abs(got.astype(np.float64) - want)
            worst = max(worst, float(err.max()))
            if not np.all(err <= ATOL + RTOL * np.abs(want)):
                return "MISMATCH", worst, ops, f"{command} {o}: worst error {worst:.3g} (outputs up to {scale:.2g})"
    return "ok", worst, ops, f"(outputs up to {scale:.2g})"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--staxc", default="build/tools/staxc")
    p.add_argument("--only", default="", help="regular expression on case names")
    p.add_argument("--opsets", default="11,13,14,17")
    p.add_argument("--run", action="store_true", help="also build and run the generated code")
    p.add_argument("-v", "--verbose", action="store_true", help="list each export's ONNX ops")
    a = p.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory(prefix="onnx_check_") as work:
        for name in CASES:
            if a.only and not re.search(a.only, name):
                continue
            for opset in [int(o) for o in a.opsets.split(",")]:
                status, worst, ops, detail = check_export(name, opset, work, a.staxc, a.run)
                failures += status.isupper()
                err = "" if worst is None else f"{worst:.2g}"
                print(f"{name:20} opset {opset:2}  {status:14} {err:9} {detail}", flush=True)
                if a.verbose and ops:
                    print(f"{'':29}ops: {' '.join(ops)}")
    print(f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
