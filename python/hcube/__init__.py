"""hcube: an emulator of a CM-2-style SIMD hypercube, on NumPy arrays.

The machine holds 2^n nodes of K = 2^m words; an array of shape (2^n, 2^m)
(or flat, 2^(n+m) words) holds word i of node j at [j, i]. Every call checks
its input as the ``hcube`` command line does and raises its one-line message
(ValueError; TypeError for a wrong dtype). docs/python.md describes the API.
"""
import html as _html
import json as _json
import os as _os
import shlex as _shlex

import numpy as _np

from . import _hcube

__version__ = _hcube.version()

__all__ = ["Machine", "permute", "aapc", "fft", "redistribute", "schedule", "animate", "Animation",
           "__version__"]


def _descr(dtype):
    return _np.dtype(dtype).str


# DLPack device types of GPU memory: CUDA and CUDA managed.
_DLPACK_CUDA = (2, 13)


def _dlpack_device(a):
    if isinstance(a, _np.ndarray) or not hasattr(a, "__dlpack__") or not hasattr(a, "__dlpack_device__"):
        return None
    return int(a.__dlpack_device__()[0])


def _is_device(a):
    if isinstance(a, _np.ndarray):
        return False
    # DLPack first, as the extension reads it: it says where the array lives and orders its producer's stream.
    where = _dlpack_device(a)
    return where in _DLPACK_CUDA if where is not None else hasattr(a, "__cuda_array_interface__")


def _array(a):
    # Lists and scalars become arrays here; NumPy arrays, device arrays and DLPack arrays (a PyTorch
    # or JAX array, on the host or a GPU) are passed as they are: the module reads them in place.
    if isinstance(a, _np.ndarray) or _is_device(a) or _dlpack_device(a) is not None:
        return a
    return _np.asarray(a)


# DLPack device types of host memory NumPy can view: CPU and CUDA pinned.
_DLPACK_HOST = (1, 3)


def _host(a):
    # fft and redistribute read a NumPy array: a host array behind DLPack becomes a view of its memory.
    return _np.from_dlpack(a) if _dlpack_device(a) in _DLPACK_HOST else _array(a)


def _copy(a):
    # NumPy and CuPy arrays copy with .copy(), PyTorch tensors with .clone().
    for name in ("copy", "clone"):
        if callable(getattr(a, name, None)):
            return getattr(a, name)()
    raise TypeError("%s: the result is a new array, and this array has neither copy() nor clone()"
                    % type(a).__name__)


def _run(plan, a):
    # Checked before the copy, so a bad array raises the same message whatever its size.
    plan.check(a)
    out = _copy(a)
    plan.execute(out)
    return out


def _perm_text(perm):
    return perm if isinstance(perm, str) else ",".join(str(int(p)) for p in perm)


def _backend_of(a, backend):
    # A device array runs on the CUDA backend unless the caller says otherwise.
    return "cuda" if backend == "auto" and _is_device(a) else backend


def _exchange(e):
    if isinstance(e, dict):
        return (e["dim"], e["addr"], e.get("peer_addr", e["addr"]))
    return e


class Machine:
    """2^n nodes of 2^m words of ``dtype``, on the CPU or CUDA backend.

    ``load`` and ``read`` copy the data in and out; the primitives and plans
    run on the machine's own storage, and ``counters`` says what they did
    (the keys of ``hcube --json``'s counters).
    """

    def __init__(self, n, m, dtype=_np.uint32, backend="auto"):
        self._m = _hcube.Machine(int(n), int(m), _descr(dtype), str(backend))

    n = property(lambda self: self._m.n)
    m = property(lambda self: self._m.m)
    dtype = property(lambda self: _np.dtype(self._m.dtype))
    backend = property(lambda self: self._m.backend, doc="the backend it runs on: cpu or cuda")

    @property
    def counters(self):
        """What the machine did since it was made (or reset_counters): routing_cycles, element_hops, ..."""
        return _json.loads(self._m.counters())

    def reset_counters(self):
        self._m.reset_counters()

    def load(self, a):
        """Loads an array of shape (2^n, 2^m) or (2^(n+m),) of the machine's dtype."""
        self._m.load(_array(a))
        return self

    def read(self):
        """A new array of shape (2^n, 2^m): word i of node j at [j, i]."""
        return self._m.read()

    def aapc(self, algorithm=4, permutation="transpose", d=None):
        """One all-to-all personalized communication (Johnsson & Ho), as ``hcube aapc``."""
        self._m.aapc(str(algorithm), min(self.n, self.m) if d is None else int(d), str(permutation))
        return self

    def permute(self, perm, algorithm="auto", fused=False, ports="one"):
        """A stable dimension permutation of the address bits, as ``hcube permute --perm``."""
        self._m.permute(_perm_text(perm), str(algorithm), bool(fused), str(ports))
        return self

    def cycle(self, exchanges, port_model="all", channel_width=1):
        """One routing cycle, all its exchanges at once: node j (bit dim clear) swaps word addr with word
        peer of node j xor 2^dim. The exchanges as ``hcube cycle --cycle``'s "dim:addr[:peer],...", as
        (dim, addr[, peer]) tuples, or as a schedule document's cycle ({"dim", "addr", "peer_addr"} dicts)."""
        if not isinstance(exchanges, str):
            exchanges = ",".join(":".join(str(int(v)) for v in _exchange(e)) for e in exchanges)
        self._m.cycle(exchanges, str(port_model), int(channel_width))
        return self

    def align(self, xor_proc=(), xor_mem=(), mem_perm=(), gray=""):
        """One local alignment i -> gray(perm(i xor j_P)), as ``hcube align``'s flags."""
        self._m.align(_perm_text(xor_proc), _perm_text(xor_mem), _perm_text(mem_perm), str(gray))
        return self


def permute(a, perm, algorithm="auto", fused=False, *, ports="one", n=None, m=None, backend="auto"):
    """A new array: ``a`` after ``hcube permute --perm perm`` (source address bit i to bit perm[i]).

    n and m come from a 2-D array's shape; a flat array needs ``n=`` (or ``m=``).
    ``perm`` is a list or the command line's text ("transpose", "bit-reversal", "shuffle:k", "2,0,1").
    ``ports``: "one" or "all" (the n-port algorithms A4, A5, A6, Edelman), as ``hcube permute --ports``.
    """
    a = _array(a)
    n, m, descr = _hcube.array_info(a, n, m)
    plan = _hcube.permute_plan(_perm_text(perm), n, m, str(algorithm), bool(fused), str(ports), descr,
                               _backend_of(a, backend))
    return _run(plan, a)


def aapc(a, algorithm=4, permutation="transpose", *, d=None, n=None, m=None, backend="auto"):
    """A new array: ``a`` after one AAPC (the transpose of a square (2^d, 2^d) array)."""
    a = _array(a)
    n, m, descr = _hcube.array_info(a, n, m)
    plan = _hcube.aapc_plan(str(algorithm), min(n, m) if d is None else int(d), n, m, str(permutation), descr,
                            _backend_of(a, backend))
    return _run(plan, a)


def fft(x, nodes_log2, order="natural", backend="auto"):
    """The distributed radix-2 FFT of a flat complex64/complex128 array on 2^nodes_log2 nodes.

    order="natural": X[k] at k (numpy.fft.fft's order); "bit-reversed": X[rev k] at k.
    """
    return _hcube.fft(_host(x), int(nodes_log2), str(order), str(backend))


def redistribute(a, P, Q, K=None, x=None, schedule="circulant", overlap=False, reverse=False, backend="auto", *,
                 y=None):
    """Block-cyclic redistribution of a flat array, cyclic(x) on P processors to cyclic(K x) on Q,
    or to cyclic(y) for any y (``y=``, instead of K: ``hcube redistribute --y``).

    Returns the destinations' memories, shape (Q, N/Q) as ``hcube redistribute --output`` writes:
    row q holds, in order, the elements destination q owns under cyclic(K x). reverse=True runs
    it backwards (``--reverse``): cyclic(K x) on Q to cyclic(x) on P, shape (P, N/P).
    """
    if x is None:
        raise ValueError("x is required: the source block, elements")
    if (K is None) == (y is None):
        raise ValueError("give K (cyclic(K x) on Q) or y (cyclic(y) on Q), not both" if K is not None
                         else "give K (cyclic(K x) on Q) or y (cyclic(y) on Q)")
    if y is not None and int(y) < 1:
        raise ValueError(f"y = {int(y)} out of range: allowed 1 or more")
    out, _ = _hcube.redistribute(_host(a), int(P), int(Q), 0 if K is None else int(K), int(x), str(schedule),
                                 bool(overlap), bool(reverse), str(backend), 0 if y is None else int(y))
    return out


def schedule(algorithm, d, *, n=None, m=None, channel_width=1, blocked=False, lines="diagonal"):
    """The AAPC schedule as the hcube-schedule/1 document (``hcube schedule --json``), a dict."""
    return _json.loads(_hcube.schedule(str(algorithm), int(d), None if n is None else int(n),
                                       None if m is None else int(m), int(channel_width), bool(blocked), str(lines)))


class Animation:
    """The teaching page of ``hcube animate``: shown inline in Jupyter, written by save()."""

    def __init__(self, result):
        self.command = result["command"]
        self.html = result["html"]
        self.steps = result["steps"]
        self.routing_cycles = result["routing_cycles"]
        self.nodes = result["nodes"]
        self.verified = result["verified"]

    def _repr_html_(self):
        # srcdoc keeps the page's script and ids apart from the notebook's.
        return ('<iframe srcdoc="{}" style="width: 100%; height: 720px; border: 1px solid #ccc" '
                'sandbox="allow-scripts"></iframe>').format(_html.escape(self.html, quote=True))

    def save(self, path):
        """Writes the page (an .html file)."""
        with open(_os.fspath(path), "w", encoding="utf-8") as f:
            f.write(self.html)
        return path

    def __repr__(self):
        return "<hcube.Animation of hcube {}: {} steps, {} routing cycles, {} nodes, verified: {}>".format(
            self.command, self.steps, self.routing_cycles, self.nodes, "yes" if self.verified else "no")


def _flags(options):
    # aapc(dims=3, algorithm=4) -> --dims 3 --algorithm 4; one letter -> -n 2; True -> the flag alone.
    words = []
    for key, value in options.items():
        flag = ("-" if len(key) == 1 else "--") + key.replace("_", "-")
        if value is True:
            words.append(flag)
        elif value is not False and value is not None:
            words += [flag, _perm_text(value) if isinstance(value, (list, tuple)) else str(value)]
    return words


def animate(command, *flags, **options):
    """The page ``hcube animate COMMAND FLAGS --output page.html`` writes, as an Animation.

    ``command`` is aapc, multi-aapc, permute, redistribute or scatter, alone or with its flags as one
    string ("aapc -d 3 -a 4"); more flags follow as strings or keywords (dims=3, algorithm=4).
    """
    words = _shlex.split(command) + [str(f) for f in flags] + _flags(options)
    result = _hcube.animate(words)
    if result["help"]:  # --help: the command's flags, as hcube animate prints them
        print(result["help"])
        return None
    return Animation(result)
