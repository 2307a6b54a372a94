"""Chain profiles of two networks, measured by ebb.torch.profile_blocks on
this machine, for the anchors test (tests/python/test_chain_anchors.py):
ResNet-50 as 18 blocks (its stem, its 16 bottleneck blocks, its head; CPU,
batch 8 of 128 x 128 images; resnet_blocks.py's model) and a 12-layer
Transformer encoder as 14 blocks (a token embedding, 12 encoder layers of
width 256, 4 heads and 1024 hidden, a 1000-way head; batch 8 of 256
tokens). Sizes are rounded up to 64 KiB, so that a budget in those units
is counted exactly.

    PYTHONPATH=bindings/python EBB_LIBRARY=build/release/libebb.so \\
        /usr/bin/python3 benchmarks/python/chain_profiles.py > tests/python/data/chain_anchors.json
"""

import json
import os
import platform
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import resnet_blocks  # noqa: E402

import ebb.torch  # noqa: E402

GRID = 64 << 10


def transformer(torch):
    nn = torch.nn
    torch.manual_seed(0)

    class Embed(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(1000, 256)
            self.pos = nn.Parameter(torch.randn(256, 256) * 0.02)

        def forward(self, ids):
            return self.tok(ids) + self.pos[: ids.shape[1]]

    blocks = [Embed()]
    for _ in range(12):
        blocks.append(nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.1, batch_first=True))
    blocks.append(nn.Linear(256, 1000))
    return blocks


def rounded(values):
    return [-(-int(v) // GRID) * GRID for v in values]


def profile(blocks, x):
    p = ebb.torch.profile_blocks(blocks, x, repeat=3)
    p = {k: [round(v, 7) for v in p[k]] if k.endswith("_s") else p[k] for k in p}
    return {"forward_s": p["forward_s"], "reverse_s": p["reverse_s"],
            "backward_s": p["backward_s"], "state_bytes": rounded(p["state_bytes"]),
            "tape_bytes": rounded(p["tape_bytes"])}


def main():
    torch.manual_seed(1)
    out = {"machine": f"{platform.processor() or platform.machine()}, "
                      f"{os.cpu_count()} cores, torch {torch.__version__}",
           "date": time.strftime("%Y-%m-%d"), "grid_bytes": GRID,
           "command": "benchmarks/python/chain_profiles.py"}
    out["resnet50"] = profile(resnet_blocks.model(torch), torch.randn(8, 3, 128, 128))
    out["transformer12"] = profile(transformer(torch), torch.randint(0, 1000, (8, 256)))
    # one line a list
    lines = []
    for k, v in out.items():
        if isinstance(v, dict):
            inner = ",\n".join(f"  {json.dumps(a)}: {json.dumps(b)}" for a, b in v.items())
            lines.append(f" {json.dumps(k)}: {{\n{inner}\n }}")
        else:
            lines.append(f" {json.dumps(k)}: {json.dumps(v)}")
    print("{\n" + ",\n".join(lines) + "\n}")


if __name__ == "__main__":
    main()
