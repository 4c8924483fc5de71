"""Run by test_mpi.py under mpirun: hcube.mpi on every rank, each rank's block of the result checked bit for bit
against the permutation's address formula computed here with NumPy. Rank 0 prints one line: "ok: N runs", the
first runs that differ, or (with "errors") the one-line error each bad call raised."""
from __future__ import annotations

import sys
from typing import Any, Callable, List, Tuple

import numpy as np
import numpy.typing as npt
from mpi4py import MPI

import hcube
import hcube.mpi

comm = MPI.COMM_WORLD
size, rank = comm.Get_size(), comm.Get_rank()
DTYPES = [np.uint8, np.int16, np.float32, np.int64, np.complex128]


def block(a: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """This rank's block of a (axis 0 split evenly, else the flat array), worked out here apart from hcube."""
    if a.shape[0] % size == 0:
        return np.split(a, size)[rank]
    return np.split(a.reshape(-1), size)[rank]


def moved(a: npt.NDArray[Any], dest: Callable[[npt.NDArray[np.int64]], npt.NDArray[np.int64]]) -> npt.NDArray[Any]:
    """The word at flat address g of a goes to address dest(g)."""
    g = np.arange(a.size, dtype=np.int64)
    out = np.empty_like(a).reshape(-1)
    out[dest(g)] = a.reshape(-1)
    return out.reshape(a.shape)


def transpose(d: int) -> Callable[[npt.NDArray[np.int64]], npt.NDArray[np.int64]]:
    return lambda g: ((g & ((1 << d) - 1)) << d) | (g >> d)  # (j | i) -> (i | j)


def reversal(q: int) -> Callable[[npt.NDArray[np.int64]], npt.NDArray[np.int64]]:
    def dest(g: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        r = np.zeros_like(g)
        for b in range(q):
            r |= ((g >> b) & 1) << (q - 1 - b)
        return r
    return dest


def bits(perm: List[int]) -> Callable[[npt.NDArray[np.int64]], npt.NDArray[np.int64]]:
    def dest(g: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        r = np.zeros_like(g)
        for b, p in enumerate(perm):  # source bit b to bit p (hcube permute --perm)
            r |= ((g >> b) & 1) << p
        return r
    return dest


def data(shape: Tuple[int, ...], dtype: Any, seed: int) -> npt.NDArray[Any]:
    """The same random bits on every rank (NaNs included: the comparison is of bytes)."""
    t = np.dtype(dtype)
    raw = np.random.default_rng(seed).integers(0, 256, size=int(np.prod(shape)) * t.itemsize, dtype=np.uint8)
    result: npt.NDArray[Any] = raw.view(t).reshape(shape)
    return result


def same(x: npt.NDArray[Any], y: npt.NDArray[Any]) -> bool:
    return x.shape == y.shape and x.dtype == y.dtype and \
        np.ascontiguousarray(x).tobytes() == np.ascontiguousarray(y).tobytes()


def check() -> List[str]:
    failures: List[str] = []
    runs = 0
    for k, dtype in enumerate(DTYPES):
        cases: List[Tuple[str, Any, npt.NDArray[Any], Any]] = []
        a = data((16, 16), dtype, k)
        for alg in (1, 4, "edelman"):
            cases.append((f"AapcPlan(algorithm={alg})", hcube.AapcPlan(a.shape, dtype, alg), a, transpose(4)))
        b = data((16, 8), dtype, 10 + k)
        for fused in (True, False):
            cases.append((f"PermutePlan(bit-reversal, fused={fused})",
                          hcube.PermutePlan(b.shape, dtype, "bit-reversal", fused=fused), b, reversal(7)))
        cycle = [0, 1, 2, 3, 5, 6, 4, 7]  # a real cycle of order 3 on processor bits 0..2: the n-port algorithms'
        for effort in ("estimate", "patient"):
            cases.append((f"PermutePlan(A1, ports=all, effort={effort})",
                          hcube.PermutePlan(a.shape, dtype, cycle, algorithm="A1", ports="all", effort=effort), a,
                          bits(cycle)))
        c = data((4, 8, 2, 4), dtype, 20 + k)
        axes = (1, 0, 3, 2, 4, 7, 5, 6)
        cases.append((f"PermutePlan(axes={axes})", hcube.PermutePlan(c.shape, dtype, axes=axes), c,
                       c.reshape((2,) * 8).transpose(axes).reshape(c.shape)))
        e = data((2, 64, 2), dtype, 30 + k)  # on 4 ranks axis 0 does not split: each rank holds a flat block
        cases.append(("PermutePlan(axes=reversed)", hcube.PermutePlan(e.shape, dtype, axes=tuple(range(7, -1, -1))), e,
                      e.reshape((2,) * 8).transpose(tuple(range(7, -1, -1))).reshape(e.shape)))
        for name, plan, x, expect in cases:
            want = block(moved(x, expect) if callable(expect) else expect)
            share = block(x)
            got = hcube.mpi.execute(plan, comm, share)
            runs += 1
            if not same(got, want) or hcube.mpi.share_shape(plan, comm) != share.shape:
                failures.append(f"{name} {np.dtype(dtype)}: rank {rank} differs")
        # A plan reused: new data, a Fortran-ordered share, then in place on the share itself (out=share).
        name, plan, x, expect = cases[0]
        for seed in (100 + k, 200 + k):
            y = data(x.shape, dtype, seed)
            share = np.asfortranarray(block(y)) if seed < 200 else block(y).copy()
            got = hcube.mpi.execute(plan, comm, share, out=share if seed >= 200 else None)
            runs += 1
            if not same(got, block(moved(y, expect))) or (seed >= 200 and got is not share):
                failures.append(f"{name} {np.dtype(dtype)} reused (seed {seed}): rank {rank} differs")
    return failures if failures else [f"ok: {runs} runs"]


def errors() -> List[str]:
    """One line for each bad call: the error every rank raised (the same on all)."""
    plan = hcube.AapcPlan((16, 16), np.float64)
    good = np.zeros((16 // size, 16))  # 3 ranks too: every call raises why
    calls: List[Callable[[], Any]] = [
        lambda: hcube.mpi.execute(plan, comm, good[:1] if rank == size - 1 else good),
        lambda: hcube.mpi.execute(plan, comm, good.astype(np.float32)),
        lambda: hcube.mpi.execute(hcube.AapcPlan((2, 8), np.float64, d=1), comm, np.zeros((1, 8))),
        lambda: hcube.mpi.execute(hcube.FftPlan(16), comm, good),  # type: ignore[arg-type]
    ]
    lines: List[str] = []
    for call in calls:
        try:
            call()
            lines.append("no error")
        except (ValueError, TypeError) as e:
            lines.append(f"{type(e).__name__}: {e}")
    return lines


if __name__ == "__main__":
    mine = errors() if sys.argv[1:] == ["errors"] else check()
    every = comm.gather(mine, root=0)
    if rank == 0:
        assert every is not None
        first = every[0]
        lines = first if all(lines == first for lines in every) or sys.argv[1:] != ["errors"] else \
            [f"rank {r}: {lines}" for r, lines in enumerate(every)]
        fails = [line for lines in every for line in lines if not line.startswith("ok")]
        print("\n".join(lines if sys.argv[1:] == ["errors"] else (fails or first)), flush=True)
        sys.exit(1 if fails and sys.argv[1:] != ["errors"] else 0)
