"""Backpropagation through a PyTorch step function, driven by ebb.

    h_n, loss = ebb.torch.scan(step, h0, steps, params=list(model.parameters()))
    (loss + head(h_n)).backward()

`step(h, t)` returns `(h_next, loss_t)`. The gradients of `params` and of
`h0` are those of the whole sequence unrolled under autograd, while only
ebb's slots and one step's graph are in memory. docs/python.md.

The forward sweep runs every step under no_grad, reading x_t from and writing
x_{t+1} into ebb's own buffers (tensors aliasing them). The reverse sweep
calls back for t = n-1 .. 0 with x_t; each call runs step t again with grad
enabled and back-propagates the adjoint of x_{t+1} and the gradient of the
loss through it alone, summing the parameters' gradients over t in the order
autograd would (t = n-1 first).
"""

import torch

from . import runtime
from ._torch_layout import Layout, digest


def _as_tuple(h):
    return tuple(h) if isinstance(h, (tuple, list)) else (h,)


class _Steps:
    """What the callbacks need. Holds no reference to the ebb run, so that
    dropping the graph frees the run at once (no reference cycle)."""

    def __init__(self, step, layout, tuple_state, params, steps):
        self.step = step
        self.layout = layout
        self.tuple_state = tuple_state
        self.params = params
        self.steps = steps
        self.phase = "forward"
        self.loss = None
        self.hashes = None       # digests of x_{t+1}, first computation (audit "hash")
        self.adjoint = None      # adjoint of the live x_{t+1}, one entry per tensor
        self.grad_loss = None
        self.need_h0 = ()
        self.param_grads = None
        self.param_ids = {id(p) for p in params}

    def _call(self, h, t):
        res = self.step(h if self.tuple_state else h[0], t)
        if not isinstance(res, (tuple, list)) or len(res) != 2:
            raise TypeError(f"step(h, {t}) must return (h_next, loss_t), got "
                            f"{type(res).__name__}")
        h_next, loss_t = _as_tuple(res[0]), res[1]
        self.layout.check(h_next, t, "h_next")
        if loss_t is not None and (not isinstance(loss_t, torch.Tensor) or loss_t.numel() != 1):
            what = (f"a tensor of shape {tuple(loss_t.shape)}" if isinstance(loss_t, torch.Tensor)
                    else type(loss_t).__name__)
            raise TypeError(f"step(h, {t}) returned a loss_t that is not a scalar tensor or "
                            f"None: {what}")
        return h_next, loss_t

    def forward(self, t, inp, out):
        with torch.no_grad():
            h_next, loss_t = self._call(self.layout.views(inp), t)
            for dst, src in zip(self.layout.views(out), h_next):
                dst.copy_(src)
            if self.phase == "forward":
                if loss_t is not None:
                    loss_t = loss_t.reshape(())
                    self.loss = loss_t.clone() if self.loss is None else self.loss + loss_t
                if self.hashes is not None:
                    self.hashes.append(digest(h_next))

    def reverse(self, t, state):
        lay = self.layout
        h = []
        for j, v in enumerate(lay.views(state)):
            need = lay.differentiable[j] and (t > 0 or self.need_h0[j])
            h.append(v.detach().requires_grad_(need))
        with torch.enable_grad():
            h_next, loss_t = self._call(tuple(h), t)
        if self.hashes is not None and digest(h_next) != self.hashes[t]:
            raise RuntimeError(
                f"step {t} is not deterministic: recomputed with grad enabled it gives an "
                f"x_{t + 1} that differs from its first computation, so the gradient would be "
                "wrong. Make the step depend only on (h, t) (seed random layers from t; "
                "docs/python.md)")
        outputs, grads = [], []
        for x, a in zip(h_next, self.adjoint):
            if a is not None and x.requires_grad:
                outputs.append(x)
                grads.append(a)
        if loss_t is not None and self.grad_loss is not None and loss_t.requires_grad:
            outputs.append(loss_t)
            grads.append(self.grad_loss.reshape(loss_t.shape))
        leaves = [x for x in h if x.requires_grad]
        params = [p for p in self.params if p.requires_grad]
        self._check_leaves(outputs, h, t)
        if outputs:
            # The sum so far of each parameter's gradient enters the
            # parameter's gradient buffer first, through a view made after
            # the step (autograd runs the newest node first), so that this
            # step's contributions are added to it one by one in autograd's
            # own order: the same sum, bit for bit, as the unrolled graph's.
            with torch.enable_grad():
                for p, acc in zip(params, self.param_grads):
                    if acc is not None:
                        outputs.append(p.view_as(p))
                        grads.append(acc)
        if outputs and (leaves or params):
            got = torch.autograd.grad(outputs, leaves + params, grads, allow_unused=True)
        else:
            got = [None] * (len(leaves) + len(params))
        it = iter(got[:len(leaves)])
        self.adjoint = [next(it) if x.requires_grad else None for x in h]
        for k, g in enumerate(got[len(leaves):]):
            if g is not None:
                self.param_grads[k] = g

    def _check_leaves(self, outputs, h, t):
        """A tensor that needs a gradient, used by the step and not passed in
        params, would silently get none: refuse it."""
        own = self.param_ids | {id(x) for x in h}
        # a parameter computed from others (not a leaf) is where autograd
        # stops: what lies behind it gets its gradient outside the scan
        stop = {p.grad_fn for p in self.params if p.grad_fn is not None}
        seen, todo = set(), [o.grad_fn for o in outputs if o.grad_fn is not None]
        while todo:
            fn = todo.pop()
            if fn is None or fn in seen or fn in stop:
                continue
            seen.add(fn)
            var = getattr(fn, "variable", None)
            if var is not None and id(var) not in own:
                raise ValueError(
                    f"step(h, {t}) uses a tensor of shape {tuple(var.shape)} that requires grad "
                    "but is not in params: its gradient would be lost. Pass every such tensor "
                    "in params= (e.g. params=list(model.parameters()))")
            todo.extend(f for f, _ in fn.next_functions)


class _Sweep:
    """One scan: the ebb run between the forward and the backward."""

    def __init__(self, steps_obj, options, report):
        self.s = steps_obj
        self.options = options
        self.report = report
        self.run = None

    def forward(self, h0):
        s, lay = self.s, self.s.layout
        extra = {}
        if lay.device.type == "cuda":
            extra = dict(state_tier="gpu", device=lay.device.index,
                         stream=torch.cuda.current_stream(lay.device).cuda_stream)
        self.run = runtime.Run(lay.size, s.steps, s.forward, s.reverse, buffers="address",
                               **self.options, **extra)
        if self.run.info().audit == "hash":
            s.hashes = []
        x0 = lay.pack(h0)
        xn = self.run.forward(x0.data_ptr())
        del x0
        h_n = tuple(v.clone() for v in lay.views(xn))
        s.phase = "reverse"
        if self.report is not None:
            self.report["info"] = self.run.info()
            self.report["stats"] = self.run.stats()
        loss = s.loss
        s.loss = None
        if loss is None:
            dtype = next((d for d, f in zip(lay.dtypes, lay.differentiable) if f), torch.float32)
            loss = torch.zeros((), dtype=dtype, device=lay.device)
        return h_n, loss

    def backward(self, grads_h, grad_loss, need_h0, need_params):
        s = self.s
        s.adjoint = list(grads_h)
        s.grad_loss = grad_loss
        s.need_h0 = need_h0
        s.param_grads = [None] * sum(1 for p in s.params if p.requires_grad)
        self.run.reverse()
        if self.report is not None:
            self.report["stats"] = self.run.stats()
        it = iter(s.param_grads)
        pgrads = [next(it) if p.requires_grad else None for p in s.params]
        pgrads = [g if n else None for g, n in zip(pgrads, need_params)]
        hgrads = [a if n else None for a, n in zip(s.adjoint, need_h0)]
        return hgrads, pgrads

    def close(self):
        if self.run is not None:
            self.run.close()
        self.s.layout.forget()
        self.s.adjoint = self.s.param_grads = self.s.hashes = None


class _Scan(torch.autograd.Function):
    @staticmethod
    def forward(ctx, sweep, nh, *tensors):
        ctx.set_materialize_grads(False)
        try:
            h_n, loss = sweep.forward(tensors[:nh])
        except BaseException:
            sweep.close()
            raise
        ctx.sweep = sweep
        ctx.nh = nh
        ctx.mark_non_differentiable(*[x for x, f in zip(h_n, sweep.s.layout.differentiable)
                                      if not f])
        return (*h_n, loss)

    @staticmethod
    def backward(ctx, *grads):
        sweep = ctx.sweep
        if sweep is None:
            raise RuntimeError(
                "ebb.torch.scan: backward already ran through this scan. ebb's reverse sweep "
                "consumes the checkpoints it kept and releases them, so a second backward "
                "(retain_graph=True) cannot run: call ebb.torch.scan again")
        if torch.is_grad_enabled():
            raise RuntimeError("ebb.torch.scan does not support create_graph=True "
                               "(higher-order gradients through the scan)")
        ctx.sweep = None
        nh = ctx.nh
        need = ctx.needs_input_grad[2:]
        try:
            hgrads, pgrads = sweep.backward(grads[:nh], grads[nh], need[:nh], need[nh:])
        finally:
            sweep.close()
        return (None, None, *hgrads, *pgrads)


def scan(step, h0, steps, params=None, strategy=None, config=None, slots=None,
         disk_slots=None, audit=None, report=None):
    """Runs h_{t+1}, loss_t = step(h_t, t) for t = 0 .. steps-1 through ebb.

    step       step(h, t) -> (h_next, loss_t); h is a tensor or a tuple of
               tensors (as h0), loss_t a scalar tensor or None. It must be
               deterministic given (h, t) and must not modify h in place.
    h0         a tensor or a tuple of tensors, on one device (CPU or CUDA)
    steps      n >= 1
    params     every tensor requiring grad that step uses
    strategy   an ebb strategy name; None: the configuration's ([run] strategy)
    config     ebb.Config, a TOML path or a dict; None: ebb's embedded default
    slots, disk_slots   override the fast and slow tiers' budgets (states)
    audit      "off", "replay" or "hash" (None: the configuration's, or EBB_AUDIT)
    report     a dict to fill: "info" (ebb.RunInfo: strategy, slots and bytes
               per tier) and "stats" (ebb.RunStats after the forward, then
               after the backward)

    Returns (h_n, loss): the final state (same structure as h0) and the sum
    of the loss_t, both differentiable. ebb's resources are released when the
    backward has run or the result is garbage-collected.
    """
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be an int >= 1, got {steps!r}")
    tuple_state = isinstance(h0, (tuple, list))
    h0s = _as_tuple(h0)
    if not h0s or not all(isinstance(x, torch.Tensor) for x in h0s):
        raise TypeError("h0 must be a tensor or a non-empty tuple of tensors")
    params = list(params or [])
    for k, p in enumerate(params):
        if not isinstance(p, torch.Tensor):
            raise TypeError(f"params[{k}] is a {type(p).__name__}, not a tensor")
    if len({id(p) for p in params}) != len(params):
        raise ValueError("params lists a tensor twice; pass each parameter once")
    layout = Layout(h0s)
    options = dict(config=config, strategy=strategy, slots=slots, disk_slots=disk_slots,
                   audit=audit)
    sweep = _Sweep(_Steps(step, layout, tuple_state, params, steps), options, report)
    out = _Scan.apply(sweep, len(h0s), *h0s, *params)
    h_n, loss = out[:-1], out[-1]
    return (tuple(h_n) if tuple_state else h_n[0]), loss
