"""hcube.mpi: the plans of hcube run across the ranks of an MPI communicator (mpi4py).

The cube's 2^n nodes are shared by the communicator's 2^r ranks (docs/distributed.md): rank R holds
the R-th of 2^r equal blocks of the plan's array, in C order (rows R 2^(n-r) .. (R+1) 2^(n-r) - 1 of a
(2^n, 2^m) array), and the plan moves every word to where the one-process plan puts it, each rank
ending with its block of the result. The plan is the one made for the whole array, as on one process;
every rank makes it alike and calls ``execute`` collectively.

Needs mpi4py and hcube built with MPI (the wheel has hcube._hcube_mpi where MPI was found at build time).
"""
from __future__ import annotations

import importlib
import importlib.util
from typing import Any, List, Optional, Tuple, Union

import numpy as _np
import numpy.typing as _npt

from . import _arrays as _ar
from . import _plans
from ._names import python_names
from ._plans import AapcPlan, PermutePlan

try:
    _MPI: Any = importlib.import_module("mpi4py.MPI")
except ImportError as _e:
    raise ImportError(f"hcube.mpi needs mpi4py (pip install 'hcube-emulator[mpi]'): {_e}") from None
if importlib.util.find_spec("hcube._hcube_mpi") is None:
    raise ImportError("hcube.mpi needs hcube built with MPI: this hcube has no hcube._hcube_mpi (install an MPI "
                      "library's headers, e.g. libopenmpi-dev, then build hcube again)")
try:
    from . import _hcube_mpi
except ImportError as _e:
    raise ImportError(f"hcube.mpi: hcube._hcube_mpi does not load: {_e}") from None


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


# The communicator's handle crosses as a Fortran integer, which only the MPI library that made it can read.
if _first_line(_MPI.Get_library_version()) != _first_line(_hcube_mpi.library_version()):
    raise ImportError(f"hcube.mpi: mpi4py runs on {_first_line(_MPI.Get_library_version())!r} but hcube was built "
                      f"with {_first_line(_hcube_mpi.library_version())!r}: build mpi4py against the same MPI "
                      "(pip install --no-binary mpi4py mpi4py)")

__all__ = ["execute", "share_shape", "Plan"]

Plan = Union[PermutePlan, AapcPlan]


def _ranks(plan: Any, comm: Any) -> Tuple[int, int]:
    """The communicator's size and rank, checked against the plan's machine (alike on every rank)."""
    if not isinstance(plan, (PermutePlan, AapcPlan)):
        raise TypeError(f"plan: expected an hcube.PermutePlan or hcube.AapcPlan, got {type(plan).__name__}")
    if not all(hasattr(comm, name) for name in ("Get_size", "Get_rank", "py2f", "allgather")):
        raise TypeError(f"comm: expected an mpi4py communicator (mpi4py.MPI.Comm), got {type(comm).__name__}")
    size, rank = int(comm.Get_size()), int(comm.Get_rank())
    if size & (size - 1) or size > 2 ** plan.n:
        raise ValueError(f"comm has {size} ranks: the plan's 2^{plan.n} nodes are shared by 2^r ranks, a power of "
                         f"two up to {2 ** plan.n}")
    return size, rank


def _block_shape(shape: Tuple[int, ...], size: int) -> Tuple[int, ...]:
    # Axis 0 split in `size` blocks, or the flat block where it does not split evenly.
    if shape and shape[0] % size == 0:
        return (shape[0] // size,) + tuple(shape[1:])
    return (int(_np.prod(shape, dtype=_np.int64)) // size,)


@python_names
def share_shape(plan: Plan, comm: Any) -> Tuple[int, ...]:
    """The shape of each rank's share of the plan's array on ``comm``.

    Parameters
    ----------
    plan : PermutePlan or AapcPlan
        A plan made for the whole array, as on one process.
    comm : mpi4py.MPI.Comm
        2^r ranks, at most the plan's 2^n nodes.

    Returns
    -------
    tuple of int
        The plan's shape with axis 0 divided by the ranks: ``(shape[0] // comm.size,) + shape[1:]``;
        a flat ``(size // comm.size,)`` where axis 0 does not divide evenly.
    """
    size, _ = _ranks(plan, comm)
    return _block_shape(plan.shape, size)


def _problem(plan: Plan, want: Tuple[int, ...], what: str, a: Any) -> Optional[Tuple[str, str]]:
    """Why ``a`` cannot be this rank's share (an exception's type name and its message), or None."""
    if not isinstance(a, _np.ndarray):
        return "TypeError", f"{what}: expected a NumPy array (host memory), got {type(a).__name__}"
    if a.shape != want:
        return "ValueError", f"{what} has shape {a.shape}: the plan's share on each rank is {want}"
    if a.dtype != plan.dtype:
        return "TypeError", (f"{what} has dtype {a.dtype.str} ({a.dtype}): this plan is for {plan.dtype.str} "
                             f"({plan.dtype})")
    if what == "out" and not a.flags.writeable:
        return "ValueError", "out: the array is read-only"
    return None


@python_names
def execute(plan: Plan, comm: Any, share: _npt.ArrayLike, out: Optional[_npt.NDArray[Any]] = None) -> _npt.NDArray[Any]:
    """The plan run across the ranks of ``comm``, each holding its share of the array. Collective.

    Every rank's share is checked before anything moves: a bad share on any rank raises the same
    one-line error on every rank, naming that rank.

    Parameters
    ----------
    plan : PermutePlan or AapcPlan
        A plan made for the whole array, alike on every rank.
    comm : mpi4py.MPI.Comm
        2^r ranks (a power of two), at most the plan's 2^n nodes.
    share : array_like
        This rank's block of the array: the R-th of 2^r equal blocks in C order, of shape
        ``share_shape(plan, comm)`` and the plan's dtype, any strides.
    out : ndarray, optional
        Where this rank's block of the result goes, of the share's shape and dtype; any strides, and
        it may be ``share`` itself.

    Returns
    -------
    ndarray
        ``out``, or a new array: this rank's block of the plan's result.

    Examples
    --------
    On 2 ranks (``mpirun -np 2 python script.py``), the transpose of a (4, 4) array:

    >>> import numpy as np, hcube, hcube.mpi
    >>> from mpi4py import MPI
    >>> comm = MPI.COMM_WORLD
    >>> plan = hcube.AapcPlan((4, 4), np.int64)
    >>> a = np.arange(16).reshape(4, 4)
    >>> mine = np.split(a, comm.size)[comm.rank]
    >>> bool((hcube.mpi.execute(plan, comm, mine) == np.split(a.T, comm.size)[comm.rank]).all())
    True
    """
    size, rank = _ranks(plan, comm)
    want = _block_shape(plan.shape, size)
    a = _ar.host_view(share)
    if a is None and not _ar.is_device(share) and _ar.dlpack_device(share) is None:
        a = _np.asarray(share)
    problem = _problem(plan, want, "share", a) or (None if out is None else _problem(plan, want, "out", out))
    # Every rank learns of every rank's problem, so that all raise alike rather than some waiting on the others.
    problems: List[Optional[Tuple[str, str]]] = comm.allgather(problem)
    for r, p in enumerate(problems):
        if p is not None:
            kind = TypeError if p[0] == "TypeError" else ValueError
            raise kind(p[1] + (f" (on rank {r} of {size})" if size > 1 else ""))
    assert isinstance(a, _np.ndarray)
    if plan._across is None and plan._maker is not None:
        # Made once, as the plan itself was: a plan reused runs without planning again.
        plan._across = getattr(_hcube_mpi, plan._maker[0])(*plan._maker[1])
    across = plan._across
    handle = int(comm.py2f())
    return _plans.run_on_words(a, out, plan.dtype, (lambda w: None) if across is None
                               else (lambda w: across.execute(handle, w)))
