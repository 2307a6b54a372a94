"""A spiking network of leaky integrate-and-fire neurons trained through ebb
over many thousand time steps, with a surrogate gradient.

Two classes of input: Poisson spike trains whose rates follow one of two
patterns. A recurrent LIF layer feeds a leaky (non-spiking) readout whose
membrane is scored against the class at every step. The spike is a step
function; its gradient is replaced by a fast-sigmoid surrogate. The input
spikes come from a generator seeded from t, so every step is deterministic
given (state, t), as ebb requires (docs/python.md).

    PYTHONPATH=bindings/python python3 examples/python/snn_lif.py --steps 5000
    ... --steps 300 --check       # gradients bitwise equal to plain autograd
"""

import argparse
import resource
import sys
import time

import torch
import torch.nn.functional as F

import ebb
import ebb.torch


class SpikeFn(torch.autograd.Function):
    """Heaviside step forward; d spike / d v = 1 / (1 + beta |v|)^2 backward."""

    beta = 10.0

    @staticmethod
    def forward(ctx, v):
        ctx.save_for_backward(v)
        return (v > 0).to(v.dtype)

    @staticmethod
    def backward(ctx, grad):
        (v,) = ctx.saved_tensors
        return grad / (1 + SpikeFn.beta * v.abs()) ** 2


class LIFNet(torch.nn.Module):
    def __init__(self, inputs, hidden, classes, decay=0.95, out_decay=0.99, threshold=1.0):
        super().__init__()
        self.w_in = torch.nn.Parameter(torch.randn(inputs, hidden) * (2.0 / inputs) ** 0.5)
        self.w_rec = torch.nn.Parameter(torch.randn(hidden, hidden) * (0.5 / hidden) ** 0.5)
        self.w_out = torch.nn.Parameter(torch.randn(hidden, classes) * (1.0 / hidden) ** 0.5)
        self.decay, self.out_decay, self.threshold = decay, out_decay, threshold

    def step(self, state, t, rates, labels, seed, steps):
        v, s, out = state
        g = torch.Generator().manual_seed(seed * 1_000_003 + t)  # the input at t, from t alone
        x = (torch.rand(rates.shape, generator=g) < rates).to(v.dtype)
        # leak, reset by subtraction where the neuron spiked, integrate
        v = self.decay * v - self.threshold * s + x @ self.w_in + s @ self.w_rec
        s = SpikeFn.apply(v - self.threshold)
        out = self.out_decay * out + s @ self.w_out
        loss_t = F.cross_entropy(out, labels) / steps
        return (v, s, out), loss_t


def make_batch(batch, inputs, seed):
    """Per sequence: a class label and the input rates of its pattern."""
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 2, (batch,), generator=g)
    pattern = torch.stack([torch.linspace(0.01, 0.1, inputs), torch.linspace(0.1, 0.01, inputs)])
    return labels, pattern[labels]


def scan(net, args, rates, labels, seed, use_ebb=True):
    h0 = (torch.zeros(args.batch, args.hidden), torch.zeros(args.batch, args.hidden),
          torch.zeros(args.batch, 2))
    step = lambda st, t: net.step(st, t, rates, labels, seed, args.steps)  # noqa: E731
    if use_ebb:
        return ebb.torch.scan(step, h0, args.steps, params=list(net.parameters()),
                              strategy=args.strategy, slots=args.slots)
    state, loss = h0, None
    for t in range(args.steps):
        state, loss_t = step(state, t)
        loss = loss_t if loss is None else loss + loss_t
    return state, loss


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=5000)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--inputs", type=int, default=64)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--iterations", type=int, default=5)
    p.add_argument("--slots", type=int, default=32)
    p.add_argument("--strategy", default="revolve")
    p.add_argument("--check", action="store_true")
    args = p.parse_args()

    torch.manual_seed(0)
    net = LIFNet(args.inputs, args.hidden, 2)

    if args.check:
        labels, rates = make_batch(args.batch, args.inputs, 0)
        grads = []
        for use_ebb in (False, True):
            net.zero_grad(set_to_none=True)
            _, loss = scan(net, args, rates, labels, 0, use_ebb)
            loss.backward()
            grads.append([q.grad.clone() for q in net.parameters()])
        same = all(torch.equal(a, b) for a, b in zip(*grads))
        print(f"gradients vs plain autograd over {args.steps} steps: "
              f"{'bitwise equal' if same else 'DIFFER'}")
        return 0 if same else 1

    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    print(f"LIF network: {args.inputs} inputs, {args.hidden} neurons, {args.steps} steps, "
          f"batch {args.batch}; ebb {args.strategy} with {args.slots} states in memory")
    for it in range(args.iterations):
        t0 = time.perf_counter()
        labels, rates = make_batch(args.batch, args.inputs, it)
        opt.zero_grad(set_to_none=True)
        (v, s, out), loss = scan(net, args, rates, labels, it)
        loss.backward()
        opt.step()
        acc = (out.argmax(1) == labels).float().mean().item()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"iteration {it}: loss {loss.item():.4f}  accuracy {acc:.2f}  "
              f"{1e3 * (time.perf_counter() - t0) / args.steps:.2f} ms/step  "
              f"peak RSS {rss:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
