"""Step functions the torch tests and their unrolled references share."""

import torch


def unrolled(step, h0, steps):
    """The reference: the whole sequence under autograd, losses summed in
    order as ebb.torch.scan sums them."""
    h, loss = h0, None
    for t in range(steps):
        h, l = step(h, t)
        if l is not None:
            loss = l if loss is None else loss + l
    return h, loss


class LSTM:
    """LSTMCell over a tuple state (h, c), a loss every step."""

    def __init__(self, batch=3, inputs=5, hidden=8, steps=64, dtype=torch.float32, seed=0):
        g = torch.Generator().manual_seed(seed)
        torch.manual_seed(seed)
        self.cell = torch.nn.LSTMCell(inputs, hidden).to(dtype)
        self.head = torch.nn.Linear(hidden, 1).to(dtype)
        self.xs = torch.randn(steps, batch, inputs, generator=g, dtype=dtype)
        self.params = list(self.cell.parameters())
        self.h0 = (torch.randn(batch, hidden, generator=g, dtype=dtype),
                   torch.randn(batch, hidden, generator=g, dtype=dtype))

    def step(self, hc, t):
        h, c = self.cell(self.xs[t % len(self.xs)], hc)
        return (h, c), (h * h).mean()

    def total(self, h_n, loss):
        return loss + self.head(h_n[0]).sum() + 0.5 * h_n[1].sum()


class RNN:
    """tanh RNN on one tensor; its weight is used twice per step, the loss
    only every third step (else None)."""

    def __init__(self, batch=2, hidden=6, steps=64, dtype=torch.float64, seed=1):
        g = torch.Generator().manual_seed(seed)
        self.W = (0.5 * torch.randn(hidden, hidden, generator=g, dtype=dtype)).requires_grad_()
        self.b = torch.zeros(hidden, dtype=dtype).requires_grad_()
        self.xs = torch.randn(steps, batch, hidden, generator=g, dtype=dtype)
        self.params = [self.W, self.b]
        self.h0 = torch.randn(batch, hidden, generator=g, dtype=dtype)

    def step(self, h, t):
        z = torch.tanh(h @ self.W + self.xs[t % len(self.xs)] + self.b)
        h = z + 0.1 * (z @ self.W.t())
        return h, (h.sum() if t % 3 == 0 else None)

    def total(self, h_n, loss):
        return loss + (h_n ** 2).sum()


class Spike(torch.autograd.Function):
    """Heaviside forward, fast-sigmoid surrogate backward."""

    @staticmethod
    def forward(ctx, v):
        ctx.save_for_backward(v)
        return (v > 0).to(v.dtype)

    @staticmethod
    def backward(ctx, g):
        (v,) = ctx.saved_tensors
        return g / (1 + 10 * v.abs()) ** 2


class Counted:
    """A state with a non-differentiable part: (h, number of positive
    entries seen so far as an int64 tensor)."""

    def __init__(self, steps=64, seed=2):
        g = torch.Generator().manual_seed(seed)
        self.W = (0.4 * torch.randn(4, 4, generator=g)).requires_grad_()
        self.params = [self.W]
        self.h0 = (torch.randn(3, 4, generator=g), torch.zeros((), dtype=torch.int64))

    def step(self, state, t):
        h, n = state
        h = torch.sin(h @ self.W) + 0.01 * t
        return (h, n + (h > 0).sum()), h.mean()

    def total(self, h_n, loss):
        return loss + h_n[0].sum()


class LIF:
    """Leaky integrate-and-fire layer with recurrent weights and a surrogate
    gradient; state (v, s)."""

    def __init__(self, batch=2, inputs=6, hidden=10, seed=3):
        g = torch.Generator().manual_seed(seed)
        self.W = (torch.randn(inputs, hidden, generator=g) / inputs ** 0.5).requires_grad_()
        self.R = (0.2 * torch.randn(hidden, hidden, generator=g)).requires_grad_()
        self.params = [self.W, self.R]
        self.batch, self.inputs, self.seed = batch, inputs, seed
        self.h0 = (torch.zeros(batch, hidden), torch.zeros(batch, hidden))

    def step(self, state, t):
        v, s = state
        g = torch.Generator().manual_seed(self.seed * 100003 + t)
        x = (torch.rand(self.batch, self.inputs, generator=g) < 0.3).float()
        v = 0.9 * v * (1 - s) + x @ self.W + s @ self.R
        s = Spike.apply(v - 1.0)
        return (v, s), (s.mean() - 0.1) ** 2

    def total(self, h_n, loss):
        return loss


class Dropout:
    """A dropout layer made deterministic per step: its mask comes from a
    generator seeded from t."""

    def __init__(self, seed=4):
        g = torch.Generator().manual_seed(seed)
        self.W = (0.5 * torch.randn(5, 5, generator=g)).requires_grad_()
        self.params = [self.W]
        self.h0 = torch.randn(2, 5, generator=g)

    def step(self, h, t, p=0.25):
        g = torch.Generator().manual_seed(1234 + t)
        keep = (torch.rand(h.shape, generator=g) >= p).to(h.dtype)
        h = torch.tanh(h @ self.W) * keep / (1 - p)
        return h, h.pow(2).mean()

    def total(self, h_n, loss):
        return loss + h_n.sum()


class GlobalDropout:
    """torch.nn.functional.dropout on the global generator in the state
    update, the generator seeded once before the run (rng_seed), as a user
    writes it."""

    rng_seed = 7

    def __init__(self, seed=5):
        g = torch.Generator().manual_seed(seed)
        self.W = (0.5 * torch.randn(6, 6, generator=g)).requires_grad_()
        self.params = [self.W]
        self.h0 = torch.randn(3, 6, generator=g)

    def step(self, h, t):
        h = torch.nn.functional.dropout(torch.tanh(h @ self.W), 0.3, training=True)
        return h, h.pow(2).mean()

    def total(self, h_n, loss):
        return loss + h_n.sum()


class LossDropout:
    """Global-generator dropout that reaches only loss_t (the state update
    draws nothing)."""

    rng_seed = 8

    def __init__(self, steps=64, seed=6):
        g = torch.Generator().manual_seed(seed)
        self.W = (0.5 * torch.randn(5, 5, generator=g)).requires_grad_()
        self.params = [self.W]
        self.xs = torch.randn(steps, 2, 5, generator=g)
        self.h0 = torch.randn(2, 5, generator=g)

    def step(self, h, t):
        h = torch.tanh(h @ self.W + self.xs[t % len(self.xs)])
        return h, torch.nn.functional.dropout(h, 0.5, training=True).pow(2).sum()

    def total(self, h_n, loss):
        return loss + h_n.sum()


MODELS = {"lstm": LSTM, "rnn": RNN, "counted": Counted, "lif": LIF, "dropout": Dropout,
          "global_dropout": GlobalDropout, "loss_dropout": LossDropout}
