"""ctypes declarations of ebb's C API (include/ebb/*.h) and the error check.

The structures mirror the C headers field by field. `lib()` loads the
library once, declares every function used and compares each mirrored
struct's size and every field's name, offset and size with the library's own
(ebb_layout_get, include/ebb/layout.h): a library whose structs differ in any
way (grown, shrunk, reordered, retyped) is refused here, naming the struct
and the field, before any call could write past or misread one.
"""

import ctypes
import threading
from ctypes import (POINTER, Structure, c_char_p, c_double, c_int, c_int16, c_int32,
                    c_int64, c_size_t, c_uint64, c_void_p)

from . import _loader
from .errors import EbbError, status

TIER_COUNT = 3
TIERS = ("gpu", "host", "disk")


class RunOptions(Structure):
    _fields_ = [
        ("state_size", c_size_t),
        ("state_tier", c_int),
        ("device", c_int),
        ("stream", c_void_p),
        ("forward", c_void_p),
        ("forward_inplace", c_void_p),
        ("reverse", c_void_p),
        ("user", c_void_p),
        ("steps", c_int64),
        ("config", c_void_p),
        ("strategy", c_int),
        ("fast_tier", c_int),
        ("slow_tier", c_int),
        ("slots", c_int32),
        ("slow_slots", c_int32),
        ("period", c_int64),
        ("io_ratio", c_double),
        ("audit", c_int),
        ("staging", c_int32),
        ("trace", c_char_p),
        ("forward_seconds", c_double),
        ("reverse_seconds", c_double),
        ("element", c_int),
        ("dims", c_int32),
        ("shape", c_uint64 * 4),
        ("error_samples", c_int32),
        ("forward_costs", c_void_p),
        ("reverse_costs", c_void_p),
        ("measure_costs", c_int),
        ("state_sizes", c_void_p),
    ]


class RunInfo(Structure):
    _fields_ = [
        ("strategy", c_int),
        ("strategy_name", c_char_p),
        ("fast_tier", c_int),
        ("slow_tier", c_int),
        ("slots", c_int32 * TIER_COUNT),
        ("buffers", c_int32 * TIER_COUNT),
        ("staging", c_int32),
        ("bytes", c_uint64 * TIER_COUNT),
        ("steps", c_int64),
        ("audit", c_int),
        ("inplace", c_int),
        ("warnings", c_char_p),
        ("reason", c_char_p),
        ("error_samples", c_int32),
        ("error_sample_bytes", c_uint64),
    ]


class RunStats(Structure):
    _fields_ = [
        ("steps", c_int64),
        ("forward_steps", c_int64),
        ("recomputed_steps", c_int64),
        ("reverse_steps", c_int64),
        ("stores", c_int64 * TIER_COUNT),
        ("restores", c_int64 * TIER_COUNT),
        ("copies", c_int64),
        ("prefetches", c_int64),
        ("cache_hits", c_int64),
        ("bytes_written", c_uint64 * TIER_COUNT),
        ("bytes_read", c_uint64 * TIER_COUNT),
        ("peak_slots", c_int32 * TIER_COUNT),
        ("stall_s", c_double * TIER_COUNT),
        ("stall_total_s", c_double),
        ("forward_callback_s", c_double),
        ("reverse_callback_s", c_double),
        ("copy_s", c_double),
        ("forward_sweep_s", c_double),
        ("reverse_sweep_s", c_double),
        ("wall_s", c_double),
        ("bytes_before_compression", c_uint64),
        ("bytes_after_compression", c_uint64),
        ("stored_raw", c_int64),
        ("codec_s", c_double),
        ("stored_raw_slower", c_int64),
        ("codec_ratio", c_double),
        ("compress_bps", c_double),
        ("decompress_bps", c_double),
        ("bytes_before_compression_tier", c_uint64 * TIER_COUNT),
        ("bytes_after_compression_tier", c_uint64 * TIER_COUNT),
        ("codec_s_tier", c_double * TIER_COUNT),
        ("compressions", c_int64 * TIER_COUNT),
        ("decompressions", c_int64 * TIER_COUNT),
        ("host_compress_bps", c_double),
        ("host_decompress_bps", c_double),
        ("error_samples", c_int64),
        ("error_samples_differ", c_int64),
        ("state_rel_error_max", c_double),
        ("state_rel_error_rms", c_double),
        ("gradient_rel_error_estimate", c_double),
    ]


class ScheduleOptions(Structure):
    _fields_ = [
        ("strategy", c_int),
        ("steps", c_int64),
        ("slots", c_int32),
        ("disk_slots", c_int32),
        ("period", c_int64),
        ("io_ratio", c_double),
        ("fast_tier", c_int),
        ("slow_tier", c_int),
        ("write_cost", c_double),
        ("read_cost", c_double),
        ("reverse_cost", c_double),
    ]


class ScheduleStats(Structure):
    _fields_ = [
        ("steps", c_int64),
        ("actions", c_int64),
        ("forward_steps", c_int64),
        ("reverse_steps", c_int64),
        ("stores", c_int64 * TIER_COUNT),
        ("restores", c_int64 * TIER_COUNT),
        ("transfers_out", c_int64 * TIER_COUNT),
        ("transfers_in", c_int64 * TIER_COUNT),
        ("peak_slots", c_int32 * TIER_COUNT),
        ("complete", c_int),
    ]


class Action(Structure):
    _fields_ = [
        ("kind", c_int32),
        ("tier", c_int16),
        ("tier_to", c_int16),
        ("slot", c_int32),
        ("slot_to", c_int32),
        ("step", c_int64),
        ("to", c_int64),
    ]


class Chain(Structure):
    _fields_ = [
        ("steps", c_int64),
        ("forward_cost", POINTER(c_double)),
        ("reverse_cost", POINTER(c_double)),
        ("state_bytes", POINTER(c_uint64)),
        ("tape_bytes", POINTER(c_uint64)),
        ("backward_cost", POINTER(c_double)),
    ]


class ChainOptions(Structure):
    _fields_ = [
        ("memory_bytes", c_uint64),
        ("tier", c_int),
        ("memory_levels", c_int32),
        ("slow_tier", c_int),
        ("write_cost_per_byte", c_double),
        ("read_cost_per_byte", c_double),
    ]


class ChainInfo(Structure):
    _fields_ = [
        ("cost", c_double),
        ("unit_bytes", c_uint64),
        ("units", c_int32),
    ]


# ebb_config is kept opaque: the binding reads and writes it through TOML
# (ebb_config_load_string, ebb_config_format) only, so keys added to it need
# no change here. CONFIG_BYTES is set at load to the library's sizeof(ebb_config).
CONFIG_BYTES = None

# The C structs mirrored above, checked exactly at load (_check_layout).
MIRRORED = {"ebb_run_options": "RunOptions", "ebb_run_info": "RunInfo",
            "ebb_run_stats": "RunStats", "ebb_schedule_options": "ScheduleOptions",
            "ebb_schedule_stats": "ScheduleStats", "ebb_action": "Action",
            "ebb_chain": "Chain", "ebb_chain_options": "ChainOptions",
            "ebb_chain_info": "ChainInfo"}


FORWARD_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_int64, c_void_p, c_void_p)
REVERSE_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_int64, c_void_p)
VISITOR_FN = ctypes.CFUNCTYPE(c_int, c_void_p, POINTER(Action), c_size_t)

# name: (restype, argtypes); restype c_int for every ebb_status
_PROTOTYPES = {
    "ebb_version": (c_char_p, []),
    "ebb_last_error": (c_char_p, []),
    "ebb_status_name": (c_char_p, [c_int]),
    "ebb_clear_error": (None, []),
    "ebb_callback_fail_message": (c_int, [c_char_p]),
    "ebb_layout_get": (c_int, [c_char_p, POINTER(c_size_t), POINTER(c_size_t), c_size_t,
                               POINTER(c_size_t), POINTER(c_size_t), POINTER(c_char_p)]),
    "ebb_tier_name": (c_char_p, [c_int]),
    "ebb_strategy_name": (c_char_p, [c_int]),
    "ebb_strategy_from_name": (c_int, [c_char_p, POINTER(c_int)]),
    "ebb_action_format": (c_int, [POINTER(Action), c_char_p, c_size_t]),
    "ebb_action_parse": (c_int, [c_char_p, POINTER(Action)]),
    "ebb_schedule_options_init": (None, [c_void_p]),
    "ebb_schedule_validate": (c_int, [POINTER(ScheduleOptions), POINTER(ScheduleStats)]),
    "ebb_schedule_replay": (c_int, [POINTER(ScheduleOptions), POINTER(ScheduleStats),
                                    VISITOR_FN, c_void_p]),
    "ebb_revolve_forward_count": (c_int, [c_int64, c_int32, POINTER(c_int64)]),
    "ebb_schedule_next_batch": (c_int, [c_void_p, POINTER(Action), c_size_t,
                                        POINTER(c_size_t)]),
    "ebb_schedule_destroy": (None, [c_void_p]),
    "ebb_schedule_tier_slots": (c_int, [c_void_p, POINTER(c_int32)]),
    "ebb_chain_options_init": (None, [POINTER(ChainOptions)]),
    "ebb_chain_schedule_create": (c_int, [POINTER(Chain), POINTER(ChainOptions),
                                          POINTER(c_void_p)]),
    "ebb_chain_schedule_info": (c_int, [c_void_p, POINTER(ChainInfo)]),
    "ebb_chain_least_peak_create": (c_int, [POINTER(Chain), c_int, POINTER(c_uint64),
                                            POINTER(c_void_p)]),
    "ebb_validator_create": (c_int, [c_int64, POINTER(c_int32), POINTER(c_void_p)]),
    "ebb_validator_destroy": (None, [c_void_p]),
    "ebb_validator_check": (c_int, [c_void_p, POINTER(Action), c_size_t]),
    "ebb_validator_finish": (c_int, [c_void_p]),
    "ebb_validator_stats": (c_int, [c_void_p, POINTER(ScheduleStats)]),
    "ebb_config_init_default": (c_int, [c_void_p]),
    "ebb_config_dispose": (None, [c_void_p]),
    "ebb_config_copy": (c_int, [c_void_p, c_void_p]),
    "ebb_config_load_file": (c_int, [c_char_p, c_void_p]),
    "ebb_config_load_string": (c_int, [c_char_p, c_char_p, c_void_p]),
    "ebb_config_check": (c_int, [c_void_p, c_size_t]),
    "ebb_config_budget": (c_int, [c_void_p, c_int, POINTER(c_uint64)]),
    "ebb_config_lossy_tier": (c_int, [c_void_p, POINTER(c_int)]),
    "ebb_slot_stride": (c_size_t, [c_int, c_size_t, c_int]),
    "ebb_config_format": (c_int, [c_void_p, c_char_p, c_size_t, POINTER(c_size_t)]),
    "ebb_config_strategy_from_name": (c_int, [c_char_p, POINTER(c_int)]),
    "ebb_config_strategy_name": (c_char_p, [c_int]),
    "ebb_audit_from_name": (c_int, [c_char_p, POINTER(c_int)]),
    "ebb_audit_name": (c_char_p, [c_int]),
    "ebb_parse_size": (c_int, [c_char_p, POINTER(c_uint64)]),
    "ebb_run_options_init": (None, [c_void_p]),
    "ebb_run_create": (c_int, [POINTER(RunOptions), POINTER(c_void_p)]),
    "ebb_run_destroy": (None, [c_void_p]),
    "ebb_run_forward": (c_int, [c_void_p, c_void_p, POINTER(c_void_p)]),
    "ebb_run_begin": (c_int, [c_void_p, c_void_p]),
    "ebb_run_advance": (c_int, [c_void_p, c_int64, POINTER(c_int64)]),
    "ebb_run_finish_forward": (c_int, [c_void_p, POINTER(c_void_p)]),
    "ebb_run_reverse": (c_int, [c_void_p]),
    "ebb_run_info_get": (c_int, [c_void_p, POINTER(RunInfo)]),
    "ebb_run_stats_get": (c_int, [c_void_p, POINTER(RunStats)]),
    "ebb_run_step_times": (c_int, [c_void_p, POINTER(c_double), POINTER(c_double), c_int64]),
}

_lock = threading.Lock()
_lib = None

_GUARD = 1024  # bytes after each struct a C function fills (out, filled): a second,
# cheap line of defence behind the exact layout check


def _library_layout(lib, struct_name):
    """(size, [(name, offset, size) per field]) of a struct as the library has it."""
    size, count = c_size_t(), c_size_t()
    check_with(lib, lib.ebb_layout_get(struct_name.encode(), ctypes.byref(size),
                                       ctypes.byref(count), 0, None, None, None))
    n = count.value
    offs, sizes, names = (c_size_t * n)(), (c_size_t * n)(), (c_char_p * n)()
    check_with(lib, lib.ebb_layout_get(struct_name.encode(), ctypes.byref(size),
                                       ctypes.byref(count), n, offs, sizes, names))
    return size.value, [(names[i].decode(), offs[i], sizes[i]) for i in range(n)]


def _mirror_layout(struct_type):
    return ctypes.sizeof(struct_type), [(name, getattr(struct_type, name).offset,
                                         getattr(struct_type, name).size)
                                        for name, *_ in struct_type._fields_]


def _layout_problems(struct_name, lib_layout, mirror_layout):
    """What differs between the library's layout of a struct and the mirror's."""
    (lsize, lfields), (msize, mfields) = lib_layout, mirror_layout
    problems = []
    if lsize != msize:
        problems.append(f"{struct_name} is {lsize} bytes in the library, {msize} in the binding")
    if len(lfields) != len(mfields):
        problems.append(f"{struct_name} has {len(lfields)} fields in the library, "
                        f"{len(mfields)} in the binding")

    def show(f):
        return f"'{f[0]}' at offset {f[1]} ({f[2]} bytes)" if f else "no field"

    for i in range(max(len(lfields), len(mfields))):
        lf = lfields[i] if i < len(lfields) else None
        mf = mfields[i] if i < len(mfields) else None
        if lf != mf:
            problems.append(f"{struct_name} field {i}: {show(lf)} in the library, "
                            f"{show(mf)} in the binding")
            break  # the first difference; the ones after it follow from it
    return problems


def _check_layout(lib):
    """Raises EbbError unless every mirrored struct has exactly the library's
    size and fields (names, offsets, sizes, in order); sets CONFIG_BYTES."""
    global CONFIG_BYTES
    if not hasattr(lib, "ebb_layout_get"):
        problems = ["the library has no ebb_layout_get (it is older than this binding)"]
    else:
        problems = []
        for struct_name, attr in MIRRORED.items():
            problems += _layout_problems(struct_name, _library_layout(lib, struct_name),
                                         _mirror_layout(globals()[attr]))
    if problems:
        version = lib.ebb_version().decode()
        raise EbbError(status.INTERNAL, "EBB_ERR_INTERNAL",
                       f"this Python binding does not match the ebb library it loaded "
                       f"({_loader.path()}, version {version}): " + "; ".join(problems) +
                       ". Use the binding from the same source tree as the library.")
    CONFIG_BYTES = _library_layout(lib, "ebb_config")[0]


def check_with(L, st):
    """check(), for the library being loaded (before lib() returns it)."""
    if st != status.OK:
        raise EbbError(st, L.ebb_status_name(st).decode(),
                       L.ebb_last_error().decode(errors="replace"))


def out(struct_type):
    """An instance of `struct_type` for a C function to fill, with guard
    bytes after it (see filled)."""
    size = ctypes.sizeof(struct_type)
    buf = (ctypes.c_ubyte * (size + _GUARD))(*([0xA5] * (size + _GUARD)))
    obj = struct_type.from_buffer(buf)
    obj._guard_buf = buf
    return obj


def filled(obj):
    """Raises if the C function wrote past the mirrored struct `obj` (from
    out()): the library's struct has grown; returns obj."""
    size = ctypes.sizeof(type(obj))
    if any(b != 0xA5 for b in obj._guard_buf[size:]):
        raise EbbError(status.INTERNAL, "EBB_ERR_INTERNAL",
                       f"this Python binding does not match the ebb library it loaded "
                       f"({_loader.path()}): {type(obj).__name__} is larger in the library. "
                       "Use the binding from the same source tree as the library.")
    return obj


def lib():
    """The library with every prototype declared (loaded on the first call)."""
    global _lib
    with _lock:
        if _lib is None:
            handle = _loader.load()
            for name, (restype, argtypes) in _PROTOTYPES.items():
                fn = getattr(handle, name, None)
                if fn is None:
                    continue  # an older library: _check_layout says so
                fn.restype = restype
                fn.argtypes = argtypes
            _check_layout(handle)
            _lib = handle
        return _lib


def error(st):
    """The EbbError for status `st`, with ebb's message on this thread."""
    L = lib()
    return EbbError(st, L.ebb_status_name(st).decode(), L.ebb_last_error().decode(errors="replace"))


def check(st):
    """Raises the EbbError for a failed ebb_status."""
    if st != status.OK:
        raise error(st)


def tier_index(name, what="tier"):
    """"gpu"/"host"/"disk" (or an int) to an ebb_tier."""
    if isinstance(name, int):
        return name
    try:
        return TIERS.index(name)
    except ValueError:
        raise ValueError(f"unknown {what} {name!r}; expected one of {', '.join(TIERS)}") from None


def per_tier(array):
    """A C array of TIER_COUNT values as {"gpu": .., "host": .., "disk": ..}."""
    return {t: array[i] for i, t in enumerate(TIERS)}
