"""hcube's Python API against NumPy as the oracle, bit for bit (the FFT to 1e-12)."""
from __future__ import annotations

import json
import math
import os
import threading
from pathlib import Path
from typing import Any, Dict, List, NoReturn, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt
import pytest

import hcube

TYPES = [np.uint32, np.int32, np.uint64, np.float32, np.float64, np.complex64, np.complex128]


def labelled(shape: Tuple[int, ...], dtype: Any, seed: int = 0) -> npt.NDArray[Any]:
    """Distinct values of `dtype` (a word's move is visible whatever it is)."""
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape))
    a = rng.permutation(size).astype(np.uint64) + 1
    if np.dtype(dtype).kind == "c":
        return (a + 1j * rng.permutation(size)).astype(dtype).reshape(shape)
    return a.astype(dtype).reshape(shape)


def perm_of_axes(axes: Sequence[int]) -> List[int]:
    """hcube's --perm for NumPy's transpose(axes) of the (2,)*q view (docs/api.md): p[q-1-axes[k]] = q-1-k."""
    q = len(axes)
    p = [0] * q
    for k, ax in enumerate(axes):
        p[q - 1 - ax] = q - 1 - k
    return p


def test_version() -> None:
    assert hcube.__version__.count(".") == 2


@pytest.mark.parametrize("seed", range(12))
def test_random_dimension_permutations_equal_numpy_transpose(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 4)), int(rng.integers(1, 5))
    q = n + m
    dtype = TYPES[seed % len(TYPES)]
    a = labelled((2 ** n, 2 ** m), dtype, seed)
    axes = list(rng.permutation(q))
    want = a.reshape((2,) * q).transpose(axes).reshape(2 ** n, 2 ** m)
    p = perm_of_axes(axes)
    for fused in (False, True):
        got = hcube.permute(a, p, fused=fused)
        assert got.dtype == a.dtype and got.shape == a.shape
        np.testing.assert_array_equal(got, want)
    # The same as text, on a flat array with n given.
    flat = hcube.permute(a.reshape(-1), ",".join(map(str, p)), n=n)
    np.testing.assert_array_equal(flat, want.reshape(-1))
    np.testing.assert_array_equal(a, labelled((2 ** n, 2 ** m), dtype, seed))  # the input is untouched


def axes_of_perm(p: Sequence[int]) -> List[int]:
    """NumPy's axes for hcube's --perm p (docs/api.md): axes[k] = q-1-pinv[q-1-k]."""
    q = len(p)
    pinv = [0] * q
    for i, t in enumerate(p):
        pinv[t] = i
    return [q - 1 - pinv[q - 1 - k] for k in range(q)]


# Each algorithm on permutations it applies to: A4-A6 need a separable one (no
# cycle mixing processor and memory bits), Edelman's schedule the bit reversal.
@pytest.mark.parametrize("algorithm,ports,perm", [
    ("auto", "one", "transpose"), ("A1", "one", "transpose"), ("A1'", "one", "bit-reversal"),
    ("A2", "one", "transpose"), ("A1", "all", "shuffle:2"), ("A4", "all", [2, 0, 1, 3, 5, 4]),
    ("A5", "all", [1, 2, 0, 5, 3, 4]), ("A6", "all", [0, 2, 1, 4, 3, 5]), ("Edelman", "all", "bit-reversal")])
def test_named_algorithms(algorithm: str, ports: str, perm: Union[str, List[int]]) -> None:
    a = labelled((8, 8), np.uint32)
    named = {"transpose": [3, 4, 5, 0, 1, 2], "bit-reversal": [5, 4, 3, 2, 1, 0],
             "shuffle:2": [(i + 2) % 6 for i in range(6)]}
    p = named[perm] if isinstance(perm, str) else perm
    want = a.reshape((2,) * 6).transpose(axes_of_perm(p)).reshape(8, 8)
    np.testing.assert_array_equal(hcube.permute(a, perm, algorithm=algorithm, ports=ports), want)
    np.testing.assert_array_equal(hcube.Machine(3, 3).load(a).permute(perm, algorithm, ports=ports).read(), want)


def test_shuffle() -> None:
    a = labelled((4, 8), np.int32)
    q = 5
    # shuffle:1 sends address bit i to bit (i + 1) mod q: axis k of the (2,)*q view to axis k - 1.
    got = hcube.permute(a, "shuffle:1")
    p = [(i + 1) % q for i in range(q)]
    axes = [0] * q
    for i in range(q):
        axes[q - 1 - p[i]] = q - 1 - i
    np.testing.assert_array_equal(got.reshape(-1), a.reshape((2,) * q).transpose(axes).reshape(-1))


@pytest.mark.parametrize("algorithm", [1, 2, 3, 4, "edelman", "sex", "dex"])
@pytest.mark.parametrize("d", [1, 3, 4])
def test_aapc_is_the_transpose(algorithm: Union[int, str], d: int) -> None:
    a = labelled((2 ** d, 2 ** d), np.float64, d)
    np.testing.assert_array_equal(hcube.aapc(a, algorithm=algorithm), a.T)


@pytest.mark.parametrize("P,n", [(1, 0), (4, 2), (10, 3), (11, 5), (12, 6)])
def test_fft_equals_numpy(P: int, n: int) -> None:
    rng = np.random.default_rng(P)
    x = rng.standard_normal(2 ** P) + 1j * rng.standard_normal(2 ** P)
    want = np.fft.fft(x)
    got = hcube.fft(x, nodes_log2=n)
    assert got.dtype == np.complex128 and got.shape == x.shape
    assert np.max(np.abs(got - want)) <= 1e-12 * np.max(np.abs(want))
    # bit-reversed order: X[rev k] at k.
    rev = [int(format(k, "0{}b".format(P))[::-1], 2) for k in range(2 ** P)]
    got_rev = hcube.fft(x, nodes_log2=n, order="bit-reversed")
    assert np.max(np.abs(got_rev - want[rev])) <= 1e-12 * np.max(np.abs(want))


def test_fft_complex64() -> None:
    x = (np.arange(256) % 7 - 3.0 + 1j).astype(np.complex64)
    got = hcube.fft(x, nodes_log2=3)
    assert got.dtype == np.complex64
    want = np.fft.fft(x.astype(np.complex128))
    assert np.max(np.abs(got - want)) <= 1e-5 * np.max(np.abs(want))


def cyclic(a: npt.NDArray[Any], procs: int, block: int) -> npt.NDArray[Any]:
    """The flat array a in cyclic(block) on procs processors, written from the definition: element g
    is in block b = g // block, owned by processor b mod procs at local position (b // procs) block +
    g mod block; the rows are N / procs long (any hole stays zero)."""
    want = np.zeros((procs, a.size // procs), dtype=a.dtype)
    for g in range(a.size):
        b = g // block
        want[b % procs, (b // procs) * block + g % block] = a[g]
    return want


@pytest.mark.parametrize("P,Q,K,x,supers", [(2, 2, 1, 1, 1), (4, 2, 2, 1, 3), (3, 5, 2, 2, 1), (6, 4, 3, 1, 2),
                                              (5, 3, 1, 4, 1)])
def test_redistribution_places_every_element_by_the_closed_form(P: int, Q: int, K: int, x: int, supers: int) -> None:
    # Whole superblocks of L = lcm(P, KQ) blocks of x elements.
    N = supers * math.lcm(P, K * Q) * x
    a = labelled((N,), np.uint64, P + Q)
    out = hcube.redistribute(a, P=P, Q=Q, K=K, x=x)
    assert out.shape == (Q, N // Q) and out.dtype == a.dtype
    np.testing.assert_array_equal(out, cyclic(a, Q, K * x))


@pytest.mark.parametrize("P,Q,K,x", [(2, 2, 1, 1), (4, 2, 2, 1), (3, 5, 2, 2)])
def test_reverse_redistribution_places_every_element_by_cyclic_x(P: int, Q: int, K: int, x: int) -> None:
    # Backwards: the P receivers hold cyclic(x).
    N = 2 * math.lcm(P, K * Q) * x
    a = labelled((N,), np.uint32, P * Q)
    out = hcube.redistribute(a, P=P, Q=Q, K=K, x=x, reverse=True, overlap=True)
    assert out.shape == (P, N // P)
    np.testing.assert_array_equal(out, cyclic(a, P, x))


@pytest.mark.parametrize("P,Q,x,y", [(2, 3, 2, 3), (3, 2, 4, 6), (4, 4, 6, 4), (5, 3, 2, 2)])
def test_redistribution_to_any_block_size(P: int, Q: int, x: int, y: int) -> None:
    N = 2 * math.lcm(P * x, Q * y)
    a = labelled((N,), np.uint32, P + Q)
    out = hcube.redistribute(a, P=P, Q=Q, x=x, y=y)
    assert out.shape == (Q, N // Q)
    np.testing.assert_array_equal(out, cyclic(a, Q, y))
    with pytest.raises(ValueError, match="give K .* or y .*not both"):
        hcube.redistribute(a, P=P, Q=Q, K=1, x=x, y=y)
    with pytest.raises(ValueError, match="y = 0 out of range"):
        hcube.redistribute(a, P=P, Q=Q, x=x, y=0)


def test_machine_load_read_and_counters() -> None:
    a = labelled((16, 16), np.uint32)
    mach = hcube.Machine(4, 4, dtype=np.uint32, backend="cpu")
    assert (mach.n, mach.m, mach.dtype, mach.backend) == (4, 4, np.dtype(np.uint32), "cpu")
    mach.load(a)
    np.testing.assert_array_equal(mach.read(), a)
    mach.aapc(algorithm=4)
    np.testing.assert_array_equal(mach.read(), a.T)
    c = mach.counters
    for key in ("routing_cycles", "element_hops", "kernel_launches", "alignments", "bytes_read", "bytes_written"):
        assert key in c
    assert c["routing_cycles"] == 8  # Algorithm 4: K/2 cycles
    mach.permute("transpose")
    np.testing.assert_array_equal(mach.read(), a)
    mach.load(a.reshape(-1))  # flat works too
    np.testing.assert_array_equal(mach.read(), a)


def test_machine_cycle_and_align_against_numpy() -> None:
    n, m = 3, 3
    a = labelled((8, 8), np.int32)
    mach = hcube.Machine(n, m, dtype=np.int32).load(a)
    # Node j with bit `dim` clear swaps its word addr with word peer of node j xor 2^dim.
    exchanges: List[Tuple[int, ...]] = [(0, 1, 2), (2, 5)]
    mach.cycle(exchanges)
    want = a.copy()
    for dim, addr, *rest in exchanges:
        peer = rest[0] if rest else addr
        for j in range(2 ** n):
            if not j >> dim & 1:
                k = j ^ (1 << dim)
                want[j, addr], want[k, peer] = a[k, peer], a[j, addr]
    np.testing.assert_array_equal(mach.read(), want)
    assert mach.counters["routing_cycles"] == 1
    # Processor bit 0 xored onto memory bit 1: word i of node j goes to i xor (j & 1) << 1.
    mach.load(a).align(xor_proc=[0], xor_mem=[1])
    want = np.empty_like(a)
    for j in range(8):
        for i in range(8):
            want[j, i ^ ((j & 1) << 1)] = a[j, i]
    np.testing.assert_array_equal(mach.read(), want)


def test_schedule_document() -> None:
    s = hcube.schedule(4, 3)
    assert s["format"] == "hcube-schedule/1"
    assert s["d"] == 3 and len(s["cycles"]) == 4  # K/2 cycles
    assert json.loads(json.dumps(s)) == s
    assert hcube.schedule("edelman", 2)["format"] == "hcube-schedule/1"
    assert hcube.schedule(4, 2, n=3, m=4)["m"] == 4
    # -1 is a value, never "left out": its range error, as the command line gives it.
    with pytest.raises(ValueError, match="n = -1"):
        hcube.schedule(4, 2, n=-1)


def _longest_address_span(s: Dict[str, Any]) -> int:
    first: Dict[int, int] = {}
    last: Dict[int, int] = {}
    for t, cycle in enumerate(s["cycles"]):
        for e in cycle:
            for a in {int(e["addr"]), int(e.get("peer_addr", e["addr"]))}:
                first.setdefault(a, t)
                last[a] = t
    return max(last[a] - first[a] + 1 for a in first)


def test_schedule_pair_order() -> None:
    # Algorithm 2 at d = 4 (K = 16): Table 5's order spans K/2 = 8 cycles for a wrapping
    # pair's address, the split order d = 4; both run the K/2 cycles.
    split, table5 = hcube.schedule(2, 4), hcube.schedule(2, 4, pair_order="table5")
    assert len(split["cycles"]) == len(table5["cycles"]) == 8
    assert _longest_address_span(split) == 4
    assert _longest_address_span(table5) == 8
    with pytest.raises(ValueError, match="pair order 'zigzag' unknown"):
        hcube.schedule(2, 4, pair_order="zigzag")


def test_animate_page() -> None:
    page = hcube.animate("aapc", dims=2, algorithm=4)
    assert isinstance(page, hcube.Animation)
    assert page.verified and page.nodes == 4 and page.routing_cycles == 2
    assert 'id="hcube-data"' in page.html
    html = page._repr_html_()
    assert html.startswith("<iframe srcdoc=") and "&lt;!DOCTYPE html&gt;" in html
    same = hcube.animate("aapc -d 2 -a 4")
    assert same is not None and same.steps == page.steps


def test_animate_side_by_side() -> None:
    # Johnsson & Ho's Table 6 at d = 3: Algorithm 1 takes d ceil(K/2d) = 6 cycles, Algorithm 4 K/2 = 4.
    page = hcube.animate("aapc", dims=3, algorithm="1,4")
    assert page is not None and page.verified
    assert [(m["algorithm"], m["routing_cycles"]) for m in page.machines] == [("1", 6), ("4", 4)]
    assert page.html.count('"narration":') == 9 + 7  # every step of both runs says what it does


def test_animate_save(tmp_path: Path) -> None:
    page = hcube.animate("permute", "-n", "2", "-m", "2", "--perm", "bit-reversal")
    assert page is not None
    path = page.save(tmp_path / "p.html")
    assert (tmp_path / "p.html").read_text().startswith("<!DOCTYPE html>")
    assert str(path).endswith("p.html")


def test_gil_is_released_while_the_machine_runs() -> None:
    # Threads running the library at once finish with the right answers.
    a = labelled((2 ** 6, 2 ** 8), np.uint32)
    want = a.reshape((2,) * 14).transpose(range(13, -1, -1)).reshape(a.shape)
    results = [None] * 4

    def work(i: int) -> None:
        results[i] = hcube.permute(a, "bit-reversal")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        np.testing.assert_array_equal(r, want)
    # One machine shared by threads runs their steps one at a time: 20 transposes are the identity.
    sq = labelled((2 ** 5, 2 ** 5), np.uint64)
    mach = hcube.Machine(5, 5, dtype=np.uint64).load(sq)

    def transposes() -> None:
        for _ in range(5):
            mach.aapc()

    threads = [threading.Thread(target=transposes) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_array_equal(mach.read(), sq)
    assert mach.counters["routing_cycles"] == 20 * 16


# --- bad input: the command line's one-line messages -------------------------

def test_bad_dtype() -> None:
    # Any fixed-size dtype of 1, 2, 4, 8 or 16 bytes runs (test_numpy_conventions.py); these do not.
    with pytest.raises(TypeError, match="holds Python objects: hcube moves the bits of fixed-size elements"):
        hcube.permute(np.zeros((4, 4), object), axes=[1, 0, 3, 2])
    with pytest.raises(TypeError, match="has 3-byte elements"):
        hcube.aapc(np.zeros((4, 4), "V3"))
    with pytest.raises(TypeError, match="has 32-byte elements"):
        hcube.Machine(2, 2, dtype="V32")
    with pytest.raises(TypeError, match=r"dtype <f8 \(float64\) does not match the machine's <u4 \(uint32\)"):
        hcube.Machine(2, 2).load(np.zeros((4, 4)))
    with pytest.raises(TypeError, match="fft takes complex64 or complex128 points, or real ones"):
        hcube.fft(np.zeros(16, "V8"), nodes_log2=1)


def test_bad_shape_and_order() -> None:
    with pytest.raises(ValueError, match=r"array has shape \(3, 4\): a machine's state is \(2\^n, 2\^m\)"):
        hcube.permute(np.zeros((3, 4), np.uint32), "transpose")
    with pytest.raises(ValueError, match="a flat array does not say how its 2\\^4 words split"):
        hcube.permute(np.zeros(16, np.uint32), "transpose")
    with pytest.raises(ValueError, match=r"array has shape \(16,\): n = 7 out of range: allowed 0..4"):
        hcube.permute(np.zeros(16, np.uint32), "transpose", n=7)
    with pytest.raises(ValueError, match=r"array: shape \(16,\) does not fit a machine of 2\^1 nodes x 2\^2 words"):
        hcube.permute(np.zeros(16, np.uint32), "bit-reversal", n=1, m=2)
    with pytest.raises(ValueError, match=r"shape \(8, 4\) does not fit a machine of 2\^2 nodes x 2\^2 words"):
        hcube.Machine(2, 2).load(np.zeros((8, 4), np.uint32))
    # Column-major and strided arrays are taken (test_numpy_conventions.py); a shape aapc cannot take is not.
    with pytest.raises(ValueError, match=r"array has shape \(8, 16\): 2\^3 nodes of 2\^4 words is not square.*give d="):
        hcube.aapc(np.zeros((8, 16), np.uint32))


def test_bad_options() -> None:
    a = np.zeros((4, 4), np.uint32)
    with pytest.raises(ValueError, match="algorithm='A9' unknown: allowed"):
        hcube.permute(a, "transpose", algorithm="A9")
    with pytest.raises(ValueError, match="algorithm='A4' is an n-port algorithm: it needs ports='all'"):
        hcube.permute(a, "transpose", algorithm="A4")
    with pytest.raises(ValueError, match="perm"):
        hcube.permute(a, [0, 0, 1, 2])
    with pytest.raises(ValueError):
        hcube.aapc(a, algorithm=7)
    with pytest.raises(ValueError, match="nodes_log2=4: 2\\^4 nodes for 2\\^4 points"):
        hcube.fft(np.zeros(16, complex), nodes_log2=4)
    with pytest.raises(ValueError, match="N = 10 is not a multiple of the block size x = 4"):
        hcube.redistribute(np.zeros(10, np.uint32), P=2, Q=2, K=1, x=4)
    with pytest.raises(ValueError):
        hcube.Machine(2, 2).cycle("5:0")
    with pytest.raises(ValueError, match="hcube animate fft: allowed commands"):
        hcube.animate("fft")
    with pytest.raises(ValueError, match="draws cubes of at most d = 8"):
        hcube.animate("aapc", dims=9)
    with pytest.raises(ValueError, match="backend"):
        hcube.Machine(2, 2, backend="tpu")


# --- device arrays -----------------------------------------------------------

def skip_for_want_of_cuda(why: str) -> NoReturn:
    """pytest.skip saying why, or a failure when HCUBE_REQUIRE_CUDA (set, not empty or "0") requires the GPU
    tests to run: scripts/gpu_check.sh sets it, as the C++ tests' tests/support/require.hpp reads it."""
    if os.environ.get("HCUBE_REQUIRE_CUDA", "") not in ("", "0"):
        pytest.fail(f"HCUBE_REQUIRE_CUDA is set, so this test must run, but it cannot: {why}")
    pytest.skip(why)


def cudart() -> Any:
    """The CUDA runtime through ctypes and the number of GPUs, or skip_for_want_of_cuda saying why not."""
    import ctypes
    import ctypes.util
    if not hcube._hcube.cuda_built():
        skip_for_want_of_cuda("hcube was built without CUDA (pip install . builds it where nvcc and a GPU driver are "
                              "found, or with -Ccmake.define.HCUBE_ENABLE_CUDA=ON)")
    names = [ctypes.util.find_library("cudart"), "libcudart.so", "/usr/local/cuda/lib64/libcudart.so"]
    for name in filter(None, names):
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    else:
        skip_for_want_of_cuda("no CUDA runtime library (libcudart) to allocate device memory with")
    count = ctypes.c_int(0)
    if lib.cudaGetDeviceCount(ctypes.byref(count)) != 0 or count.value < 1:
        skip_for_want_of_cuda("no GPU: the device-array path is not exercised")
    return lib


def test_gpu_tests_fail_when_cuda_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a usable GPU the device tests skip, unless HCUBE_REQUIRE_CUDA=1 requires them: then they fail."""
    monkeypatch.setenv("HCUBE_REQUIRE_CUDA", "1")
    try:
        cudart()
        return  # a usable GPU: nothing is skipped
    except pytest.fail.Exception as e:
        assert "HCUBE_REQUIRE_CUDA is set" in str(e)
    monkeypatch.setenv("HCUBE_REQUIRE_CUDA", "0")
    with pytest.raises(pytest.skip.Exception):
        cudart()


def cuda_device_present() -> bool:
    """Whether hcube's CUDA backend finds a device here."""
    try:
        hcube.Machine(1, 1, backend="cuda")
        return True
    except ValueError:
        return False


class DeviceArray:
    """Device memory behind __cuda_array_interface__ (version 3), as CuPy exposes it, without CuPy."""

    def __init__(self, lib: Any, host: Optional[npt.NDArray[Any]] = None, like: Optional["DeviceArray"] = None) -> None:
        import ctypes
        self._lib, self._c = lib, ctypes
        src: Any = host if host is not None else like
        self.shape: Tuple[int, ...] = src.shape
        self.dtype: np.dtype[Any] = src.dtype
        self.nbytes: int = src.nbytes
        self.ptr = ctypes.c_void_p()
        assert lib.cudaMalloc(ctypes.byref(self.ptr), ctypes.c_size_t(self.nbytes)) == 0
        if host is not None:  # cudaMemcpyHostToDevice
            assert lib.cudaMemcpy(self.ptr, host.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(self.nbytes), 1) == 0
        else:  # cudaMemcpyDeviceToDevice
            assert like is not None and lib.cudaMemcpy(self.ptr, like.ptr, ctypes.c_size_t(self.nbytes), 3) == 0

    @property
    def __cuda_array_interface__(self) -> Dict[str, Any]:
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.ptr.value, False), "version": 3,
                "strides": None, "stream": 1}

    def copy(self) -> "DeviceArray":
        return DeviceArray(self._lib, like=self)

    def get(self) -> npt.NDArray[Any]:
        out = np.empty(self.shape, self.dtype)
        c = self._c
        assert self._lib.cudaMemcpy(out.ctypes.data_as(c.c_void_p), self.ptr, c.c_size_t(self.nbytes), 2) == 0
        return out

    def __del__(self) -> None:
        self._lib.cudaFree(self.ptr)


class HostInterface:
    """__cuda_array_interface__ over host memory: enough to check what is done before any device access."""

    def __init__(self, a: npt.NDArray[Any], strides: Optional[Tuple[int, ...]] = None) -> None:
        self._a, self.shape, self.dtype, self._strides = a, a.shape, a.dtype, strides

    @property
    def __cuda_array_interface__(self) -> Dict[str, Any]:
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self._a.ctypes.data, False),
                "version": 3, "strides": self._strides}


def test_device_arrays_are_checked_like_host_arrays() -> None:
    a = np.zeros((8, 8), np.uint32)
    with pytest.raises(ValueError, match="a strided device array is not supported; convert it with "
                                         "np.ascontiguousarray"):
        hcube.aapc(HostInterface(a, strides=(4, 32)))
    # Device memory is not widened: 1- and 2-byte elements there are refused, saying why.
    with pytest.raises(TypeError, match=r"dtype \|i1 of 1 bytes: the machine moves words of 4, 8 or 16 bytes"):
        hcube.aapc(HostInterface(np.zeros((8, 8), np.int8)))
    with pytest.raises(ValueError, match=r"array has shape \(3, 8\)"):
        hcube.permute(HostInterface(np.zeros((3, 8), np.uint32)), "transpose")
    with pytest.raises(TypeError, match="Machine.load takes a NumPy array"):
        hcube.Machine(3, 3).load(HostInterface(a))
    if not hcube._hcube.cuda_built():
        # A device array asks for the CUDA backend, which this build lacks: one line saying so.
        with pytest.raises(ValueError, match="backend cuda requested but unavailable: this build has no CUDA backend"):
            hcube.aapc(HostInterface(a))


def test_device_arrays_in_place_on_the_device() -> None:
    lib = cudart()
    a = labelled((2 ** 5, 2 ** 5), np.uint32)
    d = DeviceArray(lib, a)
    got = hcube.aapc(d)
    assert isinstance(got, DeviceArray) and got.ptr.value != d.ptr.value
    np.testing.assert_array_equal(got.get(), a.T)
    np.testing.assert_array_equal(d.get(), a)  # the input is untouched
    axes = [3, 0, 7, 1, 9, 2, 4, 8, 5, 6]
    got = hcube.permute(d, perm_of_axes(axes), fused=True)
    np.testing.assert_array_equal(got.get(), a.reshape((2,) * 10).transpose(axes).reshape(a.shape))


def test_cupy_arrays_in_place_on_the_device() -> None:
    cudart()
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed: CuPy arrays are not exercised")
    a = labelled((2 ** 5, 2 ** 5), np.complex128)
    d = cupy.asarray(a)
    got = hcube.aapc(d)
    assert isinstance(got, cupy.ndarray)
    np.testing.assert_array_equal(cupy.asnumpy(got), a.T)
    with pytest.raises(ValueError, match="np.ascontiguousarray"):
        hcube.aapc(cupy.asfortranarray(d))


# --- DLPack -------------------------------------------------------------------
class DLPackOnly:
    """An array seen through DLPack only (__dlpack__, __dlpack_device__), as a PyTorch or JAX array is:
    NumPy's capsule of host memory, reported on `device` (1: CPU; 2: CUDA, to check what is done
    before any device access)."""

    def __init__(self, a: npt.NDArray[Any], device: int = 1, device_id: int = 0) -> None:
        self._a, self._device, self._id = a, device, device_id

    def __dlpack_device__(self) -> Tuple[int, int]:
        return (self._device, self._id)

    def __dlpack__(self, stream: Any = None) -> Any:
        return self._a.__dlpack__()

    def clone(self) -> "DLPackOnly":
        return DLPackOnly(self._a.copy(), self._device, self._id)


def test_host_dlpack_arrays_are_read_in_place() -> None:
    a = labelled((2 ** 4, 2 ** 5), np.uint64)
    axes = [8, 0, 3, 1, 7, 2, 4, 6, 5]
    want = a.reshape((2,) * 9).transpose(axes).reshape(2 ** 4, 2 ** 5)
    src = DLPackOnly(a)
    got = hcube.permute(src, perm_of_axes(axes))
    # The result is the input's kind (its clone(), as a PyTorch tensor's), permuted; the input is untouched.
    assert isinstance(got, DLPackOnly) and got._a is not a
    np.testing.assert_array_equal(got._a, want)
    np.testing.assert_array_equal(a, labelled((2 ** 4, 2 ** 5), np.uint64))
    np.testing.assert_array_equal(hcube.aapc(DLPackOnly(labelled((8, 8), np.float64)))._a,
                                  labelled((8, 8), np.float64).T)
    # fft and redistribute read host DLPack arrays too.
    x = (labelled((64,), np.float64) + 1j * labelled((64,), np.float64)[::-1]).astype(np.complex128)
    np.testing.assert_allclose(hcube.fft(DLPackOnly(x), 2), np.fft.fft(x), rtol=1e-12, atol=1e-9)
    flat = labelled((48,), np.uint32)
    np.testing.assert_array_equal(hcube.redistribute(DLPackOnly(flat), 2, 3, 2, 1),
                                  hcube.redistribute(flat, 2, 3, 2, 1))
    # Machine.load reads the capsule's memory itself (hcube._hcube's DLPack consumer).
    mach = hcube.Machine(4, 5, dtype=np.uint64)
    mach.load(DLPackOnly(a))
    np.testing.assert_array_equal(mach.read(), a)
    mach.load(DLPackOnly(a.ravel()[::-1].copy()))  # flat, as a host array may be
    np.testing.assert_array_equal(mach.read(), a.ravel()[::-1].reshape(a.shape))


def test_dlpack_arrays_are_checked_like_the_others() -> None:
    a = np.zeros((8, 8), np.uint32)
    # A host array behind DLPack is taken as NumPy takes it: any strides, any fixed-size dtype.
    f = labelled((8, 8), np.uint32)
    np.testing.assert_array_equal(hcube.Machine(3, 3).load(DLPackOnly(np.asfortranarray(f))).read(), f)
    with pytest.raises(TypeError, match=r"dtype <i2 \(int16\) does not match the machine's <u4 \(uint32\)"):
        hcube.Machine(3, 3).load(DLPackOnly(np.zeros((8, 8), np.int16)))
    with pytest.raises(ValueError, match=r"shape \(3, 8\) does not fit a machine of 2\^3 nodes x 2\^3 words"):
        hcube.Machine(3, 3).load(DLPackOnly(np.zeros((3, 8), np.uint32)))
    # Reported on a CUDA device: a device array, checked before any device access.
    with pytest.raises(ValueError, match="a strided device array is not supported"):
        hcube.aapc(DLPackOnly(np.asfortranarray(labelled((8, 8), np.uint32)), device=2))
    with pytest.raises(ValueError, match="on device type 4"):
        hcube.Machine(3, 3).load(DLPackOnly(a, device=4))
    # A CUDA tensor runs on the CUDA backend: where there is none, the one-line reason, before any device access.
    if not hcube._hcube.cuda_built():
        with pytest.raises(ValueError, match="backend cuda requested but unavailable: this build has no CUDA backend"):
            hcube.aapc(DLPackOnly(a, device=2))
    elif not cuda_device_present():
        with pytest.raises(ValueError, match="backend cuda requested but unavailable: no usable CUDA device"):
            hcube.aapc(DLPackOnly(a, device=2))


class DLPackAndInterface(DLPackOnly):
    """Both protocols, as a PyTorch CUDA tensor has: DLPack must be the one read (its stream argument orders
    the producer's work first; PyTorch's __cuda_array_interface__ names no stream)."""
    interface_read = False

    @property
    def __cuda_array_interface__(self) -> Dict[str, Any]:
        DLPackAndInterface.interface_read = True
        return {"shape": self._a.shape, "typestr": self._a.dtype.str, "data": (self._a.ctypes.data, False),
                "version": 2, "strides": None}

    def clone(self) -> "DLPackAndInterface":
        return DLPackAndInterface(self._a.copy(), self._device)


def test_dlpack_is_read_before_the_cuda_array_interface() -> None:
    a = labelled((2 ** 3, 2 ** 3), np.uint32)
    got = hcube.aapc(DLPackAndInterface(a))  # a host array by DLPack: runs on the CPU
    np.testing.assert_array_equal(got._a, a.T)
    assert not DLPackAndInterface.interface_read


def test_a_cuda_array_on_a_cpu_plan_is_refused_before_any_device_access() -> None:
    a = np.zeros((8, 8), np.uint32)
    with pytest.raises(ValueError, match=r"a CUDA array \(device 0\) given to a plan on the cpu backend"):
        hcube.aapc(DLPackOnly(a, device=2), backend="cpu")


def test_torch_cuda_tensors_follow_the_current_stream() -> None:
    """Work pending on torch's current stream is ordered before hcube's (DLPack's stream argument)."""
    cudart()
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: DLPack device tensors are not exercised")
    if not torch.cuda.is_available():
        skip_for_want_of_cuda("PyTorch has no CUDA device: DLPack device tensors are not exercised")
    a = labelled((2 ** 7, 2 ** 7), np.float32)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        big = torch.randn(4096, 4096, device="cuda")
        for _ in range(20):  # keeps the stream busy, so that an unordered read would see the clone unwritten
            big = big @ big * 1e-3
        x = torch.from_numpy(a).cuda(non_blocking=False).clone()
        got = hcube.aapc(x)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(got.cpu().numpy(), a.T)


def test_misaligned_and_foreign_device_arrays_are_refused_on_the_device() -> None:
    lib = cudart()
    if not cuda_device_present():
        skip_for_want_of_cuda("hcube's CUDA backend finds no device")
    a = labelled((2 ** 4, 2 ** 4), np.uint32)
    d = DeviceArray(lib, np.concatenate([np.zeros(1, np.uint32), a.ravel()]))

    class Slice(DeviceArray):  # the words after the first: 4 bytes past cudaMalloc's alignment
        def __init__(self, whole: DeviceArray) -> None:
            self._lib, self._c, self._whole = whole._lib, whole._c, whole
            self.shape, self.dtype, self.nbytes = a.shape, a.dtype, a.nbytes
            self.ptr = whole._c.c_void_p((whole.ptr.value or 0) + 4)

        def __del__(self) -> None:
            pass

    # hcube.aapc copies its input into fresh memory; a plan executes on the caller's array itself.
    plan = hcube._hcube.aapc_plan("4", 4, 4, 4, "transpose", "<u4", "cuda")
    with pytest.raises(ValueError, match="is not aligned to 16 bytes"):
        plan.execute(Slice(d))
    # A DLPack array said to be on another device than the plan's, before any access to it.
    with pytest.raises(ValueError, match="lives on CUDA device 7: this plan runs on device 0"):
        hcube.aapc(DLPackOnly(a, device=2, device_id=7))
    # The context is sound after the refusals.
    np.testing.assert_array_equal(hcube.aapc(DeviceArray(lib, a)).get(), a.T)


def test_torch_cuda_tensors_in_place_on_the_device() -> None:
    cudart()
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: DLPack device tensors are not exercised")
    if not torch.cuda.is_available():
        skip_for_want_of_cuda("PyTorch has no CUDA device: DLPack device tensors are not exercised")
    a = labelled((2 ** 5, 2 ** 5), np.float32)
    d = torch.from_numpy(a).cuda()
    got = hcube.aapc(d)
    assert isinstance(got, torch.Tensor) and got.is_cuda
    np.testing.assert_array_equal(got.cpu().numpy(), a.T)
    np.testing.assert_array_equal(d.cpu().numpy(), a)


def test_torch_cpu_tensors_in_place() -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: its DLPack producer is not exercised")
    a = labelled((2 ** 4, 2 ** 4), np.int32)
    t = torch.from_numpy(a.copy())
    got = hcube.aapc(t)
    assert isinstance(got, torch.Tensor)
    np.testing.assert_array_equal(got.numpy(), a.T)
    np.testing.assert_array_equal(t.numpy(), a)
    mach = hcube.Machine(4, 4, dtype=np.int32)
    np.testing.assert_array_equal(mach.load(t).read(), a)
    # Strided and int64 tensors are taken as NumPy takes them (a strided one gives a NumPy array).
    np.testing.assert_array_equal(np.asarray(hcube.aapc(t.T)), a)
    np.testing.assert_array_equal(hcube.aapc(t.to(torch.int64)).numpy(), a.T.astype(np.int64))
    bf = t.to(torch.bfloat16)  # DLPack's bfloat (code 4): 2 bytes NumPy cannot view, so not widened
    with pytest.raises(TypeError, match="DLPack code 4, 16 bits\\) of 2 bytes"):
        hcube.aapc(bf)
