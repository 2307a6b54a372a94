"""Time per step of ebb.torch.scan (forward + backward over T steps) with two
copies of the Python binding, run alternately: what handing each step its
own copy of x_t (and preserving the random generators' states) costs against
an older binding that handed the step views of ebb's buffers.

    git archive f6ca531 bindings/python | tar -x -C /tmp/ebb-old
    EBB_LIBRARY=build/release/libebb.so /usr/bin/python3 \\
        benchmarks/python/torch_copy_cost.py --old /tmp/ebb-old/bindings/python \\
        --hidden 256 --steps 1000

Variants: "old" (the binding under --old), "new" (this tree's, default
preserve_rng_state=True), "new-norng" (this tree's, preserve_rng_state=False),
both bindings loaded in one process (as ebb_old and ebb_new, driving the same
libebb) and run in turn, --rounds times, the order reversed every other
round, so that both see the same load. The step is an LSTMCell(hidden) with
inputs of the same size, batch --batch; each run is one scan and its
backward over T steps (store-all by default: no recomputation, so the
binding's own cost per call shows most). Printed: each variant's median time
per step, and the median and quartiles over the rounds of its time divided by
"old"'s in the same round; the load average before and after.

--micro prints instead the binding's added work per call in isolation
(copying the state out of a buffer; setting and saving the CPU generator's
state), the median of 20 means over 100 calls each.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve()
NEW = HERE.parents[2] / "bindings" / "python"


def _load(name, path):
    """The package ebb under `path`, imported as `name` (two bindings in one
    process; both drive the same libebb)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        name, os.path.join(path, "ebb", "__init__.py"),
        submodule_search_locations=[os.path.join(path, "ebb")])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    importlib.import_module(name + ".torch")
    return mod


def interleaved(args):
    import torch

    torch.set_num_threads(args.threads)
    bindings = {"old": _load("ebb_old", args.old), "new": _load("ebb_new", str(NEW))}
    torch.manual_seed(0)
    H, B, T = args.hidden, args.batch, args.steps
    cell = torch.nn.LSTMCell(H, H)
    params = list(cell.parameters())
    bank = torch.randn(64, B, H)

    def step(hc, t):
        h, c = cell(bank[t % 64], hc)
        return (h, c), h.pow(2).mean()

    def once(v, n):
        kw = {} if v == "old" else {"preserve_rng_state": v == "new"}
        h0 = (torch.zeros(B, H, requires_grad=True), torch.zeros(B, H))
        h_n, loss = bindings[v.split("-")[0]].torch.scan(
            step, h0, n, params=params, strategy=args.strategy, slots=args.slots, **kw)
        (loss + h_n[0].sum()).backward()

    variants = args.variants.split(",")
    for v in variants:
        once(v, 20)
    times = {v: [] for v in variants}
    load0 = os.getloadavg()
    for r in range(args.rounds):
        for v in (variants if r % 2 == 0 else variants[::-1]):
            t0 = time.perf_counter()
            once(v, T)
            times[v].append(1e3 * (time.perf_counter() - t0) / T)
    load1 = os.getloadavg()
    print(f"LSTMCell({H}) batch {B}, T = {T}, {args.strategy}, {args.threads} thread(s), "
          f"{args.rounds} rounds alternated in one process; load average "
          f"{load0[0]:.2f} -> {load1[0]:.2f}")
    base = times[variants[0]]
    for v in variants:
        ratios = [x / y for x, y in zip(times[v], base)]
        print(f"  {v:10s} median {statistics.median(times[v]):8.3f} ms/step, paired ratio to "
              f"{variants[0]}: median {statistics.median(ratios):.3f} (quartiles "
              f"{' '.join(f'{q:.3f}' for q in statistics.quantiles(ratios, n=4))})")


def micro(args):
    import timeit

    import torch

    torch.set_num_threads(args.threads)
    sys.path.insert(0, str(NEW))
    from ebb._torch_layout import Layout

    H, B = args.hidden, args.batch
    lay = Layout((torch.zeros(B, H), torch.zeros(B, H)),
                 extra_bytes=torch.get_rng_state().numel())
    buf = lay.pack((torch.randn(B, H), torch.randn(B, H)), torch.get_rng_state())
    addr, extra = buf.data_ptr(), lay.extra(buf.data_ptr())

    def rng():
        torch.set_rng_state(extra)
        extra.copy_(torch.get_rng_state())

    print(f"state (h, c) of {B} x {H} float32: {2 * B * H * 4 / 1024:.0f} KiB")
    for name, fn in (("copy of x_t for the step", lambda: lay.copies(addr)),
                     ("set + save the CPU generator", rng)):
        t = [timeit.timeit(fn, number=100) / 100 for _ in range(20)]
        print(f"  {name:30s} {1e6 * statistics.median(t):7.1f} us per call")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", help="bindings/python of the older binding")
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    ap.add_argument("--strategy", default="store-all")
    ap.add_argument("--slots", type=int, default=None)
    ap.add_argument("--variants", default="old,new,new-norng")
    ap.add_argument("--micro", action="store_true", help="the added work per call alone")
    args = ap.parse_args()
    if args.micro:
        return micro(args)
    if not args.old:
        ap.error("--old is needed (the older binding's bindings/python)")
    return interleaved(args)

if __name__ == "__main__":
    sys.exit(main())
