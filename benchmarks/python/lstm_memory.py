"""Peak memory and time per step of backpropagation through an LSTM over T
steps: plain autograd, torch.utils.checkpoint over sqrt(T) segments, and
ebb.torch.scan (revolve in a host budget of --slots states; multistage and
async with the disk tier).

    PYTHONPATH=bindings/python EBB_LIBRARY=build/release/libebb.so \\
        /usr/bin/python3 benchmarks/python/lstm_memory.py --steps 2000 --disk /var/tmp

Each method runs in its own child process, so its peak resident memory is its
own: ru_maxrss of that child (os.wait4). A child builds an LSTMCell(hidden)
(a GRUCell with --cell gru) with inputs of the same size, runs 20 warm-up steps, then one forward and one
backward over T steps; the inputs are a bank of 64 tensors (x_t = bank[t %
64]) so that data do not grow with T. Printed per method: peak RSS, the RSS
after set-up (the interpreter, torch, the model), time per step (forward +
backward over T), and a digest of the parameter gradients: equal digests are
bitwise equal gradients, and the child's CPU time (user + system, set-up
included). --chunk K runs the ebb methods with ebb.torch.scan's chunk=K (K
user steps per ebb step, one autograd call per chunk in the reverse); an ebb
method named with "@K" (ebb-revolve@16) takes chunk=K itself, so that
several chunk sizes alternate in one run (@auto: chunk="auto").
Also printed: the child's system time and minor page faults (a tensor that
glibc's malloc maps afresh is faulted in again page by page); --keep-freed
runs the children with glibc's malloc told to keep freed memory for reuse
(docs/python.md, "The allocator on the CPU").
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time

from lstm_common import Lstm

METHODS = ("autograd", "checkpoint", "ebb-revolve", "ebb-multistage-disk", "ebb-async-disk")
# only when named in --methods; "-lossless": the disk tier compresses
# (tier.disk.compression = "lossless", c-blosc's defaults: lz4, byte shuffle)
EXTRA = ("checkpoint-nonreentrant", "ebb-multistage-disk-lossless", "ebb-async-disk-lossless")


# glibc's malloc: tensors up to 32 MiB from the heap (not mapped afresh each
# time), and freed heap memory kept in the process (docs/python.md)
KEEP_FREED = {"MALLOC_MMAP_THRESHOLD_": "33554432", "MALLOC_TRIM_THRESHOLD_": "4294967296"}


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def child(args):
    import torch

    T = args.steps
    if "@" in args.child:  # ebb-revolve@16: chunk=16
        args.child, args.chunk = args.child.split("@")
    if args.chunk is not None and args.chunk != "auto":
        args.chunk = int(args.chunk)
    m = Lstm(torch, args.hidden, args.batch, cell=args.cell)
    params = m.params
    m.warm_up()
    setup = rss_kib()
    extra = {}

    t0 = time.perf_counter()
    if args.child == "autograd":
        loss, extra = m.autograd(T)
    elif args.child in ("checkpoint", "checkpoint-nonreentrant"):
        loss, extra = m.checkpoint(T, reentrant=args.child == "checkpoint")
    else:
        import ebb
        import ebb.torch
        if args.child == "ebb-revolve":
            config, strategy, dslots = ebb.Config({"tier.disk.enabled": False}), "revolve", None
        else:
            keys = {"tier.disk.path": args.disk}
            if args.child.endswith("-lossless"):
                keys["tier.disk.compression"] = "lossless"
            config = ebb.Config(keys)
            strategy = "multistage" if args.child.startswith("ebb-multistage") else "async"
            dslots = T
        report = {}
        hc, loss = ebb.torch.scan(m.step, m.h0(), T, params=params, strategy=strategy,
                                  config=config, slots=args.slots, disk_slots=dslots,
                                  report=report,
                                  **({"chunk": args.chunk} if args.chunk else {}))
    t1 = time.perf_counter()
    loss.backward()
    t2 = time.perf_counter()
    if args.child.startswith("ebb"):
        st, info = report["stats"], report["info"]
        extra.update(strategy=info.strategy, slots=info.slots, bytes=info.bytes,
                     chunk=report.get("chunk", 1),
                     forward_steps=st.forward_steps, recomputed_steps=st.recomputed_steps,
                     disk_written=st.bytes_written["disk"], disk_read=st.bytes_read["disk"],
                     stall_s=st.stall_total_s, forward_callback_s=st.forward_callback_s,
                     reverse_callback_s=st.reverse_callback_s,
                     bytes_before_compression=st.bytes_before_compression,
                     bytes_after_compression=st.bytes_after_compression,
                     stored_raw=st.stored_raw, stored_raw_slower=st.stored_raw_slower,
                     codec_s=st.codec_s)
    g = hashlib.blake2b(digest_size=8)
    for p in params:
        g.update(p.grad.numpy().tobytes())
    print(json.dumps(dict(method=args.child, steps=T, forward_s=t1 - t0, backward_s=t2 - t1,
                          ms_per_step=1e3 * (t2 - t0) / T, setup_rss_kib=setup,
                          loss=loss.item(), grad_digest=g.hexdigest(),
                          torch_threads=torch.get_num_threads(), **extra)))
    return 0


def step_time(args):
    """Forward and backward time of one LSTM step (median of --reps), and
    the BLAS library torch is using (from this process's mappings)."""
    import statistics

    import torch

    torch.manual_seed(0)
    cell = torch.nn.LSTMCell(args.hidden, args.hidden)
    x = torch.randn(args.batch, args.hidden)
    hc = (torch.randn(args.batch, args.hidden), torch.randn(args.batch, args.hidden))
    fw, bw = [], []
    for i in range(args.reps + 5):
        t0 = time.perf_counter()
        h, c = cell(x, hc)
        t1 = time.perf_counter()
        (h.sum() + c.sum()).backward()
        t2 = time.perf_counter()
        if i >= 5:
            fw.append(t1 - t0)
            bw.append(t2 - t1)
    with open("/proc/self/maps") as f:
        blas = sorted({line.split()[-1] for line in f if "blas" in line.split()[-1]})
    print(f"LSTMCell({args.hidden}) batch {args.batch}: forward "
          f"{1e3 * statistics.median(fw):.2f} ms, backward {1e3 * statistics.median(bw):.2f} ms "
          f"(median of {args.reps}); torch threads {torch.get_num_threads()}; BLAS "
          + ", ".join(os.path.realpath(b) for b in blas))
    return 0


def parent(args):
    methods = args.methods.split(",")
    for m in methods:
        base, _, chunk = m.partition("@")
        if base not in METHODS + EXTRA or (chunk and not (base.startswith("ebb")
                                                          and (chunk.isdigit()
                                                               or chunk == "auto"))):
            sys.exit(f"unknown method {m!r}; known: {', '.join(METHODS + EXTRA)} (an ebb "
                     "method with @K: chunk=K)")
        if "disk" in m and not args.disk:
            sys.exit(f"{m} needs --disk DIR (a directory for the disk tier)")
    rows = []
    # --repeat R: the list R times, every other round in reverse order, so
    # that a drift in the machine's load falls on every method alike
    order = []
    for r in range(args.repeat):
        order += methods if r % 2 == 0 else methods[::-1]
    for m in order:
        cmd = [sys.executable, os.path.abspath(__file__), "--child", m, "--steps", str(args.steps),
               "--hidden", str(args.hidden), "--batch", str(args.batch),
               "--slots", str(args.slots), "--cell", args.cell] + \
            (["--disk", args.disk] if args.disk else []) + \
            (["--chunk", str(args.chunk)] if args.chunk else [])
        env = dict(os.environ, **KEEP_FREED) if args.keep_freed else None
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
        out = p.stdout.read()
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            print(f"{m}: failed (exit {p.returncode}; out of memory?)", file=sys.stderr)
            rows.append(dict(method=m, failed=p.returncode, peak_rss_kib=usage.ru_maxrss))
            continue
        row = json.loads(out.strip().splitlines()[-1])
        row["method"] = m
        row["peak_rss_kib"] = usage.ru_maxrss
        # CPU time of the whole child (set-up included): less sensitive than
        # wall time to other processes on a shared machine
        row["cpu_s"] = usage.ru_utime + usage.ru_stime
        row["sys_s"] = usage.ru_stime
        row["minor_faults"] = usage.ru_minflt
        row["malloc_env"] = {k: v for k, v in (env or os.environ).items()
                             if k.startswith("MALLOC_") or k == "GLIBC_TUNABLES"}
        rows.append(row)
        codec = ""
        if row.get("bytes_after_compression"):
            codec = (f"  ratio {row['bytes_before_compression'] / row['bytes_after_compression']:.2f}"
                     f" raw {row['stored_raw']} ({row['stored_raw_slower']} slower)")
        print(f"{m:30s} peak RSS {usage.ru_maxrss / 1024:8.0f} MiB  (after set-up "
              f"{row['setup_rss_kib'] / 1024:.0f} MiB)  {row['ms_per_step']:7.2f} ms/step  "
              f"child CPU {row['cpu_s']:6.1f} s (sys {row['sys_s']:5.1f}, "
              f"{row['minor_faults'] / 1e6:.2f} M faults)  grad {row['grad_digest']}{codec}", flush=True)
    if args.repeat > 1:
        import statistics
        for m in methods:
            ok = [r for r in rows if r["method"] == m and "failed" not in r]
            if ok:
                ms = [r["ms_per_step"] for r in ok]
                print(f"{m:30s} ms/step median {statistics.median(ms):7.2f} "
                      f"(min {min(ms):.2f}, max {max(ms):.2f}, {len(ms)} runs)")
    base = next((r for r in rows if r["method"] == "autograd" and "failed" not in r), None)
    if base:
        for r in rows:
            if "failed" not in r and r is not base:
                print(f"{r['method']:30s} memory {r['peak_rss_kib'] / base['peak_rss_kib']:.3f} "
                      f"x autograd, time {r['ms_per_step'] / base['ms_per_step']:.2f} x autograd")
    if args.json:
        print(json.dumps({"steps": args.steps, "hidden": args.hidden, "batch": args.batch,
                          "slots": args.slots, "runs": rows}))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=10000)
    p.add_argument("--hidden", type=int, default=512)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--slots", type=int, default=64, help="ebb's host budget, in states")
    p.add_argument("--disk", help="directory of the disk tier (the disk methods)")
    p.add_argument("--cell", choices=("lstm", "gru"), default="lstm",
                   help="the recurrent cell: LSTMCell (state (h, c)) or GRUCell (state h)")
    p.add_argument("--chunk", default=None,
                   help="ebb.torch.scan's chunk= (user steps per ebb step, or auto; default 1)")
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--repeat", type=int, default=1,
                   help="run the methods this many times, alternating their order")
    p.add_argument("--json", action="store_true")
    p.add_argument("--keep-freed", action="store_true",
                   help="children run with glibc's malloc keeping freed memory: "
                        + " ".join(f"{k}={v}" for k, v in KEEP_FREED.items()))
    p.add_argument("--step-time", action="store_true",
                   help="only time one step forward and backward, and name the BLAS")
    p.add_argument("--reps", type=int, default=50)
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.step_time:
        return step_time(args)
    return child(args) if args.child else parent(args)


if __name__ == "__main__":
    sys.exit(main())
