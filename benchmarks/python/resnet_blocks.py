"""ResNet-50's blocks on the CPU: peak memory and time of one training step
(forward + backward) with plain autograd, torch.utils.checkpoint's
checkpoint_sequential over s segments, and ebb.torch.sequential under a
budget: ebb:F, the fraction F of all the blocks' inputs, with tapes where
they fit; ebbt:F, the fraction F of all the blocks' inputs and tapes
(what autograd keeps, as the profile measures it); ebbn:F as ebb:F with no
tapes; ebbo:F as ebbt:F with offload=True (states may also go to host
memory; --device cuda only).

    PYTHONPATH=bindings/python EBB_LIBRARY=build/release/libebb.so \\
        /usr/bin/python3 benchmarks/python/resnet_blocks.py --image 64 --batch 8

The model: ResNet-50's stem, its 16 bottleneck blocks (3, 4, 6, 3 per
stage) and its head (pooling, a 1000-way linear layer), written here (no
torchvision), 18 blocks; --layout 101 or 152 stacks more of the same
blocks (3, 4, 23, 3 or 3, 8, 36, 3: 35 or 52 blocks); --fine splits the stem in
two and each bottleneck in three steps whose states carry the block's input
beside its inner activation (x -> (x, a), (x, a) -> (x, b), (x, b) -> the
block's output: 51 steps for ResNet-50, the same modules and gradients).
Each method runs in its own child process, which
builds the model and the input (seeded), runs one warm-up step (ebb: its
profile too), then --steps timed steps; printed: peak RSS above the RSS
before the warm-up (ru_maxrss of the child, os.wait4), the same less the
parameters' gradients (what every method holds alike: the memory the
method's activations and recomputations took), the median step time, and a
digest of the gradients (equal digests: bitwise equal gradients). Run it
with MALLOC_MMAP_THRESHOLD_=131072 so that glibc returns freed tensors to
the system and the peak RSS follows the live memory. With --device cuda the
model and input are on the GPU, the times are synchronized, and the memory
is the device's: torch.cuda.max_memory_allocated over the timed steps above
what was allocated before them (the gradients included), in place of the
RSS.
"""

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time


LAYOUTS = {"50": (3, 4, 6, 3), "101": (3, 4, 23, 3), "152": (3, 8, 36, 3)}


def model(torch, layout="50", fine=False):
    nn = torch.nn

    class Bottleneck(nn.Module):
        def __init__(self, cin, mid, stride):
            super().__init__()
            cout = 4 * mid
            self.body = nn.Sequential(
                nn.Conv2d(cin, mid, 1, bias=False), nn.BatchNorm2d(mid), nn.ReLU(),
                nn.Conv2d(mid, mid, 3, stride, 1, bias=False), nn.BatchNorm2d(mid), nn.ReLU(),
                nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout))
            self.skip = None
            if stride != 1 or cin != cout:
                self.skip = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

        def forward(self, x):
            s = x if self.skip is None else self.skip(x)
            return torch.relu(self.body(x) + s)

    torch.manual_seed(0)
    blocks = [nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64),
                            nn.ReLU(), nn.MaxPool2d(3, 2, 1))]
    cin = 64
    counts = LAYOUTS[layout]
    for mid, count, stride in zip((64, 128, 256, 512), counts, (1, 2, 2, 2)):
        for k in range(count):
            blocks.append(Bottleneck(cin, mid, stride if k == 0 else 1))
            cin = 4 * mid
    blocks.append(nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 1000)))
    return split(torch, blocks) if fine else blocks


def split(torch, blocks):
    """The same modules as finer steps: the stem's convolution, then its
    normalisation and pooling; each bottleneck's three convolutions, the
    block's input carried beside the inner activations to the sum."""
    nn = torch.nn

    class Enter(nn.Module):
        def __init__(self, conv, bn):
            super().__init__()
            self.conv, self.bn = conv, bn

        def forward(self, x):
            return x, torch.relu(self.bn(self.conv(x)))

    class Inner(nn.Module):
        def __init__(self, conv, bn):
            super().__init__()
            self.conv, self.bn = conv, bn

        def forward(self, s):
            x, h = s
            return x, torch.relu(self.bn(self.conv(h)))

    class Leave(nn.Module):
        def __init__(self, conv, bn, skip):
            super().__init__()
            self.conv, self.bn, self.skip = conv, bn, skip

        def forward(self, s):
            x, h = s
            r = x if self.skip is None else self.skip(x)
            return torch.relu(self.bn(self.conv(h)) + r)

    stem, *bottlenecks, head = blocks
    steps = [nn.Sequential(stem[0]), nn.Sequential(*stem[1:])]
    for b in bottlenecks:
        body = b.body
        steps += [Enter(body[0], body[1]), Inner(body[3], body[4]),
                  Leave(body[6], body[7], b.skip)]
    return steps + [head]


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def child(args):
    import torch
    dev = torch.device(args.device)
    blocks = [b.to(dev) for b in model(torch, args.layout, args.fine)]
    params = [p for b in blocks for p in b.parameters()]
    torch.manual_seed(1)
    x = torch.randn(args.batch, 3, args.image, args.image).to(dev)
    target = torch.randint(0, 1000, (args.batch,)).to(dev)
    cuda = dev.type == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    method, arg = args.child.split(":") if ":" in args.child else (args.child, None)
    profile = None
    report = {}

    def step():
        nonlocal profile
        if method == "autograd":
            y = x
            for b in blocks:
                y = b(y)
        elif method == "checkpoint":
            from torch.utils.checkpoint import checkpoint_sequential
            kw = {"use_reentrant": False} if "use_reentrant" in \
                checkpoint_sequential.__code__.co_varnames else {}
            y = checkpoint_sequential(torch.nn.Sequential(*blocks), int(arg),
                                      x.requires_grad_(True), **kw)
        else:
            import ebb.torch
            if profile is None:
                profile = ebb.torch.profile_blocks(blocks, x)
            memory = float(arg)
            if method in ("ebbt", "ebbo"):
                memory = int(memory * (sum(profile["state_bytes"]) + sum(profile["tape_bytes"])))
            y = ebb.torch.sequential(blocks, x, memory, profile=profile, report=report,
                                     tapes=method != "ebbn", offload=method == "ebbo")
        loss = torch.nn.functional.cross_entropy(y, target)
        loss.backward()
        return loss

    setup = rss_kib()
    step()  # warm-up (and ebb's profile)
    times = []
    for b in blocks:
        for p in b.parameters():
            p.grad = None
    if cuda:
        sync()
        before = torch.cuda.memory_allocated(dev)
        torch.cuda.reset_peak_memory_stats(dev)
    for _ in range(args.steps):
        # every timed step starts from the same parameters and statistics
        for b in blocks:
            for p in b.parameters():
                p.grad = None
        sync()
        t0 = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - t0)
    g = hashlib.blake2b(digest_size=8)
    for p in params:
        g.update(p.grad.cpu().numpy().tobytes())
    grad_kib = sum(p.grad.numel() * p.grad.element_size() for p in params) // 1024
    out = dict(method=args.child, setup_rss_kib=setup, grad_kib=grad_kib,
               step_s=statistics.median(times), grad_digest=g.hexdigest())
    if cuda:
        out["cuda_above_kib"] = (torch.cuda.max_memory_allocated(dev) - before) // 1024
    if report:
        out.update(plan_cost=report["plan"].cost, slots=report["plan"].slots,
                   forward_runs=report["forward_runs"], tape_runs=report["tape_runs"],
                   peak_kept_bytes=report["peak_kept_bytes"],
                   peak_offloaded_bytes=report.get("peak_offloaded_bytes", 0))
    print(json.dumps(out))
    return 0


def parent(args):
    methods = args.methods.split(",")
    rows = []
    for r in range(args.repeat):
        for m in (methods if r % 2 == 0 else methods[::-1]):
            cmd = [sys.executable, os.path.abspath(__file__), "--child", m, "--image",
                   str(args.image), "--batch", str(args.batch), "--steps", str(args.steps),
                   "--layout", args.layout, "--device", args.device] + \
                (["--fine"] if args.fine else [])
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
            out = p.stdout.read()
            _, status, usage = os.wait4(p.pid, 0)
            if os.waitstatus_to_exitcode(status) != 0:
                print(f"{m}: failed", file=sys.stderr)
                continue
            row = json.loads(out.strip().splitlines()[-1])
            row["peak_rss_kib"] = usage.ru_maxrss
            row["above_kib"] = usage.ru_maxrss - row["setup_rss_kib"]
            if "cuda_above_kib" in row:  # the device's memory in place of the RSS
                row["above_kib"] = row["cuda_above_kib"]
            row["work_kib"] = row["above_kib"] - row["grad_kib"]
            rows.append(row)
            extra = ""
            if "forward_runs" in row:
                extra = (f"  runs {row['forward_runs']} + {row['tape_runs']} taped  kept "
                         f"{row['peak_kept_bytes'] / 2**20:.1f} MiB")
                if row.get("peak_offloaded_bytes"):
                    extra += f", offloaded {row['peak_offloaded_bytes'] / 2**20:.1f} MiB"
            print(f"{m:16s} peak {usage.ru_maxrss / 1024:7.0f} MiB  above set-up "
                  f"{row['above_kib'] / 1024:7.0f} MiB, less the gradients "
                  f"{row['work_kib'] / 1024:7.0f} MiB  step {row['step_s']:.3f} s  "
                  f"grad {row['grad_digest']}{extra}", flush=True)
    base = [r for r in rows if r["method"] == "autograd"]
    if base:
        ba = statistics.median(r["above_kib"] for r in base)
        bw = statistics.median(r["work_kib"] for r in base)
        bt = statistics.median(r["step_s"] for r in base)
        for m in methods:
            mine = [r for r in rows if r["method"] == m]
            if mine:
                print(f"{m:16s} memory above set-up "
                      f"{statistics.median(r['above_kib'] for r in mine) / ba:.3f} x autograd, "
                      f"less the gradients "
                      f"{statistics.median(r['work_kib'] for r in mine) / bw:.3f} x, "
                      f"time {statistics.median(r['step_s'] for r in mine) / bt:.3f} x autograd "
                      f"(medians of {len(mine)})")
    if args.json:
        print(json.dumps(rows))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--image", type=int, default=64)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--methods", default="autograd,checkpoint:2,checkpoint:4,checkpoint:6,"
                                        "ebb:0.5,ebb:0.25,ebb:0.1")
    p.add_argument("--layout", choices=sorted(LAYOUTS), default="50",
                   help="the bottleneck blocks per stage: ResNet-50's (3, 4, 6, 3), "
                        "-101's or -152's")
    p.add_argument("--fine", action="store_true",
                   help="finer steps: the stem in two, each bottleneck in three")
    p.add_argument("--device", default="cpu", help="cpu, or cuda (the device's memory)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    return child(args) if args.child else parent(args)


if __name__ == "__main__":
    sys.exit(main())
