"""ebb's configuration (include/ebb/config.h, docs/configuration.md).

    cfg = ebb.Config("ebb.toml")                       # a TOML file
    cfg = ebb.Config({"run": {"strategy": "revolve"},  # or a dict, nested ...
                      "tier.host.budget": "64 MiB"})   # ... or with dotted keys
    cfg.update({"tier": {"disk": {"path": "/mnt/nvme/ebb"}}})

Both forms start from the embedded default and are applied over it, as a
file is: a key not named keeps its value. A dict is turned into TOML text
and loaded by ebb, so its errors are ebb's ("<dict>:3: unknown key ...").
"""

import ctypes
import math
import os
import weakref

from . import _capi


def _flatten(d, prefix=()):
    """{"a": {"b": 1}, "c.d": 2} -> {("a", "b"): 1, ("c", "d"): 2}."""
    out = {}
    for k, v in d.items():
        if not isinstance(k, str):
            raise TypeError(f"configuration keys are strings, got {k!r}")
        path = prefix + tuple(k.split("."))
        if isinstance(v, dict):
            out.update(_flatten(v, path))
        else:
            out[path] = v
    return out


def _toml_string(s):
    escaped = []
    for ch in s:
        if ch == "\\":
            escaped.append("\\\\")
        elif ch == '"':
            escaped.append('\\"')
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            escaped.append(f"\\u{ord(ch):04x}")
        else:
            escaped.append(ch)
    return '"' + "".join(escaped) + '"'


def _toml_value(v, key):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"configuration key '{key}': {v} is not a finite number")
        return repr(v)
    if isinstance(v, (str, os.PathLike)):
        return _toml_string(os.fspath(v))
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x, key) for x in v) + "]"
    raise TypeError(f"configuration key '{key}': cannot write {type(v).__name__} {v!r} as TOML "
                    "(use a string, number, boolean or list)")


def dict_to_toml(d):
    """TOML text for a (nested or dotted) dict of configuration keys."""
    tables = {}
    for path, v in _flatten(d).items():
        if len(path) < 2:
            raise ValueError(f"configuration key '{'.'.join(path)}' is not in a table; "
                             "keys look like 'run.strategy' or 'tier.host.budget'")
        tables.setdefault(path[:-1], []).append((path[-1], v))
    lines = []
    for table, items in tables.items():
        lines.append("[" + ".".join(table) + "]")
        for k, v in items:
            lines.append(f"{k} = {_toml_value(v, '.'.join(table + (k,)))}")
    return "\n".join(lines) + "\n"


class Config:
    """An ebb_config. `source`: None (the embedded default), a path to a
    TOML file, or a dict; applied over the default."""

    def __init__(self, source=None):
        L = _capi.lib()
        # opaque: room for the library's ebb_config (checked when loaded)
        self._buf = ctypes.create_string_buffer(_capi.CONFIG_BYTES)
        _capi.check(L.ebb_config_init_default(self._buf))
        self._finalizer = weakref.finalize(self, L.ebb_config_dispose, self._buf)
        if source is not None:
            self.update(source)

    @property
    def _ptr(self):
        return ctypes.cast(self._buf, ctypes.c_void_p)

    def update(self, source):
        """Applies a TOML file (path), TOML text (`toml=` via load_string) or a
        dict over this configuration. On error (EbbError) it is unchanged."""
        if isinstance(source, dict):
            return self.load_string(dict_to_toml(source), name="<dict>")
        if isinstance(source, Config):
            return self.load_string(source.to_toml(), name="<Config>")
        if isinstance(source, (str, os.PathLike)):
            return self.load_file(source)
        raise TypeError("a configuration is a path, a dict or an ebb.Config, got "
                        f"{type(source).__name__}")

    def load_file(self, path):
        _capi.check(_capi.lib().ebb_config_load_file(os.fsencode(path), self._buf))
        return self

    def load_string(self, text, name=None):
        _capi.check(_capi.lib().ebb_config_load_string(
            text.encode(), name.encode() if name else None, self._buf))
        return self

    def to_toml(self):
        """The configuration as TOML text that loads back to the same values."""
        L = _capi.lib()
        n = ctypes.c_size_t()
        _capi.check(L.ebb_config_format(self._buf, None, 0, ctypes.byref(n)))
        out = ctypes.create_string_buffer(n.value + 1)
        _capi.check(L.ebb_config_format(self._buf, out, len(out), None))
        return out.value.decode()

    def as_dict(self):
        """Every key with its value, as nested dicts (Python 3.11's tomllib)."""
        import tomllib
        return tomllib.loads(self.to_toml())

    def check(self, state_bytes=0):
        """Raises EbbError unless this configuration can run states of
        `state_bytes` bytes here (0: skip the size checks)."""
        _capi.check(_capi.lib().ebb_config_check(self._buf, int(state_bytes)))

    def budget(self, tier):
        """The budget of a tier ("gpu", "host", "disk") in bytes, "auto" resolved."""
        out = ctypes.c_uint64()
        _capi.check(_capi.lib().ebb_config_budget(self._buf, _capi.tier_index(tier),
                                                 ctypes.byref(out)))
        return out.value

    def lossy_tier(self):
        """The first enabled tier ("host", "disk") whose compression is lossy
        (states stored there come back changed), or None: the library's rule."""
        out = ctypes.c_int()
        _capi.check(_capi.lib().ebb_config_lossy_tier(self._buf, ctypes.byref(out)))
        return _capi.TIERS[out.value] if out.value >= 0 else None

    def copy(self):
        c = Config()
        L = _capi.lib()
        L.ebb_config_dispose(c._buf)
        _capi.check(L.ebb_config_copy(self._buf, c._buf))
        return c

    def __repr__(self):
        return f"ebb.Config({self.as_dict()!r})"


def as_config(config):
    """None, a path, a dict or a Config -> a Config (None stays None)."""
    if config is None or isinstance(config, Config):
        return config
    return Config(config)
