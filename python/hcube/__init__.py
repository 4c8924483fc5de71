"""hcube: an emulator of a CM-2-style SIMD hypercube, on NumPy arrays.

The machine holds 2^n nodes of K = 2^m words; an array of shape (2^n, 2^m)
(or flat, 2^(n+m) words) holds word i of node j at [j, i]. Arrays of any
fixed-size dtype of 1, 2, 4, 8 or 16 bytes and any strides are taken, as
NumPy takes them: the machine moves bits. A bad input raises a one-line
ValueError (TypeError for a dtype, MemoryError when the memory is not there)
naming the Python parameter at fault. docs/python.md describes the API.
hcube.mpi, imported on its own (it needs mpi4py), runs the plans across MPI ranks.
"""
from __future__ import annotations

import html as _html
import json as _json
import os as _os
import shlex as _shlex
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as _np
import numpy.typing as _npt

from . import _arrays as _ar
from . import _hcube
from . import _plans
from ._names import python_names as _python_names
from ._arrays import ArrayInput
from ._plans import AapcPlan, FftPlan, PermutePlan

__version__: str = _hcube.version()

__all__ = ["Machine", "permute", "aapc", "fft", "redistribute", "schedule", "animate", "Animation", "tune", "synthesize",
           "PermutePlan", "AapcPlan", "FftPlan", "ArrayInput", "__version__"]


def _array(a: Any) -> Any:
    # Lists and scalars become arrays here; NumPy arrays, device arrays and DLPack arrays (a PyTorch
    # or JAX array, on the host or a GPU) are passed as they are: the plans read them in place.
    if isinstance(a, _np.ndarray) or _ar.is_device(a) or _ar.dlpack_device(a) is not None:
        return a
    return _np.asarray(a)


def _host(a: Any) -> _npt.NDArray[Any]:
    # fft, redistribute and Machine.load read a NumPy array: a host array behind DLPack is viewed.
    view = _ar.host_view(a)
    return view if view is not None else _np.asarray(a)


def _backend_of(a: Any, backend: str) -> str:
    # A device array runs on the CUDA backend unless the caller says otherwise.
    return "cuda" if backend == "auto" and _ar.is_device(a) else str(backend)


def _opt(v: Optional[int]) -> Optional[int]:
    return None if v is None else int(v)


def _key(shape: Any) -> Tuple[int, ...]:
    return _ar.shape_tuple(shape)


def _plan_key(a: Any, n: Optional[int], m: Optional[int], flat_n: bool) -> Tuple[Tuple[int, ...], Any,
                                                                                 Optional[int], Optional[int]]:
    """The shape and dtype a plan for `a` is made for, and n and m.

    A device array is described by the extension (its machine and word); a host one by NumPy.
    flat_n: with axes=, a flat device array needs no n (any split gives the same result).
    """
    if _ar.is_device(a) or (_ar.dlpack_device(a) is not None and _ar.host_view(a) is None):
        shape = getattr(a, "shape", None)
        if flat_n and n is None and m is None and shape is not None and len(shape) == 1:
            n = _ar.log2_exact(int(shape[0])) // 2
        nn, mm, word = _hcube.array_info(a, _opt(n), _opt(m))
        return (2 ** nn, 2 ** mm), _np.dtype(word), nn, mm
    view = _ar.host_view(a)
    h = view if view is not None else a
    return _key(h.shape), h.dtype, _opt(n), _opt(m)


@_python_names
def permute(a: ArrayInput, perm: Optional[Union[str, Sequence[int]]] = None, algorithm: str = "auto",
            fused: bool = False, *, axes: Optional[Sequence[int]] = None, ports: str = "one",
            effort: str = "estimate", n: Optional[int] = None, m: Optional[int] = None, backend: str = "auto",
            out: Any = None) -> Any:
    """A dimension permutation of ``a``'s 2^q elements, as NumPy's transpose of its (2,)*q view.

    Parameters
    ----------
    a : array_like
        2^q elements of any fixed-size dtype (1, 2, 4, 8 or 16 bytes), any strides; a device array
        (CuPy, PyTorch, ...) in C order runs on the CUDA backend, in place on its copy.
    perm : str or sequence of int, optional
        The address-bit form (``hcube permute --perm``): source address bit i goes to bit perm[i],
        bit 0 the lowest; "transpose", "bit-reversal", "shuffle:k". ``a`` is then (2^n, 2^m), or flat
        with ``n=`` (or ``m=``).
    algorithm : str
        "auto" (the cost model's cheapest), "A1", "A1'", "A2"; with ports="all" "A4", "A5", "A6",
        "Edelman".
    fused : bool
        Every word straight to its place in one tiled pass.
    axes : sequence of int, optional
        NumPy's form instead of ``perm``: the result is
        ``a.reshape((2,)*q).transpose(axes).reshape(a.shape)``, for any shape of 2^q elements.
    ports : str
        "one" or "all" (the n-port algorithms).
    effort : str
        The n-port algorithms' planning effort (``hcube permute --effort``): "estimate" (greedy,
        milliseconds) or "patient" (an annealing search for the lowest element counts, up to seconds
        a plan at 2^m >= 1024 words). The result is the same either way.
    n, m : int, optional
        2^n nodes of 2^m words, for a flat array.
    backend : str
        "auto", "cpu" or "cuda".
    out : ndarray, optional
        Where the result goes: ``a``'s shape and dtype, any strides (``a`` itself works).

    Returns
    -------
    ndarray or the input's kind
        ``out``, or a new array (a device array's copy, permuted, for a device array).

    Examples
    --------
    >>> import numpy as np, hcube
    >>> a = np.arange(16).reshape(4, 4)
    >>> bool((hcube.permute(a, axes=[2, 3, 0, 1]) == a.T).all())
    True
    """
    a = _array(a)
    shape, dtype, n, m = _plan_key(a, n, m, axes is not None)
    plan = _plans.permute_plan(shape, dtype, None if perm is None else _plans.perm_text(perm),
                               None if axes is None else tuple(int(x) for x in axes), str(algorithm), bool(fused),
                               str(ports), str(effort), n, m, _backend_of(a, backend))
    return plan.execute(a, out)


@_python_names
def aapc(a: ArrayInput, algorithm: Union[int, str] = 4, permutation: str = "transpose", *, d: Optional[int] = None,
         n: Optional[int] = None, m: Optional[int] = None, backend: str = "auto", out: Any = None) -> Any:
    """One all-to-all personalized communication (Johnsson & Ho): on a square array, its transpose.

    Parameters
    ----------
    a : array_like
        (2^d, 2^d) of any fixed-size dtype (1, 2, 4, 8 or 16 bytes), any strides; with ``d=`` any
        (2^n, 2^m) (or flat, with ``n=`` or ``m=``). A device array runs on the CUDA backend.
    algorithm : int or str
        1-4, "edelman", "sex", "dex".
    permutation : str
        "transpose", "bit-reversal", "vector-reversal", "gray".
    d : int, optional
        The AAPC's dimension; left out, the array must be square.
    n, m : int, optional
        2^n nodes of 2^m words, for a flat array.
    backend : str
        "auto", "cpu" or "cuda".
    out : ndarray, optional
        Where the result goes: ``a``'s shape and dtype, any strides.

    Returns
    -------
    ndarray or the input's kind
        ``out``, or a new array.
    """
    a = _array(a)
    shape, dtype, n, m = _plan_key(a, n, m, False)
    plan = _plans.aapc_plan(shape, dtype, str(algorithm), str(permutation), _opt(d), n, m, _backend_of(a, backend))
    return plan.execute(a, out)


@_python_names
def fft(x: ArrayInput, nodes_log2: Optional[int] = None, order: str = "natural", backend: str = "auto", *,
        out: Optional[_npt.NDArray[Any]] = None) -> _npt.NDArray[Any]:
    """The distributed radix-2 FFT of 2^P points on 2^nodes_log2 nodes.

    Parameters
    ----------
    x : array_like
        A flat host array of 2^P points (P >= 1), any strides: complex64, complex128, or real (or
        integer) points promoted as NumPy promotes them with complex64.
    nodes_log2 : int, optional
        0..P-1; left out, P // 2.
    order : str
        "natural": X[k] at k, ``numpy.fft.fft``'s order (to 1e-12 relative in complex128);
        "bit-reversed": X[rev k] at k.
    backend : str
        "auto", "cpu" or "cuda".
    out : ndarray, optional
        Of x's shape and the complex dtype the points are computed in.

    Returns
    -------
    ndarray
        ``out``, or a new complex array.
    """
    h = _host(x)
    plan = _plans.fft_plan(_key(h.shape), h.dtype, _opt(nodes_log2), str(order), str(backend))
    return plan.execute(h, out)


@_python_names
def redistribute(a: ArrayInput, P: int, Q: int, K: Optional[int] = None, x: Optional[int] = None,
                 schedule: str = "circulant", overlap: bool = False, reverse: bool = False, backend: str = "auto",
                 *, y: Optional[int] = None, out: Optional[_npt.NDArray[Any]] = None) -> _npt.NDArray[Any]:
    """Block-cyclic redistribution of a flat array: cyclic(x) on P processors to cyclic(K x) on Q.

    Parameters
    ----------
    a : array_like
        N elements in global order, any fixed-size dtype (1, 2, 4, 8 or 16 bytes), any strides.
    P, Q : int
        The source and destination processors.
    K : int, optional
        The destination's block is K x (or give ``y``).
    x : int
        The source block, elements.
    schedule : str
        The AAPC schedule of the router: "circulant", ...
    overlap : bool
        Sources and destinations may share nodes.
    reverse : bool
        Run it backwards: cyclic(K x) on Q to cyclic(x) on P.
    backend : str
        "auto", "cpu" or "cuda".
    y : int, optional
        cyclic(x) to cyclic(y) for any y, instead of K.
    out : ndarray, optional
        Of the result's shape and a's dtype, any strides.

    Returns
    -------
    ndarray
        The destinations' memories, shape (Q, N/Q) (reverse: (P, N/P)): row q holds, in order, the
        elements destination q owns.
    """
    if x is None:
        raise ValueError("x is required: the source block, elements")
    if (K is None) == (y is None):
        raise ValueError("give K (cyclic(K x) on Q) or y (cyclic(y) on Q), not both" if K is not None
                         else "give K (cyclic(K x) on Q) or y (cyclic(y) on Q)")
    if y is not None and int(y) < 1:
        raise ValueError(f"y = {int(y)} out of range: allowed 1 or more")
    h = _host(a)
    dtype = _ar.element_dtype(h.dtype, "array")
    words = _np.ascontiguousarray(_ar.to_words(h))
    result, _ = _hcube.redistribute(words, int(P), int(Q), 0 if K is None else int(K), int(x), str(schedule),
                                    bool(overlap), bool(reverse), str(backend), 0 if y is None else int(y))
    if out is None:
        return _ar.from_words(result, dtype)
    if not isinstance(out, _np.ndarray) or out.shape != result.shape or out.dtype != dtype:
        raise ValueError(f"out: expected a NumPy array of shape {result.shape} and dtype {dtype}")
    _ar.store_words(out, result)
    return out


class Machine:
    """2^n nodes of 2^m words of ``dtype``, on the CPU or CUDA backend.

    ``load`` and ``read`` copy the data in and out; the primitives and plans run on the machine's
    own storage, and ``counters`` says what they did (the keys of ``hcube --json``'s counters).

    Parameters
    ----------
    n, m : int
        2^n nodes of 2^m words.
    dtype : dtype
        Any fixed-size dtype of 1, 2, 4, 8 or 16 bytes (1 and 2 bytes are held in 4-byte words).
    backend : str
        "auto", "cpu" or "cuda".
    """

    @_python_names
    def __init__(self, n: int, m: int, dtype: _npt.DTypeLike = _np.uint32, backend: str = "auto") -> None:
        self._dtype = _ar.element_dtype(dtype)
        self._m = _hcube.Machine(int(n), int(m), _ar.word_dtype(self._dtype).str, str(backend))

    @property
    def n(self) -> int:
        """log2 of the number of nodes."""
        return int(self._m.n)

    @property
    def m(self) -> int:
        """log2 of the words per node."""
        return int(self._m.m)

    @property
    def dtype(self) -> _np.dtype[Any]:
        """The dtype of the arrays it loads and reads."""
        return self._dtype

    @property
    def backend(self) -> str:
        """The backend it runs on: cpu or cuda."""
        return str(self._m.backend)

    @property
    def counters(self) -> Dict[str, Any]:
        """What the machine did since it was made (or reset_counters): routing_cycles, element_hops, ..."""
        result: Dict[str, Any] = _json.loads(self._m.counters())
        return result

    def reset_counters(self) -> None:
        """Sets the counters to zero."""
        self._m.reset_counters()

    @_python_names
    def load(self, a: ArrayInput) -> "Machine":
        """Loads a host array into the machine's memory.

        Parameters
        ----------
        a : array_like
            Shape (2^n, 2^m) or (2^(n+m),), the machine's dtype, any strides; a NumPy array or host
            memory behind DLPack.

        Returns
        -------
        Machine
            The machine itself, for chaining.
        """
        if _ar.is_device(a) or (_ar.dlpack_device(a) is not None and _ar.host_view(a) is None):
            self._m.load(a)  # the extension says why not
            return self
        h = _host(a)
        _hcube.check_shape(_key(h.shape), self.n, self.m)  # the shape first, as the command line checks it
        if h.dtype != self._dtype:
            raise TypeError(f"array: dtype {h.dtype.str} ({h.dtype}) does not match the machine's "
                            f"{self._dtype.str} ({self._dtype})")
        self._m.load(_np.ascontiguousarray(_ar.to_words(h)))
        return self

    def read(self) -> _npt.NDArray[Any]:
        """The machine's memory.

        Returns
        -------
        ndarray
            A new array of shape (2^n, 2^m) and the machine's dtype: word i of node j at [j, i].
        """
        return _ar.from_words(self._m.read(), self._dtype)

    @_python_names
    def aapc(self, algorithm: Union[int, str] = 4, permutation: str = "transpose",
             d: Optional[int] = None) -> "Machine":
        """One all-to-all personalized communication (Johnsson & Ho), as ``hcube aapc``.

        Left out, ``d`` is n = m: a machine that is not square needs ``d=``, as ``hcube.aapc`` does.
        """
        if d is None and self.n != self.m:
            raise ValueError(f"a machine of 2^{self.n} nodes of 2^{self.m} words is not square, and an AAPC "
                             f"without d= is the transpose of a (2^d, 2^d) array; give d= (0..{min(self.n, self.m)})")
        self._m.aapc(str(algorithm), self.n if d is None else int(d), str(permutation))
        return self

    @_python_names
    def permute(self, perm: Union[str, Sequence[int]], algorithm: str = "auto", fused: bool = False,
                ports: str = "one", *, effort: str = "estimate") -> "Machine":
        """A stable dimension permutation of the address bits, as ``hcube permute --perm``.

        ``effort`` is ``hcube permute --effort``: the n-port algorithms' planning, "estimate" (greedy)
        or "patient" (an annealing search for the lowest element counts); the result is the same.
        """
        self._m.permute(_plans.perm_text(perm), str(algorithm), bool(fused), str(ports), str(effort))
        return self

    @_python_names
    def cycle(self, exchanges: Union[str, Sequence[Any]], port_model: str = "all",
              channel_width: int = 1) -> "Machine":
        """One routing cycle, all its exchanges at once.

        Node j (bit dim clear) swaps word addr with word peer of node j xor 2^dim. The exchanges as
        ``hcube cycle --cycle``'s "dim:addr[:peer],...", as (dim, addr[, peer]) tuples, or as a
        schedule document's cycle ({"dim", "addr", "peer_addr"} dicts).
        """
        if not isinstance(exchanges, str):
            exchanges = ",".join(":".join(str(int(v)) for v in _exchange(e)) for e in exchanges)
        self._m.cycle(exchanges, str(port_model), int(channel_width))
        return self

    @_python_names
    def align(self, xor_proc: Union[str, Sequence[int]] = (), xor_mem: Union[str, Sequence[int]] = (),
              mem_perm: Union[str, Sequence[int]] = (), gray: str = "") -> "Machine":
        """One local alignment i -> gray(perm(i xor j_P)), as ``hcube align``'s flags."""
        self._m.align(_plans.perm_text(xor_proc), _plans.perm_text(xor_mem), _plans.perm_text(mem_perm), str(gray))
        return self


def _exchange(e: Any) -> Tuple[int, ...]:
    if isinstance(e, dict):
        return (int(e["dim"]), int(e["addr"]), int(e["peer_addr"] if "peer_addr" in e else e["addr"]))
    return tuple(int(v) for v in e)


@_python_names
def schedule(algorithm: Union[int, str], d: int, *, n: Optional[int] = None, m: Optional[int] = None,
             channel_width: int = 1, blocked: bool = False, lines: str = "diagonal",
             pair_order: str = "split") -> Dict[str, Any]:
    """The AAPC schedule as the hcube-schedule/1 document (``hcube schedule --json``), a dict.

    Parameters
    ----------
    algorithm : int or str
        1-4, "edelman", "sex", "dex".
    d : int
        The AAPC's dimension.
    n, m : int, optional
        The machine's node and memory dimensions (default d).
    channel_width : int
        b >= 1 words a link carries per cycle: the blocked schedule split into cycles of b words.
    blocked : bool
        One cycle per block transfer, as wide as its largest block.
    lines : str
        Algorithm 4's line drawing for its leftover pairs: "diagonal" (closed form) or "greedy".
    pair_order : str
        Algorithms 2 and 3's pairs: "split" (span d, 2d addresses in transit) or "table5"
        (Table 5's order, span up to K/2).

    Returns
    -------
    dict
        The document: "format", "d", "n", "m", "cycles" (each a list of exchanges), ...

    Examples
    --------
    >>> import hcube
    >>> s = hcube.schedule(4, 3)
    >>> s["format"], len(s["cycles"])
    ('hcube-schedule/1', 4)
    """
    result: Dict[str, Any] = _json.loads(_hcube.schedule(str(algorithm), int(d), _opt(n), _opt(m),
                                                         int(channel_width), bool(blocked), str(lines),
                                                         str(pair_order)))
    return result


@_python_names
def tune(quick: bool = False, *, log2_bytes: Optional[int] = None, budget_seconds: float = 60.0,
         output: Optional[Union[str, "_os.PathLike[str]"]] = None) -> Dict[str, Any]:
    """Measures this host's settings for the CPU's passes and saves them as wisdom (``hcube tune``).

    The fused passes' tile sizes and prefetch distance, a routing cycle's prefetch distance,
    the alignment's regions and from which size stores stream (docs/cli.md has the keys).

    Plans made afterwards, in this process's children and in later processes, read the wisdom
    (a process reads it once, when its first plan needs it).

    Parameters
    ----------
    quick : bool
        Fewer candidates and one timed run each, at most 2^26 bytes (a few seconds).
    log2_bytes : int, optional
        The data measured, 2^log2_bytes bytes (16..34); default beyond 4 x the L3.
    budget_seconds : float
        Seconds of measuring at most; keys not reached keep their defaults.
    output : str or path, optional
        The wisdom file; default ``$HCUBE_WISDOM``, else ``$XDG_CACHE_HOME/hcube/wisdom.json``.

    Returns
    -------
    dict
        "wisdom_path", "cpu", "log2_bytes", "values" (the settings chosen), "trials", "seconds".
    """
    out = "" if output is None else _os.fspath(output)
    result: Dict[str, Any] = _json.loads(_hcube.tune(bool(quick), -1 if log2_bytes is None else int(log2_bytes),
                                                     float(budget_seconds), out))
    return result


@_python_names
def synthesize(pattern: str, d: Optional[Union[int, Sequence[int]]] = None, *, axes: Optional[int] = None,
               m: Optional[int] = None, max_cycles: Optional[int] = None, time_limit: float = 0.0,
               port_model: Optional[str] = None, output: Union[str, "_os.PathLike[str]"],
               perm: Optional[Union[str, Sequence[int]]] = None, n: Optional[int] = None,
               topology: Optional[str] = None) -> Dict[str, Any]:
    """The fewest routing cycles of an AAPC, a sequence of AAPCs or a permutation of the address bits, or the
    fewest rounds of the all-to-all scatter, found by a SAT solver (``hcube synthesize``).

    Writes the schedule file (hcube-schedule/1), which ``hcube run --schedule`` verifies; for the scatter
    hcube-scatter/1, which ``hcube scatter --schedule`` verifies (docs/synthesize.md). Needs hcube built with CaDiCaL (libcadical-dev); without it a ValueError
    names the library.

    Parameters
    ----------
    pattern : str
        "aapc", "multi-aapc", "permute" or "scatter".
    d : int or sequence of int
        The AAPC's dimensions; for multi-aapc each axis' order (with ``axes``) or the orders, non-increasing.
    axes : int, optional
        multi-aapc: the number of AAPCs s.
    m : int, optional
        Memory dimensions (default d; permute: n).
    max_cycles : int, optional
        The most routing cycles tried (1..256).
    time_limit : float
        Seconds for the whole search; 0: none.
    port_model : str, optional
        "all" or "one" (default all; scatter: one).
    output : str or path
        The schedule file written.
    perm : str or sequence of int, optional
        permute: as ``hcube.permute``'s (source address bit i goes to bit perm[i]; "transpose", ...).
    n : int, optional
        permute: the processor dimensions (``d`` says the same).
    topology : str, optional
        scatter: "ring:z", "torus:z1xz2", "mesh:z1xz2" or "cube:d" (as ``hcube scatter``'s).

    Returns
    -------
    dict
        "cycles", "optimal", "lower_bound", "lower_bound_proof", "distance_bound", "channel_bound",
        "unsat_at", "seconds", "output", "runs", ... (permute: "perm"; scatter: "topology", "rounds")
    """
    if n is not None and d is not None:
        raise ValueError(f"n={int(n)} and d={d} both give the processor dimensions: pass one")
    size = n if d is None else d
    dims = "" if size is None else str(size) if isinstance(size, int) else ",".join(str(int(w)) for w in size)
    text = "" if perm is None else _plans.perm_text(perm)
    result: Dict[str, Any] = _json.loads(_hcube.synthesize(str(pattern), dims, axes, m, max_cycles, float(time_limit),
                                                           "" if port_model is None else str(port_model),
                                                           _os.fspath(output), text,
                                                           "" if topology is None else str(topology)))
    result["command"] = "synthesize"
    return result


class Animation:
    """The teaching page of ``hcube animate``: shown inline in Jupyter, written by save()."""

    def __init__(self, result: Dict[str, Any]) -> None:
        self.command: str = result["command"]
        self.html: str = result["html"]
        self.steps: int = result["steps"]
        self.routing_cycles: int = result["routing_cycles"]
        self.nodes: int = result["nodes"]
        self.verified: bool = result["verified"]
        # One entry a run drawn (two for algorithm="1,4"): algorithm, steps, routing_cycles, element_hops.
        self.machines: List[Dict[str, Any]] = list(result.get("machines", []))

    def _repr_html_(self) -> str:
        # srcdoc keeps the page's script and ids apart from the notebook's.
        return ('<iframe srcdoc="{}" style="width: 100%; height: 720px; border: 1px solid #ccc" '
                'sandbox="allow-scripts"></iframe>').format(_html.escape(self.html, quote=True))

    def save(self, path: Union[str, "_os.PathLike[str]"]) -> Union[str, "_os.PathLike[str]"]:
        """Writes the page (an .html file)."""
        with open(_os.fspath(path), "w", encoding="utf-8") as f:
            f.write(self.html)
        return path

    def __repr__(self) -> str:
        return "<hcube.Animation of hcube {}: {} steps, {} routing cycles, {} nodes, verified: {}>".format(
            self.command, self.steps, self.routing_cycles, self.nodes, "yes" if self.verified else "no")


def _flags(options: Dict[str, Any]) -> List[str]:
    # aapc(dims=3, algorithm=4) -> --dims 3 --algorithm 4; one letter -> -n 2; True -> the flag alone.
    words: List[str] = []
    for key, value in options.items():
        flag = ("-" if len(key) == 1 else "--") + key.replace("_", "-")
        if value is True:
            words.append(flag)
        elif value is not False and value is not None:
            words += [flag, _plans.perm_text(value) if isinstance(value, (list, tuple)) else str(value)]
    return words


def animate(command: str, *flags: Any, **options: Any) -> Optional[Animation]:
    """The page ``hcube animate COMMAND FLAGS --output page.html`` writes, as an Animation.

    ``command`` is aapc, multi-aapc, permute, redistribute or scatter, alone or with its flags as one
    string ("aapc -d 3 -a 4"); more flags follow as strings or keywords (dims=3, algorithm=4). Its
    errors name the command line's flags, since that is what it takes.
    """
    words = _shlex.split(command) + [str(f) for f in flags] + _flags(options)
    result = _hcube.animate(words)
    if result["help"]:  # --help: the command's flags, as hcube animate prints them
        print(result["help"])
        return None
    return Animation(result)
