"""The runtime (include/ebb/runtime.h): ebb drives Python forward and
reverse steps.

    def forward(i, x_in, x_out):   # memoryviews of ebb's buffers: x_out = F_i(x_in)
        ...
    def reverse(i, x):             # x holds x_i
        ...
    with ebb.Run(state_size=nbytes, steps=n, forward=forward, reverse=reverse,
                 strategy="revolve", slots=16) as run:
        xn = run.forward(x0)       # x_n, valid until reverse()
        run.reverse()              # reverse(n-1) .. reverse(0)
        print(run.stats())

A callback must not keep the buffers it is handed past its return (they are
ebb's). An exception raised in a callback stops the run: ebb releases every
slot, thread and file, and the original exception is raised by the call that
ran the callback, with ebb's message ("forward step 17 failed: ...") added
as a note.
"""

import ctypes
import os
import weakref
from dataclasses import dataclass, field

from . import _capi
from .config import as_config
from .errors import EbbError, status

#: returned by a forward callback of a run with steps=0: the state just
#: written is x_n (EBB_STEP_LAST)
LAST = 0x4C415354

#: ebb_element (include/ebb/codec.h)
ELEMENTS = {"float32": 1, "float64": 2}


@dataclass
class RunInfo:
    """What the run resolved (ebb_run_info)."""

    strategy: str
    fast_tier: str
    slow_tier: str
    slots: dict
    buffers: dict
    bytes: dict
    steps: int
    audit: str
    inplace: bool
    warnings: str
    reason: str          # why this strategy ("auto: ...")
    staging: int = 0     # of buffers["host"]: those for the disk's transfers
    error_samples: int = 0       # exact copies the error estimate keeps (0: off)
    error_sample_bytes: int = 0  # their host memory


@dataclass
class RunStats:
    """ebb_run_stats: counts, bytes per tier and times in seconds."""

    steps: int = 0
    forward_steps: int = 0
    recomputed_steps: int = 0
    reverse_steps: int = 0
    stores: dict = field(default_factory=dict)
    restores: dict = field(default_factory=dict)
    copies: int = 0
    prefetches: int = 0
    cache_hits: int = 0
    bytes_written: dict = field(default_factory=dict)
    bytes_read: dict = field(default_factory=dict)
    peak_slots: dict = field(default_factory=dict)
    stall_s: dict = field(default_factory=dict)
    stall_total_s: float = 0.0
    forward_callback_s: float = 0.0
    reverse_callback_s: float = 0.0
    copy_s: float = 0.0
    forward_sweep_s: float = 0.0
    reverse_sweep_s: float = 0.0
    wall_s: float = 0.0
    bytes_before_compression: int = 0
    bytes_after_compression: int = 0
    stored_raw: int = 0
    codec_s: float = 0.0
    stored_raw_slower: int = 0
    codec_ratio: float = 0.0
    compress_bps: float = 0.0
    decompress_bps: float = 0.0
    # per tier ({"gpu": .., "host": .., "disk": ..}); the fields above are their sums
    bytes_before_compression_tier: dict = field(default_factory=dict)
    bytes_after_compression_tier: dict = field(default_factory=dict)
    codec_s_tier: dict = field(default_factory=dict)
    compressions: dict = field(default_factory=dict)
    decompressions: dict = field(default_factory=dict)
    host_compress_bps: float = 0.0
    host_decompress_bps: float = 0.0
    # the lossy error estimate (error_samples; docs/compression.md, "The error estimate")
    error_samples: int = 0
    error_samples_differ: int = 0
    state_rel_error_max: float = 0.0
    state_rel_error_rms: float = 0.0
    gradient_rel_error_estimate: float = 0.0


def slot_stride(tier, state_bytes, packed=False):
    """Bytes one slot of `tier` ("gpu", "host", "disk") takes for a state of
    `state_bytes` (packed: a compressed host pool's slot, state_bytes then
    the compressed size): the library's rule (ebb_slot_stride)."""
    return _capi.lib().ebb_slot_stride(_capi.tier_index(tier), int(state_bytes),
                                       1 if packed else 0)


def _tier_name(t):
    return _capi.TIERS[t] if 0 <= t < _capi.TIER_COUNT else None


class _Callbacks:
    """The C trampolines and the first exception a callback raised. Holds no
    reference to the Run, so a dropped Run is freed (and destroyed) at once."""

    def __init__(self, L, size, forward, reverse, raw, sizes=None):
        self.error = None
        self.views = {}

        def view(addr, i=None):
            if raw:
                return addr
            if sizes is not None:  # x_i's own bytes: a view made for each call
                return memoryview((ctypes.c_char * sizes[i]).from_address(addr)).cast("B")
            v = self.views.get(addr)
            if v is None:
                v = memoryview((ctypes.c_char * size).from_address(addr)).cast("B")
                self.views[addr] = v
            return v

        def fail(e):
            if self.error is None:
                self.error = e
            text = f"{type(e).__name__}: {e}".encode(errors="replace")[:700]
            return L.ebb_callback_fail_message(text)

        def fwd(_user, i, inp, out):
            try:
                return LAST if forward(i, view(inp, i), view(out, i + 1)) == LAST else 0
            except BaseException as e:  # noqa: B902 - even KeyboardInterrupt must stop ebb cleanly
                return fail(e)

        def rev(_user, i, state):
            try:
                reverse(i, view(state, i))
                return 0
            except BaseException as e:  # noqa: B902
                return fail(e)

        self.forward = _capi.FORWARD_FN(fwd)
        self.reverse = _capi.REVERSE_FN(rev)


def _destroy(L, handle, _callbacks):
    L.ebb_run_destroy(handle)


class Run:
    """An ebb_run. Arguments left at None come from the configuration.

    state_size   bytes of one state
    steps        n, or 0: the forward callback returns ebb.LAST at x_n
    forward      forward(i, x_in, x_out): write x_{i+1} into x_out
    reverse      reverse(i, x): the adjoint of step i, x holds x_i
    config       ebb.Config, a TOML path or a dict (None: the embedded default)
    strategy     "auto", "store-all", "periodic", "revolve", "online",
                 "multistage", "disk-revolve", "h-revolve", "async"
    slots, disk_slots   C and D (override the budgets)
    audit        "off", "replay", "hash"
    state_tier   "host" or "gpu" (then buffers="address"; device, stream:
                 the CUDA device and the cudaStream_t as an int)
    buffers      "memoryview" (default) or "address": callbacks get ints
    trace        a file for the run's timeline (Chrome trace-event JSON)
    forward_seconds, reverse_seconds   strategy "auto": one step's times, if
                 known; the planner then predicts every strategy; "h-revolve":
                 its disk write, read and reverse costs in forward steps
    element      what a state is an array of, for compression: "float32",
                 "float64" or None (tier.disk.element); shape: its 1 to 4
                 extents, fastest varying first (docs/compression.md)
    error_samples  the lossy error estimate: exact copies of this many states
                 kept in the first sweep and compared with those the reverse
                 sweep hands out (stats(): gradient_rel_error_estimate,
                 state_rel_error_max, ...); 0: off; None: run.error_samples
    forward_costs, reverse_costs   steps of different costs: one number >= 0
                 per step each (seconds, iterations), both or neither;
                 "revolve" (or "auto") then runs the chain program's schedule
                 of least total cost for them, "async" reverses each interval
                 between its stored states over them (docs/heterogeneous.md)
    measure_costs  True: strategy "online" or "async" times the first sweep's
                 steps and reverses each interval between its checkpoints by
                 the chain program over those times (n known or not; a GPU
                 state's steps timed on the device)
    state_sizes  states of different sizes: n + 1 byte counts, x_0 .. x_n,
                 each 1 .. state_size (the largest); callbacks then get views
                 of x_i's own bytes, x0 has state_sizes[0] bytes, and
                 "revolve" (or "auto") runs the chain program's schedule
                 within the host budget in bytes (docs/heterogeneous.md)
    """

    def __init__(self, state_size, steps, forward, reverse, *, config=None, strategy=None,
                 slots=None, disk_slots=None, audit=None, fast_tier=None, slow_tier=None,
                 period=0, io_ratio=0.0, staging=0, state_tier="host", device=-1,
                 stream=None, buffers="memoryview", trace=None, forward_seconds=0.0,
                 reverse_seconds=0.0, element=None, shape=None, error_samples=None,
                 forward_costs=None, reverse_costs=None, measure_costs=False,
                 state_sizes=None):
        L = _capi.lib()
        if buffers not in ("memoryview", "address"):
            raise ValueError(f"buffers is 'memoryview' or 'address', got {buffers!r}")
        tier = _capi.tier_index(state_tier, "state_tier")
        if tier == 0 and buffers != "address":
            raise ValueError("a gpu state's buffers are device memory: use buffers='address'")
        self.state_size = int(state_size)
        self._raw = buffers == "address"
        self._config = as_config(config)
        self._sizes = None
        if state_sizes is not None:
            sizes = [int(b) for b in state_sizes]
            if len(sizes) != int(steps) + 1:
                raise ValueError(f"state_sizes has {len(sizes)} entries for {int(steps)} steps "
                                 f"(x_0 .. x_n: {int(steps) + 1})")
            self._sizes = (ctypes.c_size_t * len(sizes))(*sizes)
        self._cb = _Callbacks(L, self.state_size, forward, reverse, buffers == "address",
                              None if state_sizes is None else sizes)
        o = _capi.RunOptions()
        L.ebb_run_options_init(ctypes.byref(o))
        o.state_size = self.state_size
        o.state_tier = tier
        o.device = int(device)
        o.stream = stream
        o.forward = ctypes.cast(self._cb.forward, ctypes.c_void_p)
        o.reverse = ctypes.cast(self._cb.reverse, ctypes.c_void_p)
        o.steps = int(steps)
        o.config = self._config._ptr if self._config is not None else None
        if strategy is not None:
            s = ctypes.c_int()
            _capi.check(L.ebb_config_strategy_from_name(strategy.encode(), ctypes.byref(s)))
            o.strategy = s.value
        if fast_tier is not None:
            o.fast_tier = _capi.tier_index(fast_tier, "fast_tier")
        if slow_tier is not None:
            o.slow_tier = _capi.tier_index(slow_tier, "slow_tier")
        o.slots = int(slots or 0)
        o.slow_slots = int(disk_slots or 0)
        o.period = int(period)
        o.io_ratio = float(io_ratio)
        if audit is not None:
            a = ctypes.c_int()
            _capi.check(L.ebb_audit_from_name(audit.encode(), ctypes.byref(a)))
            o.audit = a.value
        o.staging = int(staging)
        self._trace = os.fsencode(trace) if trace is not None else None
        o.trace = self._trace
        o.forward_seconds = float(forward_seconds)
        o.reverse_seconds = float(reverse_seconds)
        if element is not None:
            if element not in ELEMENTS:
                raise ValueError(f"element is one of {', '.join(ELEMENTS)} or None, got "
                                 f"{element!r}")
            o.element = ELEMENTS[element]
        if shape is not None:
            shape = [int(e) for e in shape]
            if not 1 <= len(shape) <= 4:
                raise ValueError(f"shape has 1 to 4 extents, got {len(shape)}")
            o.dims = len(shape)
            for k, e in enumerate(shape):
                o.shape[k] = e
        if error_samples is not None:
            o.error_samples = int(error_samples)
        self._costs = []
        for name, costs in (("forward_costs", forward_costs), ("reverse_costs", reverse_costs)):
            if costs is not None:
                costs = [float(c) for c in costs]
                if len(costs) != o.steps:
                    raise ValueError(f"{name} has {len(costs)} entries for {o.steps} steps")
                arr = (ctypes.c_double * max(len(costs), 1))(*costs)
                self._costs.append(arr)
                setattr(o, name, ctypes.cast(arr, ctypes.c_void_p))
        o.measure_costs = 1 if measure_costs else 0
        if self._sizes is not None:
            o.state_sizes = ctypes.cast(self._sizes, ctypes.c_void_p)
        self._options = o
        h = ctypes.c_void_p()
        _capi.check(L.ebb_run_create(ctypes.byref(o), ctypes.byref(h)))
        self._handle = h
        self._finalizer = weakref.finalize(self, _destroy, L, h, self._cb)
        self._x0 = None

    # -- lifetime ---------------------------------------------------------

    @property
    def closed(self):
        return not self._finalizer.alive

    def close(self):
        """Destroys the run: waits for its transfers, frees every slot and file.
        Idempotent; also done when the Run is garbage-collected."""
        self._finalizer()
        self._cb.views.clear()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _live(self):
        if self.closed:
            raise EbbError(status.STATE, "EBB_ERR_STATE",
                           "this ebb run is closed (destroyed after it failed or was closed); "
                           "create a new one")
        return self._handle

    def _call(self, fn, *args):
        """Calls fn(handle, *args); on failure closes the run and raises the
        callback's exception (with ebb's message as a note) or an EbbError."""
        st = fn(self._live(), *args)
        if st == status.OK:
            return
        err = _capi.error(st)
        exc, self._cb.error = self._cb.error, None
        self.close()
        if exc is not None:
            if hasattr(exc, "add_note"):
                exc.add_note(f"ebb: {err.message}")
            raise exc
        raise err

    # -- sweeps -------------------------------------------------------------

    def _pointer(self, x0):
        if isinstance(x0, int):
            return x0
        mv = memoryview(x0)
        want = self.state_size if self._sizes is None else self._sizes[0]
        if mv.nbytes != want:
            raise ValueError(f"x0 has {mv.nbytes} bytes; the state has {want}")
        if mv.readonly or not mv.c_contiguous:
            mv = memoryview(bytearray(mv.tobytes()))
        self._x0 = (ctypes.c_char * want).from_buffer(mv)
        return ctypes.addressof(self._x0)

    def _xn(self, p):
        if self._raw:
            return p.value
        size = self.state_size if self._sizes is None else self._sizes[self._options.steps]
        return memoryview((ctypes.c_char * size).from_address(p.value)).cast("B")

    def forward(self, x0):
        """The whole forward sweep from x0 (bytes-like of state_size bytes, or
        an address). Returns x_n: a memoryview of ebb's buffer (an int address
        for a gpu state), valid until reverse()."""
        p = ctypes.c_void_p()
        self._call(_capi.lib().ebb_run_forward, self._pointer(x0), ctypes.byref(p))
        self._x0 = None
        return self._xn(p)

    def begin(self, x0):
        """Starts the forward sweep from x0 (copied)."""
        self._call(_capi.lib().ebb_run_begin, self._pointer(x0))
        self._x0 = None

    def advance(self, max_steps=1):
        """Runs up to max_steps more steps; returns how many ran."""
        done = ctypes.c_int64()
        self._call(_capi.lib().ebb_run_advance, int(max_steps), ctypes.byref(done))
        return done.value

    def finish_forward(self):
        """Ends the forward sweep; returns x_n as forward() does."""
        p = ctypes.c_void_p()
        self._call(_capi.lib().ebb_run_finish_forward, ctypes.byref(p))
        return self._xn(p)

    def reverse(self):
        """The reverse sweep: reverse(n-1) .. reverse(0)."""
        self._call(_capi.lib().ebb_run_reverse)

    # -- what it did ----------------------------------------------------------

    def step_times(self):
        """(forward_s, reverse_s): each step's measured time, its forward
        callback's in the first sweep (pushed: from the previous push to its
        own) and its reverse step's (0 where not run yet), to give a later
        run of the same steps as its
        forward_costs and reverse_costs. Raises EbbError UNSUPPORTED where
        the run keeps none (n unknown or more than ebb.chain.MAX_STEPS steps
        without measure_costs); with n unknown the times are there once the
        forward sweep ended."""
        n = self._options.steps or self.info().steps
        f = (ctypes.c_double * max(n, 1))()
        r = (ctypes.c_double * max(n, 1))()
        _capi.check(_capi.lib().ebb_run_step_times(self._live(), f, r, n))
        return list(f[:n]), list(r[:n])

    def info(self):
        i = _capi.out(_capi.RunInfo)
        _capi.check(_capi.lib().ebb_run_info_get(self._live(), ctypes.byref(i)))
        _capi.filled(i)
        return RunInfo(
            strategy=i.strategy_name.decode(), fast_tier=_tier_name(i.fast_tier),
            slow_tier=_tier_name(i.slow_tier), slots=_capi.per_tier(i.slots),
            buffers=_capi.per_tier(i.buffers), bytes=_capi.per_tier(i.bytes), steps=i.steps,
            audit=_capi.lib().ebb_audit_name(i.audit).decode(), inplace=bool(i.inplace),
            warnings=(i.warnings or b"").decode(), reason=(i.reason or b"").decode(),
            staging=i.staging, error_samples=i.error_samples,
            error_sample_bytes=i.error_sample_bytes)

    def stats(self):
        s = _capi.out(_capi.RunStats)
        _capi.check(_capi.lib().ebb_run_stats_get(self._live(), ctypes.byref(s)))
        _capi.filled(s)
        out = RunStats()
        for name, _ in _capi.RunStats._fields_:
            v = getattr(s, name)
            setattr(out, name, _capi.per_tier(v) if isinstance(v, ctypes.Array) else v)
        return out
