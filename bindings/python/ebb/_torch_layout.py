"""How a (tuple) PyTorch state lies in one ebb state buffer.

Each tensor of the state takes a 64-byte aligned range of the buffer, and an
optional extra range follows them (the CPU generator's state, for
ebb.torch.scan's preserve_rng_state). A buffer is turned into tensors that
alias it (no copy): torch.frombuffer over the host memory,
__cuda_array_interface__ over device memory. Those views are the binding's
own: a step is handed copies (`copies`), never a view, since a view outlives
neither the step's turn on the buffer nor the run.
"""

import ctypes
import hashlib

import torch

_ALIGN = 64


def _differentiable(t):
    return t.is_floating_point() or t.is_complex()


class _DeviceMemory:
    """Device memory at an address, for torch.as_tensor (no copy, no sync)."""

    def __init__(self, addr, size):
        self.__cuda_array_interface__ = {
            "shape": (size,), "typestr": "|u1", "data": (addr, False), "version": 2}


class Layout:
    """The shapes, dtypes and byte offsets of a state's tensors."""

    def __init__(self, tensors, extra_bytes=0):
        self.shapes = [tuple(t.shape) for t in tensors]
        self.dtypes = [t.dtype for t in tensors]
        self.nbytes = [t.numel() * t.element_size() for t in tensors]
        self.differentiable = [_differentiable(t) for t in tensors]
        self.device = tensors[0].device
        for j, t in enumerate(tensors):
            if t.device != self.device:
                raise ValueError(f"every tensor of h0 must be on one device: h0[0] is on "
                                 f"{self.device}, h0[{j}] on {t.device}")
        self.offsets = []
        off = 0
        for n in self.nbytes:
            self.offsets.append(off)
            off += (n + _ALIGN - 1) // _ALIGN * _ALIGN
        self.extra_offset, self.extra_bytes = off, extra_bytes
        off += (extra_bytes + _ALIGN - 1) // _ALIGN * _ALIGN
        self.size = max(off, _ALIGN)
        self._cache = {}

    def views(self, addr):
        """The state's tensors aliasing the buffer at `addr` (cached: ebb's
        buffers stay where they are for the run's life)."""
        return self._wrapped(addr)[0]

    def extra(self, addr):
        """The extra range of the buffer at `addr`, as a uint8 tensor aliasing it."""
        return self._wrapped(addr)[1]

    def copies(self, addr):
        """New tensors holding the state at `addr` (what a step is handed)."""
        return tuple(v.clone() for v in self._wrapped(addr)[0])

    def _wrapped(self, addr):
        v = self._cache.get(addr)
        if v is None:
            v = self._wrap(addr)
            self._cache[addr] = v
        return v

    def _wrap(self, addr):
        if self.device.type == "cuda":
            base = torch.as_tensor(_DeviceMemory(addr, self.size), device=self.device)
        else:
            base = torch.frombuffer((ctypes.c_char * self.size).from_address(addr),
                                    dtype=torch.uint8)
        views = tuple(base[o:o + n].view(d).view(s) for o, n, d, s in
                      zip(self.offsets, self.nbytes, self.dtypes, self.shapes))
        return views, base[self.extra_offset:self.extra_offset + self.extra_bytes]

    def forget(self):
        """Drops the cached views (the run that owned the buffers is gone)."""
        self._cache.clear()

    def pack(self, tensors, extra=None):
        """A new uint8 tensor holding `tensors` (and `extra`, bytes in a uint8
        tensor) laid out as a state."""
        buf = torch.zeros(self.size, dtype=torch.uint8, device=self.device)
        for dst, src in zip(self.views(buf.data_ptr()), tensors):
            dst.copy_(src.detach())
        if extra is not None:
            self.extra(buf.data_ptr()).copy_(extra)
        self._cache.pop(buf.data_ptr(), None)
        return buf

    def check(self, tensors, t, what):
        """Raises unless `tensors` have the state's shapes, dtypes and device."""
        if len(tensors) != len(self.shapes):
            raise ValueError(f"step(h, {t}) returned {what} with {len(tensors)} tensors; "
                             f"h0 has {len(self.shapes)}")
        for j, x in enumerate(tensors):
            if not isinstance(x, torch.Tensor):
                raise TypeError(f"step(h, {t}) returned {what}[{j}] of type "
                                f"{type(x).__name__}; expected a tensor")
            if (tuple(x.shape), x.dtype, x.device) != (self.shapes[j], self.dtypes[j], self.device):
                raise ValueError(
                    f"step(h, {t}) returned {what}[{j}] of shape {tuple(x.shape)}, {x.dtype} on "
                    f"{x.device}; the state keeps shape, dtype and device: expected "
                    f"{self.shapes[j]}, {self.dtypes[j]} on {self.device} (as h0[{j}])")


def digest(tensors):
    """8-byte BLAKE2b of the tensors' bytes, None entries skipped (the
    binding's own determinism check of the recomputation with grad, in audit
    mode "hash")."""
    h = hashlib.blake2b(digest_size=8)
    for t in tensors:
        if t is None:
            h.update(b"-")
            continue
        t = t.detach()
        if t.device.type != "cpu":
            t = t.cpu()
        t = t.contiguous()
        n = t.numel() * t.element_size()
        if n:
            h.update((ctypes.c_char * n).from_address(t.data_ptr()))
    return h.digest()
