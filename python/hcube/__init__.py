"""hcube from Python: the emulated hypercube's plans on NumPy arrays.

    import numpy as np, hcube
    a = np.arange(64, dtype=np.uint32).reshape(8, 8)   # 2^n nodes x 2^m words
    assert (hcube.aapc(a) == a.T).all()                   # the AAPC is the transpose
    m = hcube.Machine(3, 3); m.load(a); m.permute("bit-reversal"); m.counters

Every error is the library's one-line message: hcube.Error (a ValueError) for
bad values, TypeError for a wrong dtype. docs/python.md lists the API.
"""
import json as _json

import numpy as _np

from . import _hcube
from ._hcube import Error

__version__ = _hcube.__version__
__all__ = ["Machine", "Error", "aapc", "permute", "fft", "redistribute", "schedule", "__version__"]


def _log2(v, what):
    v = int(v)
    if v < 1 or v & (v - 1):
        raise ValueError(f"{what} = {v} is not a power of two")
    return v.bit_length() - 1


class Machine:
    """2^n nodes of 2^m words of one dtype, on the CPU or a GPU ("auto")."""

    def __init__(self, n, m, dtype=_np.uint32, backend="auto"):
        self._m = _hcube.Machine(int(n), int(m), _np.dtype(dtype).name, str(backend))

    @property
    def n(self):
        return self._m.n

    @property
    def m(self):
        return self._m.m

    @property
    def dtype(self):
        return _np.dtype(self._m.dtype)

    @property
    def backend(self):
        return self._m.backend

    def load(self, a):
        """Copies a (shape (2^n, 2^m) or flat, C-contiguous, the machine's dtype) in."""
        self._m.load(a)

    def read(self):
        """A new array of shape (2^n, 2^m): word i of node j at [j, i]."""
        return self._m.read()

    def aapc(self, algorithm=4, permutation="transpose", d=None):
        """One AAPC (Johnsson & Ho): algorithm 1-4, "edelman", "sex" or "dex"."""
        self._m.aapc(str(algorithm), str(permutation), -1 if d is None else int(d))

    def permute(self, perm, algorithm="auto", fused=False, ports="all"):
        """A stable dimension permutation: perm as hcube permute --perm takes it
        (a list of bit destinations, "transpose", "bit-reversal", "shuffle:k", ...)."""
        if not isinstance(perm, str):
            perm = ",".join(str(int(p)) for p in perm)
        self._m.permute(perm, str(algorithm), bool(fused), str(ports))

    @property
    def counters(self):
        """What the machine counted, as hcube's --json "counters"."""
        return _json.loads(self._m.counters_json())


def _machine_for(a, n):
    a = _np.asarray(a)
    if a.ndim == 2:
        return Machine(_log2(a.shape[0], "rows"), _log2(a.shape[1], "columns"), a.dtype), a.shape
    if a.ndim == 1:
        if n is None:
            raise ValueError("a flat array needs n=: its processor dimensions")
        q = _log2(a.shape[0], "length")
        return Machine(int(n), q - int(n), a.dtype), a.shape
    raise ValueError(f"the array has {a.ndim} dimensions: allowed 2 (2^n x 2^m) or 1 (with n=)")


def permute(a, perm, algorithm="auto", fused=False, n=None, ports="all"):
    """A new array: a's words with their address bits permuted (source bit i to perm[i])."""
    mach, shape = _machine_for(a, n)
    mach.load(a)
    mach.permute(perm, algorithm, fused, ports)
    return mach.read().reshape(shape)


def aapc(a, algorithm=4, permutation="transpose"):
    """A new array: the AAPC of a (2^n x 2^m, d = n): the transpose (j|i) -> (i|j)."""
    mach, shape = _machine_for(a, None)
    mach.load(a)
    mach.aapc(algorithm, permutation)
    return mach.read().reshape(shape)


def fft(x, nodes_log2, order="natural", inverse=False, backend="auto"):
    """The DFT of 2^q complex points (natural order in and out) on 2^nodes_log2 nodes."""
    return _hcube.fft(x, int(nodes_log2), str(order), bool(inverse), str(backend))


def redistribute(a, P, Q, K, x, schedule="circulant", reverse=False, backend="auto"):
    """cyclic(x) on P to cyclic(Kx) on Q (Park, Prasanna & Raghavendra): the
    destinations' local memories, shape (Q, D) as hcube redistribute -o writes."""
    return _hcube.redistribute(a, int(P), int(Q), int(K), int(x), str(schedule), bool(reverse), str(backend))


def schedule(algorithm, d, m=None, lines="diagonal"):
    """The hcube-schedule/1 document of an AAPC schedule, as a dict."""
    return _json.loads(_hcube.schedule_json(str(algorithm), int(d), -1 if m is None else int(m), str(lines)))
