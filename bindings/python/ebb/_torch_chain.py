"""ebb.torch.sequential: backpropagation through a stack of different blocks
under a memory budget, with the schedule of least cost for their measured
costs and output sizes (ebb.chain_plan; docs/heterogeneous.md).

The forward runs the blocks under no_grad, keeping the outputs the schedule
stores (references: no copy) and dropping the rest; a block the schedule
tapes (TAPE) runs with grad instead, and its graph is kept until its reverse
step. The backward follows the schedule: it recomputes from a kept output
where told, and reverses block i by back-propagating the gradient of x_{i+1}
through block i alone: through its kept graph where it was taped, else
through a run with grad from x_i. Each block's parameters get their gradient
from its own reverse step, so the gradients are plain autograd's, bitwise.
Every run of block i after its first (recomputation, taped run, reverse
step) starts from the random generators' states its first run saw and
leaves its module's buffers (BatchNorm's running statistics) as its first
run left them (a taped rerun's once its reverse step has used them).
With offload, a state the schedule stores in the slower tier is copied to
host memory (and the device's copy dropped), moved there (EVICT) or back
(PREFETCH), and made live again by a copy to the device (RESTORE); the
copies are synchronous.
"""

import contextlib
import operator
import time

import torch

from . import chain as _chain
from .chain import ADVANCE, END, EVICT, FREE, PREFETCH, RESTORE, REVERSE, STORE, TAPE, TURN

#: devices whose states offload= moves to host memory
_OFFLOAD_DEVICES = ("cuda",)
#: the tiers a plan with offload names: the device's and host memory
_FAST, _SLOW = "gpu", "host"


def _bytes(t):
    return t.numel() * t.element_size()


def _tensors(h):
    """A state's tensors: h itself, or those of a tuple or list (None: a
    state of one tensor's missing gradient)."""
    return (h,) if h is None or isinstance(h, torch.Tensor) else tuple(h)


def _state_bytes(h):
    """The bytes of a state's tensors, each counted once."""
    seen, total = set(), 0
    for t in _tensors(h):
        if id(t) not in seen:
            seen.add(id(t))
            total += _bytes(t)
    return total


def _like(h, ts):
    """ts in h's form: one tensor, a list, or a tuple."""
    if h is None or isinstance(h, torch.Tensor):
        return ts[0]
    return list(ts) if isinstance(h, list) else tuple(ts)


def _detached(h, grad=False):
    """h's tensors detached; floating ones require grad where `grad` says
    (a bool for all, or one per tensor)."""
    ts = _tensors(h)
    flags = grad if isinstance(grad, (list, tuple)) else [grad] * len(ts)
    return _like(h, [t.detach().requires_grad_(bool(f) and t.is_floating_point())
                     for t, f in zip(ts, flags)])


def _grad(y, gy, inputs):
    """autograd.grad of block outputs y (a state) with their gradients gy (a
    state, entries None where none flowed) into `inputs`; None where no
    output needs one."""
    pairs = [(o, g) for o, g in zip(_tensors(y), _tensors(gy))
             if o.requires_grad and g is not None]
    if not inputs or not pairs:
        return None
    return torch.autograd.grad([o for o, _ in pairs], inputs, [g for _, g in pairs],
                               allow_unused=True)


def _params_of(block):
    if isinstance(block, torch.nn.Module):
        return [p for p in block.parameters() if p.requires_grad]
    return []


class _Buffers:
    """A module's buffers as its first run left them, put back after each
    later run (a recomputation must not count a batch twice)."""

    def __init__(self, block):
        self.buffers = list(block.buffers()) if isinstance(block, torch.nn.Module) else []
        self.saved = None

    def keep(self):
        if self.buffers:
            self.saved = [b.detach().clone() for b in self.buffers]

    def restore(self):
        if self.saved is not None:
            with torch.no_grad():
                for b, s in zip(self.buffers, self.saved):
                    b.copy_(s)

    @contextlib.contextmanager
    def kept(self):
        try:
            yield
        finally:
            self.restore()


def _storage(t):
    """t's storage (untyped_storage where torch has it: storage() warns there)."""
    return t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()


def _tape_bytes(saved, y, exclude):
    """The bytes a block's graph keeps: the storages of what it saved and
    of its outputs, each once, less those in `exclude` (its input's, its
    parameters' and buffers')."""
    seen, total = set(exclude), 0
    for t in saved + list(_tensors(y)):
        st = _storage(t)
        if st.data_ptr() not in seen:
            seen.add(st.data_ptr())
            total += st.nbytes()
    return total


def profile_blocks(blocks, x, repeat=1):
    """Runs each block once forward (with grad) and backward from x, in turn,
    and returns {"forward_s": [...], "reverse_s": [...], "state_bytes": [...],
    "backward_s": [...], "tape_bytes": [...]}: each block's forward time,
    its reverse time (a forward with grad and the backward, as a reverse
    step from x_i runs it), the size of its input x_i, its backward time
    alone and the bytes its graph keeps beside its input (what it saved
    for the backward and its output, parameters and buffers not counted),
    which a reverse step from the block's tape needs. The random generators
    and the blocks' buffers are left as they were."""
    fwd, rev, size, bwd, tape = [], [], [], [], []
    device = _tensors(x)[0].device
    devices = [device.index or 0] if device.type == "cuda" else []
    sync = torch.cuda.synchronize if devices else (lambda: None)
    with torch.random.fork_rng(devices=devices):
        h = _detached(x)
        for block in blocks:
            buf = _Buffers(block)
            buf.keep()
            with buf.kept():
                size.append(_state_bytes(h))
                best_f = best_r = best_b = None
                kept = 0
                for _ in range(max(1, repeat)):
                    sync()
                    t0 = time.perf_counter()
                    with torch.no_grad():
                        out = block(h)
                    sync()
                    t1 = time.perf_counter()
                    saved = []

                    def pack(t):
                        saved.append(t)
                        return t

                    with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(
                            pack, lambda t: t):
                        hi = _detached(h, True)
                        y = block(hi)
                    sync()
                    t1b = time.perf_counter()
                    inputs = [t for t in _tensors(hi) if t.requires_grad]
                    inputs += _params_of(block)
                    _grad(y, _like(y, [torch.ones_like(o) for o in _tensors(y)]), inputs)
                    sync()
                    t2 = time.perf_counter()
                    own = [_storage(t).data_ptr() for t in _tensors(h)]
                    if isinstance(block, torch.nn.Module):
                        own += [_storage(p).data_ptr() for p in block.parameters()]
                        own += [_storage(b).data_ptr() for b in block.buffers()]
                    kept = _tape_bytes(saved, y, own)
                    saved = y = hi = None
                    f, r, b = t1 - t0, t2 - t1, t2 - t1b
                    best_f = f if best_f is None else min(best_f, f)
                    best_r = r if best_r is None else min(best_r, r)
                    best_b = b if best_b is None else min(best_b, b)
                fwd.append(best_f)
                rev.append(best_r)
                bwd.append(best_b)
                tape.append(kept)
                h = out
    return {"forward_s": fwd, "reverse_s": rev, "state_bytes": size, "backward_s": bwd,
            "tape_bytes": tape}


_STORAGE = (STORE, FREE, EVICT, PREFETCH)


class _Runner:
    """One sweep's state: the plan, the kept outputs, the generators' and
    buffers' states of each block's first run."""

    def __init__(self, blocks, plan, preserve_rng_state, device, tape_sizes=None, slow=None):
        self.blocks = blocks
        self.device = device
        self.slow = slow  # the slower tier's name in the plan's places, or None
        self.tape_sizes = tape_sizes
        self.tapes = {}
        self.tape_runs = 0
        self.x_needs_grad = [True]
        self.plan = plan
        self.pos = 0
        self.slots = {}
        self.versions = {}
        self.rng = [None] * len(blocks)
        self.buffers = [_Buffers(b) for b in blocks]
        self.preserve = preserve_rng_state
        self.devices = [device.index or 0] if device.type == "cuda" else []
        self.first = [True] * len(blocks)
        self.forward_runs = 0
        self.kept_bytes = self.peak_kept_bytes = 0
        self.slow_bytes = self.peak_slow_bytes = 0
        self.moved_bytes = 0
        self.report = None

    def _rng_state(self):
        return (torch.get_rng_state(),
                torch.cuda.get_rng_state(self.devices[0]) if self.devices else None)

    def _run(self, i, h):
        """Block i on h under no_grad; its first run records the generators
        and buffers, later runs replay them."""
        self.forward_runs += 1
        block = self.blocks[i]
        if self.first[i]:
            self.first[i] = False
            if self.preserve:
                self.rng[i] = self._rng_state()
            with torch.no_grad():
                out = block(h)
            self.buffers[i].keep()
            return out
        with self._again(i), torch.no_grad():
            return block(h)

    def _tape(self, i, h):
        """Block i on h with grad, keeping its graph (its tape) for its
        reverse step; returns its output, detached."""
        self.tape_runs += 1
        block = self.blocks[i]
        first = self.first[i]
        self.first[i] = False
        if first and self.preserve:
            self.rng[i] = self._rng_state()
        # A later run's buffers are put back after its reverse step, not
        # now: its graph may have saved them (BatchNorm's running statistics).
        with (contextlib.nullcontext() if first else self._rng_again(i)), torch.enable_grad():
            hi = _detached(h, True if i > 0 else self.x_needs_grad)
            y = block(hi)
        if first:
            self.buffers[i].keep()
        self.tapes[i] = (hi, y, not first)
        self.kept_bytes += self.tape_sizes[i]
        self.peak_kept_bytes = max(self.peak_kept_bytes, self.kept_bytes)
        return _detached(y)

    @contextlib.contextmanager
    def _rng_again(self, i):
        """The generators as block i's first run saw them, and back after."""
        with contextlib.ExitStack() as stack:
            if self.preserve:
                stack.enter_context(torch.random.fork_rng(devices=self.devices))
                torch.set_rng_state(self.rng[i][0])
                if self.rng[i][1] is not None:
                    torch.cuda.set_rng_state(self.rng[i][1], self.devices[0])
            yield

    @contextlib.contextmanager
    def _again(self, i):
        """A later run of block i: its first run's generators and buffers."""
        with self._rng_again(i), self.buffers[i].kept():
            yield

    def _keep(self, slot, h, place=None, step=None):
        """Keeps h in slot of the tier `place` names (the slower one: a
        copy in host memory; the device's: a reference)."""
        if place is not None and place == self.slow:
            self.slots[(self.slow, slot)] = self._moved(h, torch.device("cpu"))
            self.slow_bytes += _state_bytes(h)
            self.peak_slow_bytes = max(self.peak_slow_bytes, self.slow_bytes)
            return
        self.slots[slot] = h
        self.versions[slot] = [t._version for t in _tensors(h)]
        self.kept_bytes += _state_bytes(h)
        self.peak_kept_bytes = max(self.peak_kept_bytes, self.kept_bytes)

    def _free(self, slot, place=None):
        if place is not None and place == self.slow:
            self.slow_bytes -= _state_bytes(self.slots.pop((self.slow, slot)))
            return
        self.kept_bytes -= _state_bytes(self.slots.pop(slot))
        del self.versions[slot]

    def _take(self, slot, step, place=None):
        if place is not None and place == self.slow:
            return self._moved(self.slots[(self.slow, slot)], self.device)
        h = self.slots[slot]
        if [t._version for t in _tensors(h)] != self.versions[slot]:
            raise RuntimeError(f"x_{step}, kept for the backward, was modified in place after "
                               f"block {step - 1} returned it: a block must not change its "
                               f"input in place (use out-of-place operations)")
        return h

    def _moved(self, h, device):
        """A copy of state h on `device` (never h itself)."""
        self.moved_bytes += _state_bytes(h)
        return _like(h, [t.to(device, copy=True) for t in _tensors(h)])

    def _move(self, kind, step, slot, place):
        """EVICT (the device's slot to the host's, freeing it) or PREFETCH
        (the host's to the device's, keeping it)."""
        src, dst, slot_to = place
        h = self._take(slot, step, src)
        if kind == EVICT:
            self._free(slot, src)
        self._keep(slot_to, h, dst)

    def _storage_action(self, kind, step, slot, place, live):
        """STORE, FREE, EVICT and PREFETCH, in either sweep."""
        if kind == STORE:
            self._keep(slot, live, place)
        elif kind == FREE:
            self._free(slot, place)
        else:
            self._move(kind, step, slot, place)

    def forward(self, x):
        """The forward sweep up to the turn; returns x_n."""
        live, prev = x, None
        for kind, step, to, slot in self.plan.actions:
            place = self.plan.places[self.pos]
            self.pos += 1
            if kind == ADVANCE:
                for i in range(step, to):
                    prev, live = live, self._run(i, live)
            elif kind == TAPE:
                prev, live = live, self._tape(step, live)
            elif kind in _STORAGE:
                self._storage_action(kind, step, slot, place, live)
            elif kind == TURN:
                self.live = prev
                return live
        raise AssertionError("the chain's schedule has no turn")

    def backward(self, gy, x_needs_grad):
        """The rest of the schedule; returns the gradient of x and the
        parameters' (by id), each summed over the blocks that use it as they
        are reversed, last block first, so that one tensor per parameter is
        held."""
        acts = self.plan.actions
        live = self.live
        self.live = None
        total = {}
        while self.pos < len(acts):
            kind, step, to, slot = acts[self.pos]
            place = self.plan.places[self.pos]
            self.pos += 1
            if kind == ADVANCE:
                for i in range(step, to):
                    live = self._run(i, live)
            elif kind == TAPE:
                live = self._tape(step, live)
            elif kind == RESTORE:
                live = self._take(slot, step, place)
            elif kind in _STORAGE:
                self._storage_action(kind, step, slot, place, live)
            elif kind == REVERSE:
                gy, grads = self._reverse(step, live, gy, True if step > 0 else x_needs_grad)
                for p, g in zip(_params_of(self.blocks[step]), grads):
                    if g is not None:
                        total[id(p)] = g if id(p) not in total else total[id(p)] + g
                live = grads = None
            elif kind == END:
                if self.report is not None:
                    self.report["forward_runs"] = self.forward_runs
                    self.report["tape_runs"] = self.tape_runs
                    self.report["peak_kept_bytes"] = self.peak_kept_bytes
                    self.report["peak_offloaded_bytes"] = self.peak_slow_bytes
                    self.report["moved_bytes"] = self.moved_bytes
                break
        return gy, total

    def _reverse(self, i, h, gy, input_grad):
        """Block i's reverse step: (the gradient of x_i as a state, entries
        None where none flows; its parameters' gradients)."""
        block = self.blocks[i]
        params = _params_of(block)
        taped = self.tapes.pop(i, None)
        if taped is not None:
            self.kept_bytes -= self.tape_sizes[i]
        restore = False
        with (contextlib.nullcontext() if taped else self._again(i)), torch.enable_grad():
            if taped:
                hi, y, restore = taped
            else:
                hi = _detached(h, input_grad)
                y = block(hi)
            ins = [t for t in _tensors(hi) if t.requires_grad]
            g = _grad(y, gy, ins + params)
        if restore:
            self.buffers[i].restore()
        none = _like(hi, [None] * len(_tensors(hi)))
        if g is None:
            return none, [None] * len(params)
        got = iter(g[:len(ins)])
        gx = _like(hi, [next(got) if t.requires_grad else None for t in _tensors(hi)])
        return gx, list(g[len(ins):])


class _Sequential(torch.autograd.Function):
    """x's tensors and the parameters in, y's tensors out (a state of one
    tensor as that tensor)."""

    @staticmethod
    def forward(ctx, runner, x_form, nx, *args):
        xs = args[:nx]
        ctx.runner = runner
        ctx.x_needs_grad = runner.x_needs_grad = [t.requires_grad for t in xs]
        x = _like(x_form, xs)
        y = runner.forward(_detached(x))
        ys = _tensors(y)
        ctx.mark_non_differentiable(*[t for t in ys if not t.is_floating_point()])
        ctx.y_single = isinstance(y, torch.Tensor)
        return y if ctx.y_single else ys

    @staticmethod
    def backward(ctx, *gys):
        runner = ctx.runner
        ctx.runner = None
        gy = gys[0] if ctx.y_single else tuple(gys)
        gx, total = runner.backward(gy, ctx.x_needs_grad)
        out = [total.get(id(p)) for p in runner.all_params]
        return (None, None, None, *_tensors(gx), *out)


def _budget(memory, sizes):
    if isinstance(memory, bool):
        raise TypeError(f"memory must be bytes (an int or a size text) or a fraction, got "
                        f"{memory!r}")
    if isinstance(memory, float):
        if not 0 < memory <= 1:
            raise ValueError(f"memory as a fraction of what keeping every block's input needs "
                             f"is in (0, 1], got {memory!r}; give bytes as an int")
        # x_0 is kept whatever the budget: a fraction never asks for less
        return max(int(memory * sum(sizes)), sizes[0])
    if isinstance(memory, str):
        from . import _capi
        import ctypes
        out = ctypes.c_uint64()
        _capi.check(_capi.lib().ebb_parse_size(memory.encode(), ctypes.byref(out)))
        return out.value
    try:
        return operator.index(memory)
    except TypeError:
        raise TypeError(f"memory must be bytes (an int or a size text) or a fraction, got "
                        f"{type(memory).__name__}") from None


def _copy_rate(device, nbytes, repeat=3):
    """Bytes a second of a copy of nbytes from device to host memory and
    back, the better of `repeat` round trips."""
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    t = torch.empty(max(1, nbytes), dtype=torch.uint8, device=device)
    best = None
    for _ in range(max(1, repeat)):
        sync()
        t0 = time.perf_counter()
        back = t.to("cpu", copy=True).to(device, copy=True)
        sync()
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    del back
    return 2 * max(1, nbytes) / max(best, 1e-9)


def _offload_rate(offload, device, sizes):
    """offload= as bytes a second each way, or None for no offload."""
    if offload is None or offload is False:
        return None
    if device.type not in _OFFLOAD_DEVICES:
        raise ValueError(f"offload moves states from a GPU to host memory; x is on {device}, "
                         f"whose states are in host memory already")
    if offload is True:
        return _copy_rate(device, max(sizes))
    if isinstance(offload, bool) or not isinstance(offload, (int, float)) or not offload > 0:
        raise ValueError(f"offload is True (the copy rate measured now) or bytes a second "
                         f"each way > 0, got {offload!r}")
    return float(offload)


def sequential(blocks, x, memory, *, profile=None, preserve_rng_state=True, memory_levels=0,
               report=None, tapes=True, offload=False):
    """y = blocks[n-1](... blocks[1](blocks[0](x))), differentiable, keeping at
    most `memory` of block inputs (x included) for the backward.

    blocks     a list of modules or callables (1 .. 100,000 of them), each taking
               the state the block before returned (x for the first): a
               tensor, or a tuple or list of tensors, and returning the
               next; a callable that is not a module has no parameters here
    x          the input: a tensor, or a tuple or list of tensors
    memory     bytes (an int or a size text such as "64 MiB"), or a float in
               (0, 1]: that fraction of all the blocks' inputs together (at
               least x's size: x is kept whatever the budget)
    profile    ebb.torch.profile_blocks(blocks, x)'s result, or a dict of the
               same lists (forward_s, reverse_s, state_bytes, and for tapes
               backward_s and tape_bytes) from elsewhere; None: measured now
               (each block once forward and backward)
    preserve_rng_state  every later run of block i starts from the generators'
               states its first run saw (torch.utils.checkpoint's semantics)
    memory_levels  the most units the budget is counted in (0: 256)
    tapes      where the profile has backward_s and tape_bytes, a block may keep
               its graph from a forward run until its reverse step (its tape,
               counted in `memory` as profiled), sparing that step's rerun;
               False: every reverse step reruns its block
               (docs/heterogeneous.md#tapes)
    offload    a CUDA x: states may also go to host memory, as many as the
               schedule stores there, at the copy rate each way (True: the
               rate of a round trip of the largest state measured now; or
               bytes a second); `memory` is then the device's budget, and
               the schedule chooses which states to offload, keep or
               recompute (stacks of up to 32 blocks; longer ones keep to
               the device). The copies are synchronous.
    report     a dict to fill: "plan" (ebb.ChainPlan), "profile", and after
               the backward "forward_runs" (block runs without grad, the
               first sweep included), "tape_runs" (runs keeping their graph),
               "peak_kept_bytes" (the most bytes of block inputs and tapes,
               as profiled, kept at once on the device), and with offload
               "peak_offloaded_bytes" (the most in host memory at once) and
               "moved_bytes" (copied either way)
    """
    blocks = list(blocks)
    if not blocks:
        raise ValueError("blocks must hold at least one block")
    if len(blocks) > _chain.MAX_STEPS:
        raise ValueError(f"ebb.torch.sequential takes 1 .. {_chain.MAX_STEPS} blocks, got "
                         f"{len(blocks)}: group consecutive blocks into nn.Sequential "
                         f"stages")
    if not isinstance(x, torch.Tensor) and not (
            isinstance(x, (tuple, list)) and x and
            all(isinstance(t, torch.Tensor) for t in x)):
        raise TypeError(f"x must be a tensor or a tuple of tensors, got "
                        f"{type(x).__name__}")
    seen, params = set(), []
    for b in blocks:
        for p in _params_of(b):
            if id(p) not in seen:
                seen.add(id(p))
                params.append(p)
    if not torch.is_grad_enabled() or not (any(t.requires_grad for t in _tensors(x)) or params):
        # nothing to differentiate: no profile, no plan, nothing kept
        with torch.no_grad():
            for b in blocks:
                x = b(x)
        return x
    if profile is None:
        profile = profile_blocks(blocks, x)
    fwd, rev, sizes = profile["forward_s"], profile["reverse_s"], profile["state_bytes"]
    if not len(fwd) == len(rev) == len(sizes) == len(blocks):
        raise ValueError(f"the profile has {len(fwd)} forward, {len(rev)} reverse and "
                         f"{len(sizes)} size entries for {len(blocks)} blocks")
    tape_sizes = bwd = None
    if tapes and "tape_bytes" in profile and "backward_s" in profile:
        tape_sizes, bwd = list(profile["tape_bytes"]), list(profile["backward_s"])
        if not len(tape_sizes) == len(bwd) == len(blocks):
            raise ValueError(f"the profile has {len(bwd)} backward and {len(tape_sizes)} tape "
                             f"entries for {len(blocks)} blocks")
    xs = _tensors(x)
    rate = _offload_rate(offload, xs[0].device, sizes)
    tiers = {} if rate is None else {"tier": _FAST, "slow_tier": _SLOW,
                                     "write_cost_per_byte": 1 / rate,
                                     "read_cost_per_byte": 1 / rate}
    plan = _chain.chain_plan(fwd, rev, sizes, _budget(memory, sizes),
                             memory_levels=memory_levels, tape_bytes=tape_sizes,
                             backward_cost=bwd, **tiers)
    runner = _Runner(blocks, plan, preserve_rng_state, xs[0].device, tape_sizes,
                     _SLOW if rate is not None else None)
    runner.all_params = params
    if report is not None:
        report["plan"] = plan
        report["profile"] = profile
        runner.report = report
    # x's form without its tensors: None for one tensor, else an empty tuple or list
    form = None if isinstance(x, torch.Tensor) else [] if isinstance(x, list) else ()
    return _Sequential.apply(runner, form, len(xs), *xs, *params)
