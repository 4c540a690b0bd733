#!/usr/bin/python3
"""Makes the tiny models of the model tests (test/importer/models): two PyTorch modules with
seeded random weights in eval mode, exported by torch.onnx.export, each with an input and
PyTorch eager's output as .npy files:

  tiny_cnn          conv, batch_norm, relu, max pool, a residual block (add), global average
                    pool, linear: x float32[2, 3, 16, 16] -> logits float32[2, 10]
  tiny_transformer  a post-LN encoder block: 4-head self-attention, layer norm, an erf-GELU MLP,
                    layer norm: x float32[2, 16, 64] -> y float32[2, 16, 64]

Some of their weights are larger than staxc's default --weights-threshold (16384 bytes) and
some smaller, so the generated code holds both literal constants and a weights file.

Needs torch and onnx (scripts/setup.sh --onnx installs Debian's); the files it writes are
committed, so the tests need neither:
  /usr/bin/python3 test/importer/models/make_models.py [OUT_DIR]   (default: this folder)
"""
import os
import sys

import numpy as np
import torch

OPSET = 17


class TinyCnn(torch.nn.Module):
    def __init__(self, c=32, classes=10):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, c, 3, padding=1, bias=False)
        self.bn0 = torch.nn.BatchNorm2d(c)
        self.pool = torch.nn.MaxPool2d(2)
        self.conv1 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(c)
        self.conv2 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(c)
        self.fc = torch.nn.Linear(c, classes)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn0(self.stem(x))))
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        x = torch.relu(x + y)
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


class TinyTransformer(torch.nn.Module):
    """BERT's layer: post-LN, erf GELU, attention written out as exporters see it."""

    def __init__(self, d=64, heads=4, ffn=128):
        super().__init__()
        self.heads = heads
        self.q = torch.nn.Linear(d, d)
        self.k = torch.nn.Linear(d, d)
        self.v = torch.nn.Linear(d, d)
        self.o = torch.nn.Linear(d, d)
        self.ln1 = torch.nn.LayerNorm(d)
        self.up = torch.nn.Linear(d, ffn)
        self.down = torch.nn.Linear(ffn, d)
        self.ln2 = torch.nn.LayerNorm(d)

    def split(self, t):
        b, n, d = t.shape
        return t.reshape(b, n, self.heads, d // self.heads).transpose(1, 2)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
        att = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, dim=-1)
        h = (att @ v).transpose(1, 2).reshape(b, n, d)
        x = self.ln1(x + self.o(h))
        return self.ln2(x + self.down(torch.nn.functional.gelu(self.up(x))))


def randomize(module, g):
    """Weights and batch-norm statistics away from the identity, so a swapped operand shows."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            scale = 0.5 if name.endswith("bias") else 1.0 / max(1, p[0].numel()) ** 0.5
            p.copy_(torch.randn(p.shape, generator=g) * scale)
            if "ln" in name and name.endswith("weight"):
                p.add_(1.0)
        for m in module.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=g) + 0.5)


def export(name, module, shape, out_dir, seed):
    g = torch.Generator().manual_seed(seed)
    randomize(module, g)
    module.eval()
    x = torch.randn(shape, generator=g)
    with torch.no_grad():
        y = module(x)
        torch.onnx.export(module, (x,), os.path.join(out_dir, name + ".onnx"), opset_version=OPSET,
                          input_names=["x"], output_names=["y"], do_constant_folding=True)
    np.save(os.path.join(out_dir, name + ".input.npy"), x.numpy().astype("<f4"))
    np.save(os.path.join(out_dir, name + ".expected.npy"), y.numpy().astype("<f4"))
    size = os.path.getsize(os.path.join(out_dir, name + ".onnx"))
    print(f"{name}: {size} bytes of ONNX, output {tuple(y.shape)}, max |y| {y.abs().max():.4g}")


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    torch.manual_seed(0)
    export("tiny_cnn", TinyCnn(), (2, 3, 16, 16), out_dir, 1)
    export("tiny_transformer", TinyTransformer(), (2, 16, 64), out_dir, 2)


if __name__ == "__main__":
    main()
