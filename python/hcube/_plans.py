"""Reusable plans: checked and scheduled once, executed on many arrays (as FFTW's and cuFFT's plans are)."""
from __future__ import annotations

import functools
import json
import threading
from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from . import _arrays as ar
from . import _hcube
from ._names import python_names

Perm = Union[str, Sequence[int]]


def perm_text(perm: Any) -> str:
    """A permutation as the library's text: a list of ints joined by commas, or the text itself."""
    return perm if isinstance(perm, str) else ",".join(str(int(p)) for p in perm)


def perm_of_axes(axes: Sequence[int]) -> Tuple[int, ...]:
    """The address-bit form of NumPy's transpose(axes) of the (2,)*q view: p[q-1-axes[k]] = q-1-k."""
    q = len(axes)
    p = [0] * q
    for k, ax in enumerate(axes):
        p[q - 1 - ax] = q - 1 - k
    return tuple(p)


def _checked_axes(axes: Sequence[int], q: int) -> Tuple[int, ...]:
    # NumPy's rules: each axis once, negative ones counted from the end.
    try:
        given = tuple(int(ax) for ax in axes)
    except TypeError:
        raise TypeError(f"axes={axes!r}: expected a sequence of {q} ints (a permutation of 0..{q - 1})") from None
    out = tuple(ax + q if -q <= ax < 0 else ax for ax in given)
    if sorted(out) != list(range(q)):
        raise ValueError(f"axes={list(given)} is not a permutation of 0..{q - 1}: the array's 2^{q} elements "
                         f"are a (2,)*{q} view, one axis per address bit")
    return out


def _plan_shape(shape: Any, dtype: npt.DTypeLike) -> Tuple[Tuple[int, ...], np.dtype[Any]]:
    return ar.shape_tuple(shape), ar.element_dtype(dtype)


class _Identity:
    """The library plan of a permutation of at most one address bit: nothing moves."""

    def check(self, a: Any) -> None:
        pass

    def execute(self, a: Any) -> str:
        return "{}"


def run_on_words(a: npt.NDArray[Any], out: Optional[npt.NDArray[Any]], dtype: np.dtype[Any],
                 run: Callable[[npt.NDArray[Any]], Any]) -> npt.NDArray[Any]:
    """run on the flat C-ordered words of a copy of a (checked by the caller); the result in out or a new array."""
    if dtype.itemsize in ar.WORDS:
        # In place on out itself where the machine can take it (C order), else on a new array.
        buf = out if out is not None and out.flags.c_contiguous else np.empty(a.shape, dtype)
        words = buf.view(ar.WORDS[dtype.itemsize])
        np.copyto(words, a.view(words.dtype))  # copyto orders overlapping memory (out=a)
        run(words.reshape(-1))
        if out is not None and buf is not out:
            np.copyto(out, buf)
        return out if out is not None else buf
    words = ar.to_words(a)  # 1 or 2 bytes: a widened, C-ordered copy
    run(words.reshape(-1))
    result = out if out is not None else np.empty(a.shape, dtype)
    ar.store_words(result, words)
    return result


class _InPlacePlan:
    """A library plan run in place on a buffer of words: what PermutePlan and AapcPlan share."""

    shape: Tuple[int, ...]
    dtype: np.dtype[Any]
    n: int
    _plan: Any
    # The extension's plan maker and its arguments (None: the identity), which hcube.mpi makes its own plan with.
    _maker: Optional[Tuple[str, Tuple[Any, ...]]]
    _across: Any = None  # hcube.mpi's plan, made on the plan's first run across ranks
    _counters: str = "{}"  # the extension's JSON of the last execution's counts

    @property
    def last_counters(self) -> Dict[str, Any]:
        """What the plan's last execution counted, as ``hcube ... --json`` prints it under "counters".

        ``routing_cycles``, ``alignments``, ``kernel_launches``, ``element_hops`` (words moved across
        a link), ``bytes_read`` and ``bytes_written`` (by the data-motion kernels), ``channel_use``
        and ``phases`` (seconds a phase); an empty dict before the first execution and for a plan
        that moves nothing. The plan's own counts, in this process: not those of a run across MPI ranks.
        """
        return dict(json.loads(self._counters))

    def _run(self, words: Any) -> None:
        self._counters = self._plan.execute(words)

    def _check_host(self, a: npt.NDArray[Any], what: str) -> None:
        if a.shape != self.shape:
            raise ValueError(f"{what} has shape {a.shape}: this plan is for shape {self.shape}")
        if a.dtype != self.dtype:
            raise TypeError(f"{what} has dtype {a.dtype.str} ({a.dtype}): this plan is for {self.dtype.str} "
                            f"({self.dtype})")

    def _execute_host(self, a: npt.NDArray[Any], out: Optional[npt.NDArray[Any]]) -> npt.NDArray[Any]:
        self._check_host(a, "array")
        if out is not None:
            if not isinstance(out, np.ndarray):
                raise TypeError(f"out: expected a NumPy array for a host array, got {type(out).__name__}")
            self._check_host(out, "out")
            if not out.flags.writeable:
                raise ValueError("out: the array is read-only")
        return run_on_words(a, out, self.dtype, self._run)

    def _execute_device(self, a: Any, out: Any) -> Any:
        # In device memory, in place on a copy (or on out): the library's plan on the caller's stream.
        self._plan.check(a)
        if out is None:
            result = ar.copy(a)
        else:
            self._plan.check(out)
            ar.assign(out, a)
            result = out
        self._run(result)
        return result

    @python_names
    def execute(self, a: ar.ArrayInput, out: Any = None) -> Any:
        """The plan run on ``a``, into ``out`` (or a new array), which is returned.

        Parameters
        ----------
        a : array_like
            An array of the plan's shape and dtype, any strides: a NumPy array, a host array behind
            DLPack, or (on the CUDA backend) a device array (CuPy, PyTorch, ...) in C order.
        out : ndarray, optional
            Where the result goes, of the plan's shape and dtype; any strides, and it may be ``a``
            itself. A device array for a device input.

        Returns
        -------
        ndarray or the input's kind
            ``out``, or a new array: a NumPy array for host input, except a C-ordered host array
            behind DLPack of 4, 8 or 16-byte elements, which gives its own kind (its copy or clone).
        """
        if ar.is_device(a):
            return self._execute_device(a, out)
        view = ar.host_view(a)
        if view is None and ar.dlpack_device(a) is not None:
            return self._execute_device(a, out)  # a host DLPack array NumPy cannot view: the extension says why
        if view is not None:
            if out is None and view.flags.c_contiguous and view.dtype.itemsize in ar.WORDS:
                self._check_host(view, "array")
                return self._execute_device(a, None)  # the extension runs it in place on a's copy (or clone)
            return self._execute_host(view, out)
        return self._execute_host(np.asarray(a), out)


class PermutePlan(_InPlacePlan):
    """A dimension permutation, planned once for arrays of one shape and dtype.

    Parameters
    ----------
    shape : int or tuple of int
        The arrays' shape: 2^q elements in all. With ``perm=``, (2^n, 2^m) or flat (2^q,).
    dtype : dtype
        Any fixed-size dtype of 1, 2, 4, 8 or 16 bytes.
    perm : str or sequence of int, optional
        The address-bit form (``hcube permute --perm``): source address bit i goes to bit perm[i],
        bit 0 the lowest word-address bit; or "transpose", "bit-reversal", "shuffle:k".
    axes : sequence of int, optional
        NumPy's form instead: the result is ``a.reshape((2,)*q).transpose(axes).reshape(a.shape)``.
    algorithm : str
        "auto" (the cost model's cheapest), "A1", "A1'", "A2"; with ports="all" also "A4", "A5",
        "A6", "Edelman".
    fused : bool
        Move every word straight to its place in one tiled pass.
    ports : str
        "one" or "all" (the n-port algorithms).
    effort : str
        The n-port algorithms' planning effort (``hcube permute --effort``, docs/sdp.md): "estimate"
        (greedy, milliseconds) or "patient" (an annealing search for the lowest element counts, up
        to seconds a plan at 2^m >= 1024 words). The result is the same either way; the other
        algorithms ignore it. Kept as the plan's ``effort``.
    n, m : int, optional
        2^n nodes of 2^m words: from a 2-D shape; a flat shape needs one of them with ``perm=``
        (with ``axes=`` the split only changes the cost, not the result).
    backend : str
        "auto", "cpu" or "cuda".
    """

    @python_names
    def __init__(self, shape: Union[int, Sequence[int]], dtype: npt.DTypeLike, perm: Optional[Perm] = None, *,
                 axes: Optional[Sequence[int]] = None, algorithm: str = "auto", fused: bool = False,
                 ports: str = "one", effort: str = "estimate", n: Optional[int] = None,
                 m: Optional[int] = None, backend: str = "auto") -> None:
        self.shape, self.dtype = _plan_shape(shape, dtype)
        self.effort = str(effort)
        if (perm is None) == (axes is None):
            raise ValueError("give axes= (NumPy's transpose of the (2,)*q view) or perm= (address bits), "
                             + ("not both" if perm is not None else "one of them"))
        size = int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1
        if axes is not None:
            q = ar.log2_exact(size)
            if q < 0:
                raise ValueError(f"array has shape {self.shape}: axes= permutes the (2,)*q view of 2^q elements, "
                                 f"and {size} is not a power of two")
            self.axes: Optional[Tuple[int, ...]] = _checked_axes(axes, q)
            if n is None and m is None:
                # The array's own machine where its shape is one with nodes and words; any split gives the
                # same result.
                n0 = ar.log2_exact(self.shape[0]) if len(self.shape) == 2 else -1
                n = n0 if 0 < n0 < q else q // 2
            n, m = _hcube.machine_dims((size,), None if n is None else int(n), None if m is None else int(m))
            perm = perm_of_axes(self.axes)
            if q <= 1:  # no address bits to move (2 elements or 1): the identity, with no machine to run it
                self.n, self.m, self.perm = int(n), int(m), perm_text(perm)
                self._plan = _Identity()
                self._maker = None
                return
        else:
            self.axes = None
            n, m = _hcube.machine_dims(self.shape, None if n is None else int(n), None if m is None else int(m))
        self.n, self.m = int(n), int(m)
        self.perm = perm_text(perm)
        args = (self.perm, self.n, self.m, str(algorithm), bool(fused), str(ports), self.effort,
                ar.word_dtype(self.dtype).str, str(backend))
        self._plan = _hcube.permute_plan(*args)
        self._maker = ("permute_plan", args)

    def __repr__(self) -> str:
        form = f"axes={list(self.axes)}" if self.axes is not None else f"perm={self.perm!r}"
        return f"hcube.PermutePlan(shape={self.shape}, dtype={self.dtype}, {form}, n={self.n}, m={self.m})"


class AapcPlan(_InPlacePlan):
    """One all-to-all personalized communication (Johnsson & Ho), planned once.

    Parameters
    ----------
    shape : int or tuple of int
        (2^n, 2^m), or flat (2^(n+m),) with ``n=`` or ``m=``.
    dtype : dtype
        Any fixed-size dtype of 1, 2, 4, 8 or 16 bytes.
    algorithm : int or str
        1-4, "edelman", "sex", "dex".
    permutation : str
        "transpose", "bit-reversal", "vector-reversal", "gray".
    d : int, optional
        The AAPC's dimension. Left out, the array must be square, (2^d, 2^d): the AAPC is then
        its transpose. Given, it runs on any shape (2^n, 2^m) with d <= min(n, m).
    n, m : int, optional
        2^n nodes of 2^m words, for a flat shape.
    backend : str
        "auto", "cpu" or "cuda".
    """

    @python_names
    def __init__(self, shape: Union[int, Sequence[int]], dtype: npt.DTypeLike, algorithm: Union[int, str] = 4,
                 permutation: str = "transpose", *, d: Optional[int] = None, n: Optional[int] = None,
                 m: Optional[int] = None, backend: str = "auto") -> None:
        self.shape, self.dtype = _plan_shape(shape, dtype)
        n, m = _hcube.machine_dims(self.shape, None if n is None else int(n), None if m is None else int(m))
        if d is None and n != m:
            raise ValueError(f"array has shape {self.shape}: 2^{n} nodes of 2^{m} words is not square, and "
                             f"an AAPC without d= is the transpose of a (2^d, 2^d) array; give d= "
                             f"(0..{min(n, m)}) to run one on the low d bits of the node number and the "
                             f"word address")
        self.n, self.m = int(n), int(m)
        self.d = self.n if d is None else int(d)
        args = (str(algorithm), self.d, self.n, self.m, str(permutation), ar.word_dtype(self.dtype).str, str(backend))
        self._plan = _hcube.aapc_plan(*args)
        self._maker = ("aapc_plan", args)

    def __repr__(self) -> str:
        return f"hcube.AapcPlan(shape={self.shape}, dtype={self.dtype}, d={self.d}, n={self.n}, m={self.m})"


class FftPlan:
    """The distributed radix-2 FFT of 2^P points on 2^nodes_log2 nodes, checked once.

    Parameters
    ----------
    shape : int or tuple of int
        The number of points, 2^P (P >= 1), or the flat shape (2^P,).
    dtype : dtype
        The input's dtype: complex64 or complex128, or a real (or integer, bool) dtype, promoted
        as NumPy promotes it with complex64 (float32 to complex64, float64 to complex128).
    nodes_log2 : int, optional
        2^nodes_log2 nodes, 0..P-1; left out, P // 2.
    order : str
        "natural": X[k] at k (``numpy.fft.fft``'s order); "bit-reversed": X[rev k] at k.
    backend : str
        "auto", "cpu" or "cuda".
    """

    @python_names
    def __init__(self, shape: Union[int, Sequence[int]], dtype: npt.DTypeLike = np.complex128,
                 nodes_log2: Optional[int] = None, order: str = "natural", backend: str = "auto") -> None:
        self.shape = ar.shape_tuple(shape)
        self.dtype = np.dtype(dtype)
        if len(self.shape) != 1:
            raise ValueError(f"array has {len(self.shape)} dimensions: fft reads a flat array of 2^P points "
                             "in index order")
        if self.dtype.kind not in "biufc":
            raise TypeError(f"array holds {self.dtype.str} ({self.dtype}): fft takes complex64 or complex128 "
                            "points, or real ones it promotes to complex")
        self.result_dtype = np.dtype(np.result_type(self.dtype, np.complex64))
        if self.result_dtype.itemsize > 16:
            raise TypeError(f"array holds {self.dtype.str} ({self.dtype}): fft computes in complex64 or "
                            "complex128 only")
        count = self.shape[0]
        P = ar.log2_exact(count)
        if P < 1:
            raise ValueError(f"array holds {count} points: not a power of two (2 or more)")
        self.nodes_log2 = P // 2 if nodes_log2 is None else int(nodes_log2)
        _hcube.check_fft_sizes(P, self.nodes_log2)
        self.order, self.backend = str(order), str(backend)
        if self.order not in ("natural", "bit-reversed"):
            raise ValueError(f"order={self.order!r} unknown: allowed 'natural', 'bit-reversed'")

    @python_names
    def execute(self, x: ar.ArrayInput, out: Optional[npt.NDArray[Any]] = None) -> npt.NDArray[Any]:
        """The FFT of ``x``, into ``out`` (or a new array), which is returned.

        Parameters
        ----------
        x : array_like
            A host array of the plan's shape and dtype, any strides.
        out : ndarray, optional
            Of the plan's shape and ``result_dtype`` (complex64 or complex128), any strides.

        Returns
        -------
        ndarray
            ``out``, or a new complex array.
        """
        if ar.is_device(x):
            raise TypeError("fft takes host arrays (NumPy, or host memory behind DLPack)")
        view = ar.host_view(x)
        a = view if view is not None else np.asarray(x)
        if a.shape != self.shape:
            raise ValueError(f"array has shape {a.shape}: this plan is for shape {self.shape}")
        if a.dtype != self.dtype:
            raise TypeError(f"array has dtype {a.dtype.str} ({a.dtype}): this plan is for {self.dtype.str} "
                            f"({self.dtype})")
        if out is not None:
            if not isinstance(out, np.ndarray) or out.shape != self.shape or out.dtype != self.result_dtype:
                raise ValueError(f"out: expected a NumPy array of shape {self.shape} and dtype "
                                 f"{self.result_dtype}")
        points = np.ascontiguousarray(a, dtype=self.result_dtype)  # a copy only when needed
        result: npt.NDArray[Any] = _hcube.fft(points, self.nodes_log2, self.order, self.backend)
        if out is None:
            return result
        np.copyto(out, result)
        return out

    def __repr__(self) -> str:
        return (f"hcube.FftPlan(shape={self.shape}, dtype={self.dtype}, nodes_log2={self.nodes_log2}, "
                f"order={self.order!r})")


# The module's functions run through these: the last 16 plans made, by shape, dtype and options, and by
# thread: a plan runs one call at a time, so threads calling the functions at once get plans of their own.
@functools.lru_cache(maxsize=16)
def cached_permute_plan(thread: int, shape: Tuple[int, ...], dtype: np.dtype[Any], perm: Optional[str],
                        axes: Optional[Tuple[int, ...]], algorithm: str, fused: bool, ports: str, effort: str,
                        n: Optional[int], m: Optional[int], backend: str) -> PermutePlan:
    return PermutePlan(shape, dtype, perm, axes=axes, algorithm=algorithm, fused=fused, ports=ports, effort=effort,
                       n=n, m=m, backend=backend)


def permute_plan(shape: Tuple[int, ...], dtype: np.dtype[Any], perm: Optional[str], axes: Optional[Tuple[int, ...]],
                 algorithm: str, fused: bool, ports: str, effort: str, n: Optional[int], m: Optional[int],
                 backend: str) -> PermutePlan:
    return cached_permute_plan(threading.get_ident(), shape, dtype, perm, axes, algorithm, fused, ports, effort, n, m,
                               backend)


@functools.lru_cache(maxsize=16)
def cached_aapc_plan(thread: int, shape: Tuple[int, ...], dtype: np.dtype[Any], algorithm: str, permutation: str,
                     d: Optional[int], n: Optional[int], m: Optional[int], backend: str) -> AapcPlan:
    return AapcPlan(shape, dtype, algorithm, permutation, d=d, n=n, m=m, backend=backend)


def aapc_plan(shape: Tuple[int, ...], dtype: np.dtype[Any], algorithm: str, permutation: str, d: Optional[int],
              n: Optional[int], m: Optional[int], backend: str) -> AapcPlan:
    return cached_aapc_plan(threading.get_ident(), shape, dtype, algorithm, permutation, d, n, m, backend)


# An FftPlan holds no machine (the library plans each call), so threads share it.
@functools.lru_cache(maxsize=16)
def fft_plan(shape: Tuple[int, ...], dtype: np.dtype[Any], nodes_log2: Optional[int], order: str,
             backend: str) -> FftPlan:
    return FftPlan(shape, dtype, nodes_log2, order, backend)
