"""Backpropagation through a PyTorch step function, driven by ebb.

    h_n, loss = ebb.torch.scan(step, h0, steps, params=list(model.parameters()))
    (loss + head(h_n)).backward()

`step(h, t)` returns `(h_next, loss_t)`, or `(h_next, loss_t, y_t)` with
per-step outputs y_t that scan returns stacked along a new leading time
dimension: `h_n, loss, ys = scan(...)`. The gradients of `params` and of
`h0` are those of the whole sequence unrolled under autograd, while only
ebb's slots, one step's graph and the outputs are in memory. docs/python.md.

The forward sweep runs every step under no_grad on a copy of x_t taken from
ebb's buffer, and copies x_{t+1} into ebb's buffer. The reverse sweep
calls back for t = n-1 .. 0 with x_t; each call runs step t again with grad
enabled and back-propagates the adjoint of x_{t+1} and the gradient of the
loss through it alone (and the gradient of the stacked outputs' slice t, when
the step has outputs), summing the parameters' gradients over t in the order
autograd would (t = n-1 first). Every call of step t (first forward,
recomputation, reverse step) runs under the autocast state of the forward
and, with preserve_rng_state, from the generators' states the first forward
of step t saw (torch.utils.checkpoint's semantics).

With chunk=k, ebb's step c is the user steps ck .. min(ck + k, n) - 1: its
forward runs them in turn without a graph, and its reverse runs them again
with grad enabled and back-propagates through all of them in one
autograd.grad call (_reverse_chunk).
"""

import bisect
import contextlib
import operator

import torch

from . import runtime
from ._torch_layout import Layout, _differentiable, digest
from ._torch_budget import with_memory, with_offload
from .config import Config, as_config
from ._torch_chain import profile_blocks, sequential  # noqa: F401 (ebb.torch's API)

# dtypes that tell ebb what a state is an array of (RunOptions.element, for
# compression); a state of several dtypes, or another one, leaves it to
# tier.disk.element
_ELEMENTS = {torch.float32: "float32", torch.float64: "float64"}


def _as_tuple(h):
    return tuple(h) if isinstance(h, (tuple, list)) else (h,)


class _Context:
    """What torch.utils.checkpoint restores around a recomputation: the
    autocast state of the forward (CPU and CUDA: enabled, dtype, cache) and
    the random generators' states each step's first forward saw.

    The CPU generator's state (preserve_rng_state, a CPU state) travels in
    ebb's state buffer after the tensors, so that x_t carries the state step
    t starts from: stored, recomputed and restored with it, whatever the
    strategy, in memory that grows with the slots, not with n. For a CUDA
    state (whose buffers are device memory), and where a lossy codec could
    compress the state (by_step), the generators' states are kept here, by
    step, only where they changed.
    """

    def __init__(self, layout_device, preserve_rng_state, by_step=False):
        self.amp = _autocast_state()
        self.cuda = layout_device.type == "cuda"
        self.device = layout_device
        self.rng = preserve_rng_state
        self.in_state = self.rng and not self.cuda and not by_step
        self.by_step = []          # (t, (cpu state, device state)) where they changed
        self.changed_at = []       # the t of by_step, for bisect

    def autocast(self):
        """The forward's autocast state, entered (a no-op when it is the
        current one)."""
        if _autocast_state() == self.amp:
            return contextlib.nullcontext()
        stack = contextlib.ExitStack()
        cpu_on, cpu_dtype, gpu_on, gpu_dtype, cache = self.amp
        stack.enter_context(torch.cpu.amp.autocast(enabled=cpu_on, dtype=cpu_dtype,
                                                   cache_enabled=cache))
        if gpu_on or torch.cuda.is_available():
            stack.enter_context(torch.cuda.amp.autocast(enabled=gpu_on, dtype=gpu_dtype,
                                                        cache_enabled=cache))
        return stack

    def initial(self):
        """The extra bytes of x_0 (the CPU generator's state now), or None."""
        return torch.get_rng_state() if self.in_state else None

    def before(self, t, extra, first):
        """Before step t runs: its generators' states, from x_t's extra bytes
        or, for a CUDA state, recorded at its first forward (`first`) and
        set again later."""
        if not self.rng:
            return
        if self.in_state:
            # A copy: torch >= 2.x reads a byte view at a nonzero offset as if
            # the offset counted whole generator states (an invalid state, or
            # memory far past the buffer).
            torch.set_rng_state(extra.clone())
        elif first:
            now = self.stash()
            last = self.by_step[-1][1] if self.by_step else None
            if last is None or not all(a is b or torch.equal(a, b) for a, b in zip(last, now)):
                self.by_step.append((t, now))
                self.changed_at.append(t)
        elif self.by_step:
            k = bisect.bisect_right(self.changed_at, t) - 1
            self.unstash(self.by_step[max(k, 0)][1])

    def after(self, extra):
        """After a forward step: the CPU generator's state into x_{t+1}'s extra bytes."""
        if self.in_state:
            extra.copy_(torch.get_rng_state())

    def stash(self):
        """The generators' states now (restored after the backward, as
        torch.random.fork_rng does around checkpoint's recomputation)."""
        if not self.rng:
            return None
        return (torch.get_rng_state(),
                torch.cuda.get_rng_state(self.device) if self.cuda else None)

    def unstash(self, saved):
        if saved is not None:
            torch.set_rng_state(saved[0])
            if saved[1] is not None:
                torch.cuda.set_rng_state(saved[1], self.device)


class _Streams:
    """The CUDA stream of a CUDA state's callbacks.

    ebb is given one stream at scan() (its current stream there): it orders
    its copies from a state buffer after the work queued on that stream, and
    has the stream wait for its copies into a buffer. autograd may run the
    backward on a device thread whose current stream is another one, and a
    step queues its work on the current stream where it runs. So each
    callback takes the current stream where it runs (torch.cuda.current_stream
    at the call, not at scan()): when it is not ebb's, it waits for ebb's
    before the step (the copies that filled the buffers it reads), and ebb's
    waits for it after the step (so ebb's next copies from or into those
    buffers follow the step's work), both on the GPU (events), without
    blocking the host. `current` is torch.cuda.current_stream (a stand-in in
    the tests)."""

    def __init__(self, device, stream, current=None):
        self.device = device
        self.stream = stream
        self.current = current or torch.cuda.current_stream

    @contextlib.contextmanager
    def callback(self):
        cur = self.current(self.device)
        if cur.cuda_stream == self.stream.cuda_stream:
            yield
            return
        cur.wait_stream(self.stream)
        try:
            yield
        finally:
            self.stream.wait_stream(cur)


def _streams_for(device):
    """A CUDA state's _Streams, with ebb's stream the current one now; None
    for a CPU state."""
    if device.type != "cuda":
        return None
    return _Streams(device, torch.cuda.current_stream(device))


def _autocast_state():
    return (torch.is_autocast_cpu_enabled(), torch.get_autocast_cpu_dtype(),
            torch.is_autocast_enabled(), torch.get_autocast_gpu_dtype(),
            torch.is_autocast_cache_enabled())


_UNSET = object()


class _Steps:
    """What the callbacks need. Holds no reference to the ebb run, so that
    dropping the graph frees the run at once (no reference cycle)."""

    def __init__(self, step, layout, tuple_state, params, steps, context, trial, until=None,
                 chunk=1):
        self.step = step
        self.chunk = chunk       # k: user steps per ebb step (ebb step c is steps c*k ..)
        self.step_bytes = None   # chunk="auto": the measured graph of one step
        self.n = None if until is not None else steps  # n, once known (until: at the stop)
        self.until = until       # until(h, t): stop after step t (n unknown: steps = 0)
        self.limit = steps       # with until: at most this many steps (None: no limit)
        self.trial = trial       # try step 0 with grad first (_trial)
        self.layout = layout
        self.tuple_state = tuple_state
        self.params = params
        self.steps = steps
        self.context = context
        self.phase = "forward"
        self.loss = None
        self.hashes = None       # digests of (x_t, x_{t+1}, loss_t), first computation
        self.adjoint = None      # adjoint of the live x_{t+1}, one entry per tensor
        self.grad_loss = None
        self.need_h0 = ()
        self.param_grads = None
        self.param_ids = {id(p) for p in params}
        # per-step outputs y_t: their structure (None: the step returns
        # none; (tuple?, count) else), which of them are the step's input h
        # or output h_next themselves ((j, k) pairs), the stacked outputs
        # of the first forward sweep, and the gradients of those
        self.out_kind = _UNSET
        self.aliases = None
        self.leaves_checked = False  # the first reverse step's graph was walked
        self.ys = None
        self.grad_ys = None
        self.streams = None      # a CUDA state: _Streams (the callbacks' stream)

    def _call(self, h, t):
        versions = [x._version for x in h]
        res = self.step(h if self.tuple_state else h[0], t)
        for j, (x, v) in enumerate(zip(h, versions)):
            if x._version != v:
                what = f"h[{j}]" if self.tuple_state else "h"
                raise RuntimeError(
                    f"step(h, {t}) modified its input {what} in place: ebb recomputes steps "
                    "from their inputs, so an in-place edit (x.add_(...), x[...] = ..., even "
                    "under torch.no_grad()) would give a gradient that belongs to another "
                    "computation. Compute a new tensor instead (h = h.clamp(...), not "
                    "h.clamp_(...))")
        if not isinstance(res, (tuple, list)) or len(res) not in (2, 3):
            what = (f"a {type(res).__name__} of {len(res)}" if isinstance(res, (tuple, list))
                    else type(res).__name__)
            raise TypeError(f"step(h, {t}) must return (h_next, loss_t) or (h_next, loss_t, "
                            f"y_t), got {what}")
        h_next, loss_t = _as_tuple(res[0]), res[1]
        self.layout.check(h_next, t, "h_next")
        ys = self._outputs(res[2], h, h_next, t) if len(res) == 3 else ()
        kind = (isinstance(res[2], (tuple, list)), len(ys)) if len(res) == 3 else None
        if self.out_kind is _UNSET:
            self.out_kind = kind
        elif kind != self.out_kind:
            def say(k):
                return ("no y_t" if k is None else f"a tuple of {k[1]} outputs" if k[0]
                        else "one output tensor")
            raise TypeError(f"step(h, {t}) returned {say(kind)}, step 0 {say(self.out_kind)}: "
                            "every step must return the same structure of outputs")
        if loss_t is not None and (not isinstance(loss_t, torch.Tensor) or loss_t.numel() != 1):
            what = (f"a tensor of shape {tuple(loss_t.shape)}" if isinstance(loss_t, torch.Tensor)
                    else type(loss_t).__name__)
            raise TypeError(f"step(h, {t}) returned a loss_t that is not a scalar tensor or "
                            f"None: {what}")
        return h_next, loss_t, ys

    def _outputs(self, y, h, h_next, t):
        """The per-step outputs y_t as a tuple of tensors; which of them are
        h or h_next themselves is the same at every step (refused else)."""
        ys = _as_tuple(y)
        if not ys:
            raise TypeError(f"step(h, {t}) returned an empty tuple of outputs y_t")
        for j, x in enumerate(ys):
            if not isinstance(x, torch.Tensor):
                raise TypeError(f"step(h, {t}) returned an output y_t[{j}] of type "
                                f"{type(x).__name__}; outputs are tensors")
        aliases = (tuple((j, k) for j, x in enumerate(ys) for k, v in enumerate(h) if x is v),
                   tuple((j, k) for j, x in enumerate(ys) for k, v in enumerate(h_next)
                         if x is v))
        if self.aliases is None:
            self.aliases = aliases
        elif aliases != self.aliases:
            raise RuntimeError(
                f"step(h, {t}) returns its input or its h_next among its outputs differently "
                "from step 0: ebb hands each output's gradient to the step that made it by "
                "the pattern of step 0. Return the same tensors at every step (or a copy, "
                "y = h.clone())")
        return ys

    def _keep(self, t, ys):
        """y_t (first forward sweep) into the stacked outputs: preallocated
        when n is known, else each copied (stacked when the sweep ends)."""
        if self.ys is None:
            if self.until is None:
                self.ys = [torch.empty((self.steps, *y.shape), dtype=y.dtype, device=y.device)
                           for y in ys]
            else:
                self.ys = [[] for _ in ys]
        for j, (dst, y) in enumerate(zip(self.ys, ys)):
            ref = dst[0] if isinstance(dst, list) and dst else dst
            if isinstance(ref, torch.Tensor):
                shape = tuple(ref.shape[1:]) if not isinstance(dst, list) else tuple(ref.shape)
                if (shape, ref.dtype, ref.device) != (tuple(y.shape), y.dtype, y.device):
                    raise ValueError(
                        f"step(h, {t}) returned an output y_t[{j}] of shape {tuple(y.shape)}, "
                        f"{y.dtype} on {y.device}; step 0's was {shape}, {ref.dtype} on "
                        f"{ref.device}: outputs are stacked over t, so every step's must "
                        "agree")
            if isinstance(dst, list):
                dst.append(y.clone(memory_format=torch.contiguous_format))
            else:
                dst[t].copy_(y)

    def stacked(self):
        """The stacked outputs of the first forward sweep, handed over (the
        binding keeps no reference to them)."""
        ys, self.ys = self.ys, None
        if ys is None:
            return ()
        return tuple(torch.stack(y) if isinstance(y, list) else y for y in ys)

    def _trial(self, inp):
        """Step 0 once with grad enabled, its graph dropped at once: a tensor
        that requires grad and is not in params is named before the forward
        sweep runs, not after it. The random generators are left as they
        were (torch.random.fork_rng)."""
        self._try(self.layout.copies(inp))

    def _try(self, copies, measure=False):
        """_trial's step 0 on `copies` of x_0; with `measure`, the bytes of
        the tensors its graph saves (each once; the parameters' own storage
        not counted) plus one state's, which a chunk's graph holds per step."""
        lay, ctx = self.layout, self.context
        devices = [ctx.device.index if ctx.device.index is not None else
                   torch.cuda.current_device()] if ctx.cuda else []
        saved = {}
        own = {p.data_ptr() for p in self.params}

        def pack(x):
            if x.data_ptr() not in own:
                saved[(x.data_ptr(), x.numel(), x.dtype)] = x.numel() * x.element_size()
            return x

        hooks = (torch.autograd.graph.saved_tensors_hooks(pack, lambda x: x) if measure
                 else contextlib.nullcontext())
        with torch.random.fork_rng(devices=devices), torch.enable_grad(), ctx.autocast(), \
                hooks:
            h = tuple(v.requires_grad_(f) for v, f in zip(copies, lay.differentiable))
            h_next, loss_t, ys = self._call(h, 0)
            outputs = [x for x in (*h_next, loss_t, *ys)
                       if x is not None and x.grad_fn is not None]
            self._check_leaves(outputs, h, 0)
        return sum(saved.values()) + lay.size

    def forward(self, t, inp, out):
        fwd = self._forward if self.chunk == 1 else self._forward_chunk
        if self.streams is None:
            return fwd(t, inp, out)
        with self.streams.callback():
            return fwd(t, inp, out)

    def _forward(self, t, inp, out):
        lay, ctx = self.layout, self.context
        first = self.phase == "forward"
        if first and t == 0 and self.trial:
            self._trial(inp)
        with torch.no_grad(), ctx.autocast():
            ctx.before(t, lay.extra(inp), first)
            h = lay.copies(inp)
            h_next, loss_t, ys = self._call(h, t)
            for dst, src in zip(lay.views(out), h_next):
                dst.copy_(src)
            ctx.after(lay.extra(out))
            last = first and self.until is not None and self._stop(h_next, t)
            if last:
                self.n = t + 1
            if first:
                self._record(t, h, h_next, loss_t, ys)
        return runtime.LAST if last else None

    def _record(self, t, h, h_next, loss_t, ys):
        """What the first forward of step t leaves for later: its hash (the
        hash audit), its outputs y_t, and loss_t added to the running loss."""
        if self.hashes is not None:
            self.hashes.append(digest((*h, *h_next, loss_t, *ys)))
        if ys:
            self._keep(t, ys)
        if loss_t is not None:
            loss_t = loss_t.reshape(())
            self.loss = loss_t.clone() if self.loss is None else self.loss + loss_t

    def _span(self, c):
        """The user steps of ebb step c: c*k .. min(c*k + k, n) - 1."""
        a = c * self.chunk
        b = a + self.chunk
        return a, (b if self.n is None else min(b, self.n))

    def _forward_chunk(self, c, inp, out):
        """ebb step c over k user steps without a graph: each step hands its
        h_next to the next one itself, as the unrolled loop does; only the
        chunk's ends pass through ebb's buffers. The random generators are
        set once, at the chunk's first step, and run on through the others
        as they did in the first forward."""
        lay, ctx = self.layout, self.context
        first = self.phase == "forward"
        a, b = self._span(c)
        if first and a == 0 and self.trial:
            self._trial(inp)
        last = False
        with torch.no_grad(), ctx.autocast():
            ctx.before(a, lay.extra(inp), first)
            h = lay.copies(inp)
            for t in range(a, b):
                h_next, loss_t, ys = self._call(h, t)
                if first:
                    self._record(t, h, h_next, loss_t, ys)
                    if self.until is not None and self._stop(h_next, t):
                        self.n, last = t + 1, True
                        h = h_next
                        break
                h = h_next
            for dst, src in zip(lay.views(out), h):
                dst.copy_(src)
            ctx.after(lay.extra(out))
        return runtime.LAST if last else None

    def _stop(self, h_next, t):
        """Whether the first forward sweep ends after step t (until, or the limit)."""
        if self.limit is not None and t + 1 >= self.limit:
            return True
        res = self.until(h_next if self.tuple_state else h_next[0], t)
        if isinstance(res, torch.Tensor):
            if res.numel() != 1:
                raise TypeError(f"until(h, {t}) returned a tensor of shape {tuple(res.shape)}; "
                                "expected True/False (or a one-element tensor)")
            res = bool(res.item())
        return bool(res)

    def reverse(self, t, state):
        rev = self._reverse if self.chunk == 1 else self._reverse_chunk
        if self.streams is None:
            return rev(t, state)
        with self.streams.callback():
            return rev(t, state)

    def _reverse(self, t, state):
        lay = self.layout
        self.context.before(t, lay.extra(state), False)
        h = []
        for j, v in enumerate(lay.copies(state)):
            need = lay.differentiable[j] and (t > 0 or self.need_h0[j])
            h.append(v.requires_grad_(need))
        with torch.enable_grad(), self.context.autocast():
            h_next, loss_t, ys = self._call(tuple(h), t)
        if self.hashes is not None and digest((*h, *h_next, loss_t, *ys)) != self.hashes[t]:
            raise RuntimeError(
                f"step {t} is not deterministic: recomputed with grad enabled it gives an "
                f"x_{t + 1}, a loss_{t} or a y_{t} that differs from its first computation, "
                "so the "
                "gradient would be wrong. Make the step depend only on (h, t) and the "
                "random generators' states (docs/python.md)")
        outputs, grads = self._output_grads(t, h, ys)
        for x, a in zip(h_next, self.adjoint):
            if a is not None and x.requires_grad:
                outputs.append(x)
                grads.append(a)
        if loss_t is not None and self.grad_loss is not None and loss_t.requires_grad:
            outputs.append(loss_t)
            grads.append(self.grad_loss.reshape(loss_t.shape))
        self._backprop(h, outputs, grads, t)

    def _backprop(self, h, outputs, grads, t):
        """One autograd.grad from `outputs` (with `grads`) to the leaves `h`
        (x_t's copies) and the parameters: x_t's adjoint into self.adjoint,
        the parameters' running sums into self.param_grads."""
        leaves = [x for x in h if x.requires_grad]
        params = [p for p in self.params if p.requires_grad]
        if not self.leaves_checked:
            # once: a graph walk per step costs more than a small step
            # (step 0's trial checked the forward already)
            self._check_leaves(outputs, h, t)
            self.leaves_checked = True
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

    def _reverse_chunk(self, c, state):
        """ebb step c's reverse: its k user steps run again with grad enabled,
        each on the previous one's h_next, and ONE autograd.grad back-propagates
        the adjoint of the chunk's last state, the losses' gradient and the
        outputs' slices through all of them. The engine runs a graph's nodes
        newest first, so the chunk's steps are differentiated last first, each
        step's contributions added in the order the unrolled graph adds them;
        the running sum of each parameter's gradient enters first (as for one
        step), so the sum is the unrolled one, bit for bit."""
        lay = self.layout
        a, b = self._span(c)
        self.context.before(a, lay.extra(state), False)
        h = []
        for j, v in enumerate(lay.copies(state)):
            need = lay.differentiable[j] and (a > 0 or self.need_h0[j])
            h.append(v.requires_grad_(need))
        h = leaves_h = tuple(h)
        outputs, grads = [], []
        with torch.enable_grad(), self.context.autocast():
            for t in range(a, b):
                h_next, loss_t, ys = self._call(h, t)
                if self.hashes is not None and \
                        digest((*h, *h_next, loss_t, *ys)) != self.hashes[t]:
                    raise RuntimeError(
                        f"step {t} is not deterministic: recomputed with grad enabled it gives "
                        f"an x_{t + 1}, a loss_{t} or a y_{t} that differs from its first "
                        "computation, so the gradient would be wrong. Make the step depend "
                        "only on (h, t) and the random generators' states (docs/python.md)")
                o, g = self._output_grads(t, h, ys)
                outputs += o
                grads += g
                if loss_t is not None and self.grad_loss is not None and loss_t.requires_grad:
                    outputs.append(loss_t)
                    grads.append(self.grad_loss.reshape(loss_t.shape))
                h = h_next
        for x, g in zip(h, self.adjoint):
            if g is not None and x.requires_grad:
                outputs.append(x)
                grads.append(g)
        self._backprop(leaves_h, outputs, grads, a)

    def _output_grads(self, t, h, ys):
        """The stacked outputs' gradients for reverse step t, as (outputs,
        grads) of its autograd.grad, in the order the unrolled graph adds
        them: the stack's backward runs before every step's, so a slice that
        belongs to x_t itself (y_t is h, or y_{t-1} was h_next) enters x_t's
        gradient first, ahead of step t's own contributions (y_{n-1} that is
        h_next joins h_n's gradient in backward); the other y_t are outputs
        of step t. Later outputs first, as stacks made in order run."""
        outputs, grads = [], []
        if not ys or self.grad_ys is None:
            return outputs, grads
        into_in, into_next = self.aliases
        seeds = [(j, k, t) for j, k in into_in] + \
                [(j, k, t - 1) for j, k in into_next if t > 0]
        for j, k, s in sorted(seeds, reverse=True):
            if self.grad_ys[j] is not None and h[k].requires_grad:
                outputs.append(h[k])
                grads.append(self.grad_ys[j][s])
        own = {j for j, _ in into_in} | {j for j, _ in into_next}
        for j in reversed(range(len(ys))):
            y, g = ys[j], self.grad_ys[j]
            if j not in own and g is not None and y.requires_grad:
                outputs.append(y)
                grads.append(g[t])
        return outputs, grads

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
        s.streams = _streams_for(lay.device)
        if lay.device.type == "cuda":
            extra = dict(state_tier="gpu", device=lay.device.index,
                         stream=s.streams.stream.cuda_stream)
        # ebb's steps are the chunks of k user steps, the last one possibly
        # shorter; 0: n unknown, the forward says when
        n = 0 if s.until is not None else -(-s.steps // s.chunk)
        self.run = runtime.Run(lay.size, n, s.forward, s.reverse, buffers="address",
                               **self.options, **extra)
        if self.run.info().audit == "hash":
            s.hashes = []
        x0 = lay.pack(h0, s.context.initial())
        xn = self.run.forward(x0.data_ptr())
        del x0
        h_n = tuple(v.clone() for v in lay.views(xn))
        s.phase = "reverse"
        if self.report is not None:
            self.report["info"] = self.run.info()
            self.report["stats"] = self.run.stats()
            self.report["chunk"] = s.chunk
        loss = s.loss
        s.loss = None
        if loss is None:
            dtype = next((d for d, f in zip(lay.dtypes, lay.differentiable) if f), torch.float32)
            loss = torch.zeros((), dtype=dtype, device=lay.device)
        return h_n, loss, s.stacked()

    def backward(self, grads_h, grad_loss, grad_ys, need_h0, need_params):
        s = self.s
        s.adjoint = list(grads_h)
        s.grad_loss = grad_loss
        s.grad_ys = list(grad_ys)
        if grad_ys:
            # y_{n-1} that is h_next: its slice is part of h_n's gradient
            for j, k in sorted(s.aliases[1], reverse=True):
                g = grad_ys[j]
                if g is not None and s.layout.differentiable[k]:
                    a = s.adjoint[k]
                    s.adjoint[k] = g[-1] if a is None else a + g[-1]
        s.need_h0 = need_h0
        s.param_grads = [None] * sum(1 for p in s.params if p.requires_grad)
        rng = s.context.stash()
        try:
            self.run.reverse()
        finally:
            s.context.unstash(rng)
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
        self.s.ys = self.s.grad_ys = None


class _Scan(torch.autograd.Function):
    @staticmethod
    def forward(ctx, sweep, nh, *tensors):
        ctx.set_materialize_grads(False)
        try:
            h_n, loss, ys = sweep.forward(tensors[:nh])
        except BaseException:
            sweep.close()
            raise
        ctx.sweep = sweep
        ctx.nh = nh
        ctx.mark_non_differentiable(*[x for x, f in zip(h_n, sweep.s.layout.differentiable)
                                      if not f],
                                    *[y for y in ys if not _differentiable(y)])
        return (*h_n, loss, *ys)

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
            hgrads, pgrads = sweep.backward(grads[:nh], grads[nh], grads[nh + 1:], need[:nh],
                                            need[nh:])
        finally:
            sweep.close()
        return (None, None, *hgrads, *pgrads)


def scan(step, h0, steps, params=None, strategy=None, config=None, slots=None,
         disk_slots=None, audit=None, report=None, preserve_rng_state=True, memory=None,
         until=None, chunk=None, offload=None, error_samples=None, measure_costs=False):
    """Runs h_{t+1}, loss_t = step(h_t, t) for t = 0 .. steps-1 through ebb.

    step       step(h, t) -> (h_next, loss_t), or (h_next, loss_t, y_t) with
               per-step outputs y_t (a tensor or a tuple of tensors, the
               same shapes at every step); h is a tensor or a tuple of
               tensors (as h0), loss_t a scalar tensor or None. It must be
               deterministic given (h, t) and the random generators' states,
               and must not modify h in place (refused). h is the step's own
               copy of x_t: it may keep it.
    h0         a tensor or a tuple of tensors, on one device (CPU or CUDA)
    steps      n >= 1, any integer type (int, numpy's, a 0-d integer tensor);
               with until: None (no limit) or the most steps to run
    until      until(h, t) -> bool, called after step t of the forward sweep
               with its output h (x_{t+1}): True ends the sequence there
               (n = t + 1, unknown before: ebb's online, async or auto)
    params     every tensor requiring grad that step uses; under grad mode,
               step 0 is first tried with grad enabled so that one missing
               is named at once
    strategy   one of ebb.STRATEGIES; None: the configuration's ([run] strategy)
    config     ebb.Config, a TOML path or a dict; None: ebb's embedded default
    slots, disk_slots   override the fast and slow tiers' budgets (states)
    memory     the budget of the state's tier (host memory for a CPU state):
               bytes (an int, or a size such as "256 MiB"), or a float in
               (0, 1]: that fraction of the memory store-all would need
               (the configuration's budget by default: docs/python.md)
    offload    a CUDA state only: its states also go to pinned host slots
               while the device computes and come back ahead of the
               reverse sweep (strategy async unless another with a slower
               tier is named; no disk tier). True: host slots for every
               state; or the host budget as memory= takes it
    audit      "off", "replay" or "hash" (None: the configuration's, or EBB_AUDIT)
    error_samples  K >= 0: the lossy error estimate over K sampled states
               (docs/compression.md, "The error estimate"), in report's
               "stats" after the backward (gradient_rel_error_estimate,
               state_rel_error_max, ...); 0: off; None: run.error_samples
               (or EBB_ERROR_SAMPLES). A CPU state only: ebb refuses it for
               a CUDA one
    measure_costs  True: strategy "online" or "async" times the first
               sweep's steps (a CUDA state's on the device) and reverses
               each interval between its checkpoints by the chain program
               over those times (docs/heterogeneous.md, "Measured in the
               run"); refused with another strategy
    report     a dict to fill: "info" (ebb.RunInfo: strategy, slots and bytes
               per tier) and "stats" (ebb.RunStats after the forward, then
               after the backward)
    preserve_rng_state  each recomputation and reverse step of step t starts
               from the random generators' states its first forward saw (as
               torch.utils.checkpoint); False: they are not touched
    chunk      k >= 1 user steps per ebb step (None: 1): ebb's schedule runs
               over ceil(n / k) chunks, the last one shorter when k does not
               divide n, and each chunk's reverse is one autograd call over
               its k steps, whose graph is in memory at once. "auto": k
               from the graph of step 0 and the budget (_auto_chunk), ebb's
               slots then given so that slots and graph take no more memory
               than with 1

    Returns (h_n, loss): the final state (same structure as h0) and the sum
    of the loss_t, both differentiable; with per-step outputs (h_n, loss,
    ys), ys the y_t stacked along a new leading time dimension (a tuple of
    stacks when y_t is a tuple), differentiable too. For a CUDA state each
    callback queues its work on the current stream where it runs (autograd's
    device thread in the backward), ordered against ebb's (_Streams).
    ebb's resources are released when the backward has run or the result
    is garbage-collected.
    """
    if until is not None:
        if not callable(until):
            raise TypeError(f"until must be a function until(h, t) -> bool, got "
                            f"{type(until).__name__}")
        steps = None if steps is None else _steps(steps)
    elif steps is None:
        raise ValueError("steps=None needs until=: a function until(h, t) that returns True "
                         "to end the sequence after step t")
    else:
        steps = _steps(steps)
    auto = chunk == "auto"
    chunk = 1 if auto else _chunk(chunk, steps)
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
    device = h0s[0].device
    preserve_rng_state = bool(preserve_rng_state)
    config = as_config(config)
    # a lossy codec must not see the generator's state: it is kept by step then
    by_step = (config if config is not None else Config()).lossy_tier() is not None
    in_state = preserve_rng_state and device.type != "cuda" and not by_step
    layout = Layout(h0s, extra_bytes=torch.get_rng_state().numel() if in_state else 0)
    known = None if until else -(-steps // chunk)
    if memory is not None:
        config = with_memory(config, memory, layout, None if until else steps)
    config, strategy, slow_tier = with_offload(config, offload, layout, known, strategy,
                                               disk_slots)
    context = _Context(device, preserve_rng_state, by_step)
    dtypes = set(layout.dtypes)
    element = _ELEMENTS.get(dtypes.pop()) if len(dtypes) == 1 else None
    options = dict(config=config, strategy=strategy, slots=slots, disk_slots=disk_slots,
                   audit=audit, element=element, slow_tier=slow_tier,
                   error_samples=error_samples, measure_costs=bool(measure_costs))
    s = _Steps(step, layout, tuple_state, params, steps, context, torch.is_grad_enabled(), until,
               chunk)
    if auto:
        s.chunk, picked = _auto_chunk(s, h0s, config, strategy, slots, steps)
        if picked is not None:
            options["slots"] = picked
        if report is not None:
            report["chunk_step_bytes"] = s.step_bytes
    sweep = _Sweep(s, options, report)
    nh = len(h0s)
    out = _Scan.apply(sweep, nh, *h0s, *params)
    h_n, loss, ys = out[:nh], out[nh], out[nh + 1:]
    h_n = tuple(h_n) if tuple_state else h_n[0]
    if not s.out_kind:
        return h_n, loss
    return h_n, loss, (tuple(ys) if s.out_kind[0] else ys[0])


def _positive_int(value, what, also=""):
    """value as an int >= 1, from any integer type (operator.index; bool
    refused); `what` names it in the errors, `also` adds what else it may be."""
    try:
        if isinstance(value, bool):
            raise TypeError
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer >= 1{also}, got {type(value).__name__} "
                        f"{value!r}") from None
    if n < 1:
        raise ValueError(f"{what} must be an integer >= 1, got {n}")
    return n


def _steps(steps):
    """n as an int >= 1."""
    return _positive_int(steps, "steps")


def _auto_chunk(s, h0s, config, strategy, slots, steps):
    """chunk="auto": (k, the slots to give ebb, or None to leave them).

    The graph of one step is measured on step 0 (its saved tensors and one
    state: G bytes, s.step_bytes; this is the trial of step 0). With k, the
    graph of k steps is held in the reverse sweep where chunk=1 holds one, so
    the extra (k - 1) G is taken from the slots' budget B (the bytes of the
    slots ebb would use with chunk=1: the tier's budget, or `slots`, no more
    than store-all's n - 1 states): the slots and the graph then take no
    more than with chunk=1. Of the k that leave at least one slot, the
    largest whose schedule recomputes no more user steps than chunk=1's
    (both counted with revolve's, ebb.plan) is taken: fewer callbacks and
    no more recomputation. k = 1 where that cannot be judged: n unknown
    (until=), grad mode off (no backward), a strategy other than revolve or
    auto (None)."""
    from . import schedule

    s.step_bytes = None
    if s.until is not None or not s.trial or strategy not in (None, "auto", "revolve"):
        return 1, None
    lay = s.layout
    g = s._try(tuple(x.detach().clone() for x in h0s), measure=True)
    s.step_bytes = g
    s.trial = False  # step 0 was tried here
    tier = "gpu" if lay.device.type == "cuda" else "host"
    stride = runtime.slot_stride(tier, lay.size)
    budget = slots * stride if slots is not None else \
        (config if config is not None else Config()).budget(tier)
    budget = min(budget, max(steps - 1, 1) * stride)
    base = max(budget // stride, 1)
    want = schedule.plan(steps, base).recomputed_steps
    best = (1, None)
    k = 2
    while k <= steps:
        c = (budget - (k - 1) * g) // stride
        if c < 1:
            break
        m = -(-steps // k)
        if schedule.plan(m, min(c, m)).recomputed_steps * k <= want:
            best = (k, min(c, m))
        k *= 2
    return best


def _chunk(chunk, steps):
    """k, the user steps per ebb step, as an int >= 1 (None: 1), no more
    than n when n is known."""
    if chunk is None:
        return 1
    k = _positive_int(chunk, "chunk", " (user steps per ebb step) or \"auto\"")
    return k if steps is None else min(k, steps)
