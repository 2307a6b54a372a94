"""An LSTM trained on one long sequence through ebb.

Each step predicts the next sample of a multi-tone signal; the loss is summed
over every step, so the gradient reaches back through the whole sequence.
Plain autograd keeps every step's activations (about 1 MiB per step for
hidden size 512 and batch 32: 10 GiB over 10,000 steps); ebb keeps `--slots`
states in memory (and, with --disk, the rest on disk) and one step's graph.

    PYTHONPATH=bindings/python python3 examples/python/lstm_long.py --steps 20000
    ... --disk /mnt/nvme/tmp          # multistage: 64 states in memory, the rest on disk
    ... --steps 200 --check           # gradients bitwise equal to plain autograd

--check compares ebb's gradients with plain autograd's on the same (short)
sequence and exits 1 if any bit differs.
"""

import argparse
import math
import resource
import sys
import time

import torch

import ebb
import ebb.torch


def signal(t, batch, inputs, dtype=torch.float32):
    """Sample t of every sequence of the batch: a function of t alone, so no
    step depends on anything but (h, t)."""
    k = torch.arange(1, inputs + 1, dtype=torch.float64)
    b = torch.arange(batch, dtype=torch.float64)[:, None]
    return torch.sin(0.01 * t * k + 0.3 * b).to(dtype)


class Model(torch.nn.Module):
    def __init__(self, inputs, hidden):
        super().__init__()
        self.cell = torch.nn.LSTMCell(inputs, hidden)
        self.readout = torch.nn.Linear(hidden, inputs)

    def step(self, hc, t, batch, inputs, steps):
        h, c = self.cell(signal(t, batch, inputs), hc)
        loss_t = (self.readout(h) - signal(t + 1, batch, inputs)).pow(2).mean() / steps
        return (h, c), loss_t


def run_ebb(model, h0, args, config):
    step = lambda hc, t: model.step(hc, t, args.batch, args.inputs, args.steps)  # noqa: E731
    return ebb.torch.scan(step, h0, args.steps, params=list(model.parameters()),
                          strategy=args.strategy, config=config, slots=args.slots,
                          disk_slots=args.disk_slots)


def run_autograd(model, h0, args):
    hc, loss = h0, None
    for t in range(args.steps):
        hc, loss_t = model.step(hc, t, args.batch, args.inputs, args.steps)
        loss = loss_t if loss is None else loss + loss_t
    return hc, loss


def check(model, h0, args, config):
    grads = []
    for run in (lambda: run_autograd(model, h0, args), lambda: run_ebb(model, h0, args, config)):
        model.zero_grad(set_to_none=True)
        _, loss = run()
        loss.backward()
        grads.append([p.grad.clone() for p in model.parameters()])
    same = all(torch.equal(a, b) for a, b in zip(*grads))
    worst = max((a - b).abs().max().item() for a, b in zip(*grads))
    print(f"gradients vs plain autograd over {args.steps} steps: "
          f"{'bitwise equal' if same else f'DIFFER (max |diff| {worst:.3g})'}")
    return same


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=20000)
    p.add_argument("--hidden", type=int, default=512)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--inputs", type=int, default=8)
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--slots", type=int, default=64, help="states kept in memory")
    p.add_argument("--disk", help="a directory for the disk tier (multistage)")
    p.add_argument("--disk-slots", type=int, default=None)
    p.add_argument("--strategy", default=None, help="default: revolve, multistage with --disk")
    p.add_argument("--check", action="store_true")
    args = p.parse_args()

    torch.manual_seed(0)
    model = Model(args.inputs, args.hidden)
    h0 = (torch.zeros(args.batch, args.hidden), torch.zeros(args.batch, args.hidden))
    if args.disk:
        config = ebb.Config({"tier.disk.path": args.disk})
        args.strategy = args.strategy or "multistage"
    else:
        config = ebb.Config({"tier.disk.enabled": False})
        args.strategy = args.strategy or "revolve"

    if args.check:
        return 0 if check(model, h0, args, config) else 1

    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    state_mib = 2 * args.batch * args.hidden * 4 / 2**20
    print(f"LSTM hidden {args.hidden}, batch {args.batch}, {args.steps} steps; "
          f"{args.strategy} with {args.slots} states ({args.slots * state_mib:.0f} MiB) in memory"
          + (f", the rest on {args.disk}" if args.disk else ""))
    for it in range(args.iterations):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        h_n, loss = run_ebb(model, h0, args, config)
        loss.backward()
        opt.step()
        dt = time.perf_counter() - t0
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"iteration {it}: loss {loss.item():.5f}  {1e3 * dt / args.steps:.2f} ms/step  "
              f"peak RSS {rss:.0f} MiB")
    if not math.isfinite(loss.item()):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
