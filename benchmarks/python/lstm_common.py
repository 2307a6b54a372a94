"""What lstm_memory.py (CPU: resident memory) and lstm_cuda.py (GPU: device
memory) share: the LSTM (or GRU) over T steps, its warm-up, and the plain
autograd and torch.utils.checkpoint sweeps they measure ebb.torch.scan
against."""

import inspect
import math


class Lstm:
    """An LSTMCell(hidden) on `device` (seeded 0) with inputs from a bank of
    64 tensors (x_t = bank[t % 64], so that data do not grow with T); a
    step's loss is the mean square of h. cell="gru": a GRUCell, whose state
    is h alone (a tuple of one tensor)."""

    def __init__(self, torch, hidden, batch, device=None, cell="lstm"):
        torch.manual_seed(0)
        self.torch, self.H, self.B, self.device = torch, hidden, batch, device
        self.gru = cell == "gru"
        make = torch.nn.GRUCell if self.gru else torch.nn.LSTMCell
        self.cell = make(hidden, hidden).to(device) if device is not None \
            else make(hidden, hidden)
        self.params = list(self.cell.parameters())
        self.bank = torch.randn(64, batch, hidden, device=device)

    def step(self, hc, t):
        if self.gru:
            h = self.cell(self.bank[t % 64], hc[0])
            return (h,), h.pow(2).mean()
        h, c = self.cell(self.bank[t % 64], hc)
        return (h, c), h.pow(2).mean()

    def h0(self):
        z = self.torch.zeros
        return tuple(z(self.B, self.H, device=self.device) for _ in range(1 if self.gru else 2))

    def warm_up(self, steps=20):
        """BLAS threads, the allocator: outside the timing."""
        hc, loss = self.h0(), 0
        for t in range(steps):
            hc, l = self.step(hc, t)
            loss = loss + l
        loss.backward()
        self.cell.zero_grad(set_to_none=True)

    def autograd(self, T):
        """The sum of the T steps' losses, every step's graph kept."""
        hc, loss = self.h0(), None
        for t in range(T):
            hc, l = self.step(hc, t)
            loss = l if loss is None else loss + l
        return loss, {}

    def checkpoint(self, T, reentrant=None, seg=None):
        """The same through torch.utils.checkpoint over sqrt(T) segments
        (seg: segments of seg steps).
        reentrant: the classic (reentrant) checkpoint, which needs an input
        that requires grad or the first segment's parameters get no
        gradient; False: the non-reentrant one; None: the non-reentrant one
        where this torch has the choice (extra says which ran)."""
        from torch.utils.checkpoint import checkpoint
        seg = seg or math.ceil(math.sqrt(T))
        extra = {"segments": math.ceil(T / seg)}
        if reentrant is None:
            try:
                reentrant = "use_reentrant" not in inspect.signature(checkpoint).parameters
            except (TypeError, ValueError):
                reentrant = True
            extra["use_reentrant"] = reentrant
            kw = {} if reentrant else {"use_reentrant": False}
        else:
            kw = {"use_reentrant": reentrant}

        def segment(a, b):
            def run(*hc):
                total = None
                for t in range(a, b):
                    hc, l = self.step(hc, t)
                    total = l if total is None else total + l
                return (*hc, total)
            return run

        hc, loss = tuple(x.requires_grad_(reentrant) for x in self.h0()), None
        for a in range(0, T, seg):
            *hc, l = checkpoint(segment(a, min(a + seg, T)), *hc, **kw)
            hc = tuple(hc)
            loss = l if loss is None else loss + l
        return loss, extra
