"""Reusable plans: made once, executed on many arrays, each answer NumPy's, bit for bit (the FFT to 1e-12)."""
from __future__ import annotations

import inspect
import threading
from typing import Any, List

import numpy as np
import numpy.typing as npt
import pytest

import hcube
from hcube import _plans


def numpy_permute(a: npt.NDArray[Any], axes: List[int]) -> npt.NDArray[Any]:
    return a.reshape((2,) * len(axes)).transpose(axes).reshape(a.shape)


@pytest.mark.parametrize("dtype", [np.int64, np.bool_, np.int8, np.uint16, np.float16, np.float32, np.complex128])
def test_permute_plan_reused_across_arrays(dtype: Any) -> None:
    axes = [4, 0, 6, 2, 1, 5, 3, 7]
    plan = hcube.PermutePlan((16, 16), dtype, axes=axes)
    assert plan.shape == (16, 16) and plan.dtype == np.dtype(dtype) and plan.n == 4 and plan.m == 4
    rng = np.random.default_rng(0)
    out = np.empty((16, 16), dtype)
    for k in range(5):
        a = rng.integers(0, 256, size=256 * np.dtype(dtype).itemsize, dtype=np.uint8)
        a = (a & 1 if np.dtype(dtype).kind == "b" else a).view(dtype).reshape(16, 16)
        want = numpy_permute(a, axes)
        got = plan.execute(a)
        assert got.dtype == a.dtype and np.array_equal(got.view(np.uint8), want.view(np.uint8))
        assert plan.execute(a.T.copy().T, out=out) is out  # a strided (Fortran) copy, into out
        assert np.array_equal(out.view(np.uint8), want.view(np.uint8))


def test_permute_plan_with_perm_and_flat_shape() -> None:
    plan = hcube.PermutePlan(64, np.int64, "bit-reversal", n=2)
    assert (plan.n, plan.m, plan.axes) == (2, 4, None)
    for seed in range(3):
        a = np.random.default_rng(seed).integers(-2 ** 62, 2 ** 62, size=64)
        np.testing.assert_array_equal(plan.execute(a), numpy_permute(a, list(range(6))[::-1]))


# Real cycles of orders 3 and 6 on the processor bits (Table 3's {3, 6}): bits m..m+2 and m+3..m+8 each move up one.
def cycles_3_6(m: int) -> List[int]:
    return list(range(m)) + [m + 1, m + 2, m] + [m + 4, m + 5, m + 6, m + 7, m + 8, m + 3]


def address_permute(a: npt.NDArray[Any], perm: List[int]) -> npt.NDArray[Any]:
    """The word at flat address g goes to the address whose bit perm[i] is g's bit i (hcube permute --perm)."""
    g = np.arange(a.size, dtype=np.int64)
    dest = np.zeros_like(g)
    for i, p in enumerate(perm):
        dest |= ((g >> i) & 1) << p
    out = np.empty_like(a).reshape(-1)
    out[dest] = a.reshape(-1)
    return out.reshape(a.shape)


@pytest.mark.parametrize("algorithm", ["A1", "A5", "A6"])
@pytest.mark.parametrize("effort", ["estimate", "patient"])
def test_permute_effort_gives_the_same_words(algorithm: str, effort: str) -> None:
    # The n-port algorithms' dealing of words to rows differs with the effort; the result may not.
    m = 3  # K = 8: patient planning takes milliseconds here (seconds at K >= 1024)
    perm = cycles_3_6(m)
    a = np.random.default_rng(7).integers(-2 ** 62, 2 ** 62, size=(2 ** 9, 2 ** m))
    want = address_permute(a, perm)
    q = 9 + m
    np.testing.assert_array_equal(want, a.reshape((2,) * q).transpose(
        [q - 1 - perm.index(q - 1 - k) for k in range(q)]).reshape(a.shape))  # the formula is NumPy's transpose
    plan = hcube.PermutePlan(a.shape, a.dtype, perm, algorithm=algorithm, ports="all", effort=effort)
    assert plan.effort == effort
    np.testing.assert_array_equal(plan.execute(a), want)
    np.testing.assert_array_equal(hcube.permute(a, perm, algorithm, ports="all", effort=effort), want)
    mach = hcube.Machine(9, m, a.dtype)
    np.testing.assert_array_equal(mach.load(a).permute(perm, algorithm, ports="all", effort=effort).read(), want)


def test_permute_effort_is_part_of_the_cached_plan() -> None:
    _plans.cached_permute_plan.cache_clear()
    a = np.arange(2 ** 11, dtype=np.uint32).reshape(2 ** 9, 4)
    for effort in ("estimate", "patient", "estimate"):
        hcube.permute(a, cycles_3_6(2), "A1", ports="all", effort=effort)
    info = _plans.cached_permute_plan.cache_info()
    assert (info.hits, info.misses) == (1, 2)


def test_effort_is_a_keyword_estimate_by_default() -> None:
    for f in (hcube.permute, hcube.PermutePlan.__init__, hcube.Machine.permute):
        p = inspect.signature(f).parameters["effort"]
        assert (p.kind, p.default) == (inspect.Parameter.KEYWORD_ONLY, "estimate"), f
    assert hcube.PermutePlan((4, 4), np.int8, axes=[1, 0, 3, 2]).effort == "estimate"


def test_a_bad_effort_is_refused() -> None:
    a = np.zeros((2 ** 9, 4), np.uint32)
    message = "effort='slow' unknown: allowed estimate, patient"
    with pytest.raises(ValueError, match=message):
        hcube.permute(a, cycles_3_6(2), ports="all", effort="slow")
    with pytest.raises(ValueError, match=message):
        hcube.PermutePlan(a.shape, a.dtype, cycles_3_6(2), ports="all", effort="slow")
    with pytest.raises(ValueError, match=message):
        hcube.Machine(9, 2).permute(cycles_3_6(2), ports="all", effort="slow")
    with pytest.raises(ValueError, match="effort='Patient' unknown"):  # the names are exact, as the CLI's
        hcube.permute(a, cycles_3_6(2), effort="Patient")


def test_aapc_plan_reused() -> None:
    plan = hcube.AapcPlan((32, 32), np.int64, algorithm="edelman")
    for seed in range(4):
        a = np.random.default_rng(seed).integers(-2 ** 62, 2 ** 62, size=(32, 32))
        np.testing.assert_array_equal(plan.execute(a), a.T)
    # A square machine is needed without d=; d= lifts it.
    with pytest.raises(ValueError, match=r"array has shape \(8, 16\): 2\^3 nodes of 2\^4 words is not square"):
        hcube.AapcPlan((8, 16), np.float32)
    assert hcube.AapcPlan((8, 16), np.float32, d=3).d == 3


def test_fft_plan_reused() -> None:
    plan = hcube.FftPlan(1024, np.float64, nodes_log2=4)
    assert plan.result_dtype == np.complex128 and plan.shape == (1024,)
    out = np.empty(1024, np.complex128)
    for seed in range(3):
        x = np.random.default_rng(seed).standard_normal(1024)
        want = np.fft.fft(x)
        assert np.max(np.abs(plan.execute(x) - want)) <= 1e-12 * np.max(np.abs(want))
        assert plan.execute(x, out=out) is out
        assert np.max(np.abs(out - want)) <= 1e-12 * np.max(np.abs(want))
    assert hcube.FftPlan((256,), np.complex64).nodes_log2 == 4  # left out: P // 2


def test_a_plan_refuses_arrays_of_another_shape_or_dtype() -> None:
    plan = hcube.PermutePlan((8, 8), np.int32, axes=[5, 4, 3, 2, 1, 0])
    with pytest.raises(ValueError, match=r"array has shape \(4, 16\): this plan is for shape \(8, 8\)"):
        plan.execute(np.zeros((4, 16), np.int32))
    with pytest.raises(TypeError, match=r"array has dtype <u4 \(uint32\): this plan is for <i4 \(int32\)"):
        plan.execute(np.zeros((8, 8), np.uint32))
    fplan = hcube.FftPlan(16, np.complex128)
    with pytest.raises(TypeError, match=r"array has dtype <f8 \(float64\): this plan is for <c16"):
        fplan.execute(np.zeros(16))


def test_functions_run_through_a_bounded_cache_of_plans() -> None:
    _plans.cached_permute_plan.cache_clear()
    a = np.arange(64, dtype=np.int64).reshape(8, 8)
    for _ in range(3):
        np.testing.assert_array_equal(hcube.permute(a, axes=[1, 0, 2, 3, 4, 5]), numpy_permute(a, [1, 0, 2, 3, 4, 5]))
    info = _plans.cached_permute_plan.cache_info()
    assert (info.hits, info.misses, info.maxsize) == (2, 1, 16)
    for k in range(20):  # 20 different shapes: the cache keeps the last 16
        hcube.permute(np.zeros(2 ** (k % 10 + 2), np.uint8 if k < 10 else np.uint16), axes=[0, 1][::-1] + list(range(2, k % 10 + 2)))
    assert _plans.cached_permute_plan.cache_info().currsize == 16


def test_threads_calling_the_functions_get_plans_of_their_own() -> None:
    # A plan runs one call at a time; the functions' cache is per thread, so threads never wait on each other.
    _plans.cached_permute_plan.cache_clear()
    a = np.arange(256, dtype=np.float32).reshape(16, 16)
    seen: List[Any] = []
    together = threading.Barrier(3)  # all alive at once, so that no thread id is reused

    def work() -> None:
        together.wait()
        hcube.permute(a, axes=list(range(8))[::-1])
        seen.append(_plans.permute_plan(a.shape, a.dtype, None, tuple(range(8))[::-1], "auto", False, "one",
                                        "estimate", None, None, "auto"))

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(p) for p in seen}) == 3  # three plans, one a thread
    assert _plans.cached_permute_plan.cache_info().hits >= 3


def test_one_plan_shared_by_threads() -> None:
    plan = hcube.PermutePlan((64, 64), np.float64, axes=list(range(12))[::-1])
    arrays = [np.random.default_rng(k).standard_normal((64, 64)) for k in range(8)]
    results: List[Any] = [None] * 8

    def work(k: int) -> None:
        results[k] = plan.execute(arrays[k])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, r in zip(arrays, results):
        np.testing.assert_array_equal(r, numpy_permute(a, list(range(12))[::-1]))


def test_plans_have_a_readable_repr() -> None:
    assert repr(hcube.PermutePlan((4, 4), np.int8, axes=[1, 0, 3, 2])) == (
        "hcube.PermutePlan(shape=(4, 4), dtype=int8, axes=[1, 0, 3, 2], n=2, m=2)")
    assert "d=2" in repr(hcube.AapcPlan((4, 4), np.int8))
    assert "nodes_log2=2" in repr(hcube.FftPlan(16))


def test_last_counters_are_the_papers_counts() -> None:
    # Algorithm 4's AAPC on d = 4: K/2 = 8 routing cycles, the two alignments, and every word moved
    # once across each dimension in which its node and its word address differ: 2^(2d) d / 2 hops.
    plan = hcube.AapcPlan((16, 16), np.uint32, 4)
    assert plan.last_counters == {}
    a = np.arange(256, dtype=np.uint32).reshape(16, 16)
    np.testing.assert_array_equal(plan.execute(a), a.T)
    c = plan.last_counters
    assert (c["routing_cycles"], c["alignments"], c["element_hops"]) == (8, 2, 256 * 4 // 2)
    assert c["bytes_read"] > 0 and c["bytes_written"] > 0
    # A permutation of at most one address bit moves nothing and counts nothing.
    still = hcube.PermutePlan(2, np.int8, axes=[0])
    still.execute(np.arange(2, dtype=np.int8))
    assert still.last_counters == {}


@pytest.mark.parametrize("effort", ["estimate", "patient"])
def test_last_counters_of_an_n_port_plan(effort: str) -> None:
    # Every word of a dimension permutation moves: as many hops as the bits it changes, over all words.
    perm = [3, 4, 5, 0, 1, 2, 6, 7]  # n = m = 4: the node's low three bits swap with the word's
    plan = hcube.PermutePlan((16, 16), np.uint64, perm, algorithm="A1", ports="all", effort=effort)
    a = np.arange(256, dtype=np.uint64).reshape(16, 16)
    got = plan.execute(a)
    src = np.arange(256)
    dst = np.zeros(256, np.int64)
    for i, p in enumerate(perm):
        dst |= ((src >> i) & 1) << p
    want = np.empty(256, np.uint64)
    want[dst] = a.reshape(-1)
    np.testing.assert_array_equal(got.reshape(-1), want)
    c = plan.last_counters
    assert c["routing_cycles"] > 0
    # Hops at least the node-bit distance each word travels (a node's words may take detours, never less).
    node_moves = sum(bin(int(x)).count("1") for x in ((src ^ dst) >> 4) & 0xF)
    assert c["element_hops"] >= node_moves
