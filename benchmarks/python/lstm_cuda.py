"""An LSTM on the GPU over T steps: device memory and time of plain
autograd, torch.utils.checkpoint (sqrt(T) segments) and ebb.torch.scan with
a CUDA state (revolve in --slots GPU slots), each in its own process; with
--methods also checkpoint-each (one segment per step: every state kept on
the device) and ebb-offload (offload=True: every state to pinned host slots
asynchronously, async over 2 GPU slots), and ebb-revolve@K (chunk=K: K steps
per ebb step, one autograd call per chunk in the reverse).

    PYTHONPATH=bindings/python EBB_LIBRARY=build-gpu/libebb.so \\
        python3 benchmarks/python/lstm_cuda.py --steps 10000 --json

A child builds an LSTMCell(hidden) on the device, runs 20 warm-up steps,
then one forward and one backward over T steps (inputs x_t = bank[t % 64]),
synchronising the device around each. Printed per method: the peak of
torch's allocator over the run above what was allocated before it
(torch.cuda.max_memory_allocated), ebb's own GPU slots (cudaMalloc'd by
ebb, outside torch's allocator: RunInfo.bytes["gpu"]), their sum, ebb's
pinned host slots (RunInfo.bytes["host"]), time per
step, and the largest relative difference of the parameter gradients from
autograd's (cuBLAS may pick other kernels with and without grad, so not
bitwise). `--device cpu` runs the same on the CPU (a smoke test of the
script: the memory columns are then zero).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from lstm_common import Lstm

METHODS = ("autograd", "checkpoint", "ebb-revolve")
EXTRA = ("checkpoint-each", "ebb-offload")


def child(args):
    import torch

    dev = torch.device(args.device)
    cuda = dev.type == "cuda"
    T = args.steps
    m = Lstm(torch, args.hidden, args.batch, dev)
    params = m.params

    def sync():
        if cuda:
            torch.cuda.synchronize(dev)

    m.warm_up()
    sync()
    base = torch.cuda.memory_allocated(dev) if cuda else 0
    if cuda:
        torch.cuda.reset_peak_memory_stats(dev)
    ebb_gpu = ebb_host = 0

    t0 = time.perf_counter()
    if args.child == "autograd":
        loss, extra = m.autograd(T)
    elif args.child == "checkpoint":
        loss, extra = m.checkpoint(T)
    elif args.child == "checkpoint-each":
        loss, extra = m.checkpoint(T, seg=1)
    else:
        import ebb.torch
        report, extra = {}, {}
        name, _, k = args.child.partition("@")
        how = dict(offload=True, slots=2) if name == "ebb-offload" else \
            dict(strategy="revolve", slots=args.slots)
        if k:
            how["chunk"] = k if k == "auto" else int(k)
        hc, loss = ebb.torch.scan(m.step, m.h0(), T, params=params, report=report, **how)
    sync()
    t1 = time.perf_counter()
    loss.backward()
    sync()
    t2 = time.perf_counter()
    if args.child.startswith("ebb"):
        st, info = report["stats"], report["info"]
        ebb_gpu = info.bytes.get("gpu", 0)
        ebb_host = info.bytes.get("host", 0)
        extra.update(strategy=info.strategy, slots=info.slots, bytes=info.bytes,
                     recomputed_steps=st.recomputed_steps, stores=st.stores)
    peak = (torch.cuda.max_memory_allocated(dev) - base) if cuda else 0
    torch.save([p.grad.cpu() for p in params], os.path.join(args.out, args.child + ".pt"))
    print(json.dumps(dict(method=args.child, device=str(dev), steps=T,
                          gpu_name=torch.cuda.get_device_name(dev) if cuda else "cpu",
                          torch_peak_mib=peak / 2**20, ebb_slots_mib=ebb_gpu / 2**20,
                          total_mib=(peak + ebb_gpu) / 2**20, ebb_host_mib=ebb_host / 2**20,
                          forward_s=t1 - t0,
                          backward_s=t2 - t1, ms_per_step=1e3 * (t2 - t0) / T,
                          loss=loss.item(), **extra)))
    return 0


def parent(args):
    import torch

    rows = []
    for m in args.methods.split(","):
        if m.split("@")[0] not in METHODS + EXTRA or ("@" in m and not m.startswith("ebb")):
            sys.exit(f"unknown method {m!r}; known: {', '.join(METHODS + EXTRA)} (an ebb "
                     "method may end in @K or @auto: chunk=K)")
    with tempfile.TemporaryDirectory() as out:
        for m in args.methods.split(","):
            cmd = [sys.executable, __file__, "--child", m, "--out", out, "--steps",
                   str(args.steps), "--hidden", str(args.hidden), "--batch", str(args.batch),
                   "--slots", str(args.slots), "--device", args.device]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                rows.append(dict(method=m, error=(r.stderr or r.stdout).strip()[-2000:]))
                continue
            rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
        ref = os.path.join(out, "autograd.pt")
        want = torch.load(ref) if os.path.exists(ref) else None
        for row in rows:
            got = os.path.join(out, row["method"] + ".pt")
            if want is not None and "error" not in row and os.path.exists(got):
                row["grad_max_rel_diff"] = max(
                    ((a - b).abs().max() / b.abs().max().clamp_min(1e-30)).item()
                    for a, b in zip(torch.load(got), want))
    if args.json:
        for row in rows:
            print(json.dumps(row))
    auto = next((r for r in rows if r["method"] == "autograd" and "error" not in r), None)
    print(f"LSTMCell({args.hidden}) batch {args.batch}, T = {args.steps} on {args.device}"
          f" ({rows[0].get('gpu_name', '?')}):")
    print(f"  {'method':15} {'torch peak':>11} {'ebb slots':>10} {'total MiB':>10} "
          f"{'of autograd':>11} {'host MiB':>9} {'ms/step':>8} {'grad rel diff':>14}")
    status = 0
    for r in rows:
        if "error" in r:
            print(f"  {r['method']:15} FAILED: {r['error'].splitlines()[-1]}")
            status = 1
            continue
        frac = (r["total_mib"] / auto["total_mib"]) if auto and auto["total_mib"] else float("nan")
        print(f"  {r['method']:15} {r['torch_peak_mib']:11.1f} {r['ebb_slots_mib']:10.1f} "
              f"{r['total_mib']:10.1f} {frac:11.3f} {r['ebb_host_mib']:9.1f} "
              f"{r['ms_per_step']:8.3f} "
              f"{r.get('grad_max_rel_diff', float('nan')):14.2e}")
    return status


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=10000)
    p.add_argument("--hidden", type=int, default=512)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--slots", type=int, default=100, help="ebb's GPU slots (states)")
    p.add_argument("--device", default="cuda")
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--json", action="store_true")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    args = p.parse_args()
    return child(args) if args.child else parent(args)


if __name__ == "__main__":
    sys.exit(main())
