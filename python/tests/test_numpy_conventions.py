"""NumPy's conventions, with NumPy as the oracle, bit for bit: any fixed-size dtype, any strides, axes=,
out=, fft of real points, MemoryError, and messages naming Python's parameters, never the command line's flags
or the C++ library's names."""
from __future__ import annotations

import re
import time
from typing import Any, Callable, List, Sequence, Tuple

import numpy as np
import numpy.typing as npt
import pytest

import hcube

# The dtypes the machine had no type for, and some it had; 1 to 16 bytes.
DTYPES = [np.int64, np.bool_, np.int8, np.uint16, np.float16, np.float32, np.complex128, np.uint8, np.int16,
          np.float64, np.complex64, np.uint32, ">i4", ">f8", "S4", "V16", "<m8"]
SHAPES: List[Tuple[int, ...]] = [(16,), (4, 8), (8, 8), (2, 4, 8), (2, 2, 2, 2, 2, 2), (32, 2), (1, 64), (2,)]


def bits(a: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """a's bits, as unsigned integers of its element size (a 16-byte element as two uint64s)."""
    size = a.dtype.itemsize
    u = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64, 16: np.uint64}[size]
    return np.ascontiguousarray(a).view(u)


def same_bits(got: npt.NDArray[Any], want: npt.NDArray[Any]) -> bool:
    return got.dtype == want.dtype and got.shape == want.shape and np.array_equal(bits(got), bits(want))


def random_bits(shape: Tuple[int, ...], dtype: npt.DTypeLike, seed: int = 0) -> npt.NDArray[Any]:
    """Elements of random bits (bool: 0 or 1), with -0.0 and NaNs of several payloads where the dtype has them:
    the machine moves bits, so every bit pattern must arrive as it left."""
    dt = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    count = int(np.prod(shape))
    raw: npt.NDArray[np.uint8] = rng.integers(0, 256, size=count * dt.itemsize, dtype=np.uint8)
    if dt.kind == "b":
        raw &= 1
    a = raw.view(dt).reshape(shape).copy()
    flat = a.reshape(-1)
    if dt.kind in "fc" and count >= 4:
        size = dt.itemsize // 2 if dt.kind == "c" else dt.itemsize  # a complex number is two floats
        order = dt.str[0]
        comp = a.reshape(-1).view(np.dtype(f"{order}f{size}"))
        comp[0] = -0.0
        nans = {2: [0x7C01, 0xFE37], 4: [0x7F800001, 0xFFC12345], 8: [0x7FF0000000000001, 0xFFF8DEADBEEF0000]}
        comp.view(np.dtype(f"{order}u{size}"))[1:3] = nans[size]
    return a


def numpy_permute(a: npt.NDArray[Any], axes: Sequence[int]) -> npt.NDArray[Any]:
    q = len(axes)
    return a.reshape((2,) * q).transpose(axes).reshape(a.shape)


def random_axes(q: int, seed: int) -> List[int]:
    return [int(x) for x in np.random.default_rng(seed).permutation(q)]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_permute_axes_equals_numpy_transpose(dtype: Any, shape: Tuple[int, ...]) -> None:
    a = random_bits(shape, dtype, seed=len(shape))
    q = int(np.log2(a.size))
    before = a.copy()
    for seed in range(3):
        axes = random_axes(q, seed)
        got = hcube.permute(a, axes=axes)
        assert same_bits(got, numpy_permute(a, axes)), (axes, got, numpy_permute(a, axes))
    assert same_bits(a, before)  # the input is untouched


@pytest.mark.parametrize("dtype", [np.int64, np.bool_, np.int8, np.uint16, np.float16, np.float32, np.complex128])
@pytest.mark.parametrize("n,m", [(1, 3), (3, 3), (2, 4), (4, 1)])
def test_perm_spelling_on_every_dtype(dtype: Any, n: int, m: int) -> None:
    # The address-bit form (perm[q-1-axes[k]] = q-1-k) stays, on the machine's (2^n, 2^m) shape.
    a = random_bits((2 ** n, 2 ** m), dtype, seed=n * 7 + m)
    q = n + m
    axes = random_axes(q, n + m)
    perm = [0] * q
    for k, ax in enumerate(axes):
        perm[q - 1 - ax] = q - 1 - k
    for fused in (False, True):
        assert same_bits(hcube.permute(a, perm, fused=fused), numpy_permute(a, axes))
    assert same_bits(hcube.permute(a.reshape(-1), ",".join(map(str, perm)), n=n), numpy_permute(a, axes).reshape(-1))
    np.testing.assert_array_equal(hcube.permute(a, axes=[-1 - k for k in range(q)]), numpy_permute(a, range(q)[::-1]))


def strided_views(a: npt.NDArray[Any]) -> List[npt.NDArray[Any]]:
    """The same values as a, laid out four other ways: Fortran order, every third element of a larger
    array, reversed strides, and a broadcast (zero-stride) copy of one row."""
    big = np.zeros(a.shape[:-1] + (3 * a.shape[-1],), a.dtype)
    big[..., ::3] = a
    rev = a[::-1, ::-1].copy()[::-1, ::-1]
    return [np.asfortranarray(a), big[..., ::3], rev]


@pytest.mark.parametrize("dtype", [np.int64, np.bool_, np.int8, np.uint16, np.float16, np.float32, np.complex128])
def test_strided_input_into_strided_out(dtype: Any) -> None:
    a = random_bits((8, 16), dtype, seed=3)
    axes = random_axes(7, 5)
    want = numpy_permute(a, axes)
    for view in strided_views(a) + [np.broadcast_to(a[:1], a.shape)]:
        want_v = numpy_permute(np.ascontiguousarray(view), axes)
        assert same_bits(hcube.permute(view, axes=axes), want_v)
        holder = np.zeros((8, 32), dtype)
        out = holder[:, ::2]  # strided out
        got = hcube.permute(view, axes=axes, out=out)
        assert got is out and same_bits(out, want_v)
        assert not holder[:, 1::2].any()  # nothing written between out's elements
    # out C-ordered, out Fortran-ordered, out the input itself.
    out_c = np.empty_like(a)
    assert hcube.permute(a, axes=axes, out=out_c) is out_c and same_bits(out_c, want)
    out_f = np.empty_like(a, order="F")
    assert hcube.permute(a, axes=axes, out=out_f) is out_f and same_bits(out_f, want)
    b = a.copy()
    assert hcube.permute(b, axes=axes, out=b) is b and same_bits(b, want)


@pytest.mark.parametrize("dtype", [np.int64, np.bool_, np.int8, np.uint16, np.float16, np.float32, np.complex128,
                                   ">u8"])
@pytest.mark.parametrize("d", [1, 3, 4])
def test_aapc_is_the_transpose_of_any_dtype(dtype: Any, d: int) -> None:
    a = random_bits((2 ** d, 2 ** d), dtype, seed=d)
    assert same_bits(hcube.aapc(a), a.T)
    for view in strided_views(a):
        assert same_bits(hcube.aapc(view), a.T)
    out = np.empty((2 ** d, 2 ** (d + 1)), dtype)[:, 1::2]
    assert hcube.aapc(a, algorithm="edelman", out=out) is out and same_bits(out, a.T)


def test_aapc_of_int64_equals_its_transpose() -> None:
    a = np.arange(2 ** 10, dtype=np.int64).reshape(32, 32) * -977
    np.testing.assert_array_equal(hcube.aapc(a), a.T)
    assert hcube.aapc(a).dtype == np.int64


def test_aapc_refuses_shapes_that_are_not_square_unless_d_is_given() -> None:
    a = np.arange(128, dtype=np.int64).reshape(8, 16)
    with pytest.raises(ValueError, match=r"array has shape \(8, 16\): 2\^3 nodes of 2\^4 words is not square.*"
                                         r"give d= \(0..3\)"):
        hcube.aapc(a)
    with pytest.raises(ValueError, match=r"not square"):
        hcube.aapc(a.reshape(-1), n=3)
    # Given d, it runs, moving bits only: the int64 answer is the uint64 one, bit for bit.
    got = hcube.aapc(a, d=3)
    np.testing.assert_array_equal(got.view(np.uint64), hcube.aapc(a.view(np.uint64), d=3))
    assert sorted(got.reshape(-1).tolist()) == sorted(a.reshape(-1).tolist())
    # The machine says the same.
    mach = hcube.Machine(3, 4, dtype=np.int64).load(a)
    with pytest.raises(ValueError, match=r"a machine of 2\^3 nodes of 2\^4 words is not square.*give d= \(0..3\)"):
        mach.aapc()
    np.testing.assert_array_equal(mach.aapc(d=3).read(), got)


@pytest.mark.parametrize("dtype", [np.int64, np.bool_, np.int8, np.uint16, np.float16, np.float32, np.complex128])
def test_machine_of_any_dtype(dtype: Any) -> None:
    a = random_bits((8, 8), dtype, seed=11)
    mach = hcube.Machine(3, 3, dtype=dtype)
    assert mach.dtype == np.dtype(dtype)
    assert same_bits(mach.load(a).read(), a)
    assert same_bits(mach.aapc().read(), a.T)
    assert same_bits(mach.load(np.asfortranarray(a)).permute("bit-reversal").read(), numpy_permute(a, range(6)[::-1]))


@pytest.mark.parametrize("dtype,result", [(np.float64, np.complex128), (np.int64, np.complex128), (np.int8, np.complex64),
                                          (np.float32, np.complex64), (np.bool_, np.complex64)])
def test_fft_of_real_points(dtype: Any, result: Any) -> None:
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(256) * 50).astype(dtype)
    got = hcube.fft(x, nodes_log2=3)
    assert got.dtype == result
    want = np.fft.fft(x.astype(np.complex128))
    tol = 1e-12 if result == np.complex128 else 1e-5
    assert np.max(np.abs(got - want)) <= tol * np.max(np.abs(want))


def test_fft_strided_input_and_out() -> None:
    rng = np.random.default_rng(2)
    big = rng.standard_normal(1024) + 1j * rng.standard_normal(1024)
    x = big[::4]  # 256 points, strided
    want = np.fft.fft(x)
    holder = np.zeros(512, np.complex128)
    out = holder[::2]
    got = hcube.fft(x, out=out)  # nodes_log2 left out: P // 2
    assert got is out
    assert np.max(np.abs(out - want)) <= 1e-12 * np.max(np.abs(want))
    assert not holder[1::2].any()
    with pytest.raises(ValueError, match="out: expected a NumPy array of shape \\(256,\\) and dtype complex128"):
        hcube.fft(x, out=np.empty(256, np.complex64))


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.int64, np.bool_, np.complex128])
def test_redistribute_any_dtype_with_out(dtype: Any) -> None:
    a = random_bits((48,), dtype, seed=4)
    want_words = hcube.redistribute(np.arange(48, dtype=np.uint32), P=2, Q=3, K=2, x=1)
    want = a[want_words]  # each element where its index went
    got = hcube.redistribute(a[::-1][::-1], P=2, Q=3, K=2, x=1)
    assert same_bits(got, want)
    out = np.empty((3, 32), dtype)[:, ::2]
    assert hcube.redistribute(a, 2, 3, 2, 1, out=out) is out and same_bits(out, want)


def test_memory_error_for_a_machine_larger_than_memory() -> None:
    start = time.monotonic()
    with pytest.raises(MemoryError, match="needs 2\\^48 words"):
        hcube.Machine(24, 24)
    with pytest.raises(MemoryError):
        hcube.Machine(48, 0, dtype=np.complex128)
    assert time.monotonic() - start < 5  # refused before anything is allocated


def test_size_one_and_trivial_axes() -> None:
    a = np.array([7], np.int8)
    np.testing.assert_array_equal(hcube.permute(a, axes=[]), a)
    b = np.arange(2, dtype=np.float16)
    np.testing.assert_array_equal(hcube.permute(b, axes=[0]), b)


def test_axes_are_checked() -> None:
    a = np.zeros((4, 4), np.int64)
    with pytest.raises(ValueError, match=r"axes=\[0, 1, 2\] is not a permutation of 0..3"):
        hcube.permute(a, axes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"axes=\[0, 0, 1, 2\] is not a permutation"):
        hcube.permute(a, axes=[0, 0, 1, 2])
    with pytest.raises(ValueError, match="give axes= .* or perm= .*, not both"):
        hcube.permute(a, "transpose", axes=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="give axes= .* or perm= .*, one of them"):
        hcube.permute(a)
    with pytest.raises(ValueError, match=r"12 is not a power of two"):
        hcube.permute(np.zeros((3, 4)), axes=[0, 1])


def test_out_is_checked() -> None:
    a = np.zeros((4, 4), np.int64)
    with pytest.raises(ValueError, match=r"out has shape \(16,\): this plan is for shape \(4, 4\)"):
        hcube.aapc(a, out=np.zeros(16, np.int64))
    with pytest.raises(TypeError, match=r"out has dtype <u8 \(uint64\): this plan is for <i8 \(int64\)"):
        hcube.aapc(a, out=np.zeros((4, 4), np.uint64))
    ro = np.zeros((4, 4), np.int64)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="out: the array is read-only"):
        hcube.permute(a, axes=[3, 2, 1, 0], out=ro)


FLAG = re.compile(r"--[A-Za-z]|(?<![\w-])-[A-Za-z](?![\w-])")
# A C++ parameter's name, as the library's messages give it (PermutePlan::Options::fused).
API_NAME = re.compile(r"\w::\w")


def bad_calls() -> List[Callable[[], Any]]:
    """Calls that fail on the library's checks, whose messages name the library's parameters or hcube's flags."""
    a = np.zeros((4, 4), np.uint32)
    flat = np.zeros(16, np.uint32)
    c = np.zeros(16, np.complex128)
    return [
        lambda: hcube.permute(flat, "transpose"),  # give n (or m)
        lambda: hcube.permute(a, "transpose", algorithm="A9"),
        lambda: hcube.permute(a, "transpose", algorithm="A4"),
        lambda: hcube.permute(a, "transpose", algorithm="A1", fused=True),
        lambda: hcube.permute(a, "transpose", ports="two"),
        lambda: hcube.permute(a, [0, 0, 1, 2]),
        lambda: hcube.permute(a, [0, 1, 2]),
        lambda: hcube.permute(np.zeros((2, 16), np.uint32), "transpose"),
        lambda: hcube.permute(a, "shuffle"),
        lambda: hcube.permute(a, "nonsense"),
        lambda: hcube.permute(a, "transpose", backend="tpu"),
        lambda: hcube.aapc(a, algorithm=7),
        lambda: hcube.aapc(a, permutation="sideways"),
        lambda: hcube.aapc(a, d=9),
        lambda: hcube.fft(c, nodes_log2=4),
        lambda: hcube.fft(c, nodes_log2=9),
        lambda: hcube.fft(c, nodes_log2=-1),
        lambda: hcube.fft(c, order="sideways"),
        lambda: hcube.redistribute(np.zeros(10, np.uint32), P=2, Q=2, K=1, x=4),
        lambda: hcube.redistribute(np.zeros(16, np.uint32), P=2, Q=2, K=1, x=1, schedule="nonsense"),
        lambda: hcube.schedule(4, 2, n=-1),
        lambda: hcube.schedule("nonsense", 2),
        lambda: hcube.schedule(4, 3, lines="sideways"),
        lambda: hcube.Machine(2, 2).cycle("5:0"),
        lambda: hcube.Machine(2, 2).align(xor_mem=[7]),
        lambda: hcube.Machine(2, 2, backend="tpu"),
        lambda: hcube.Machine(24, 24),
        lambda: hcube.PermutePlan((4, 4), np.int8, "transpose", algorithm="A9"),
        lambda: hcube.FftPlan(16, np.complex64, nodes_log2=5),
        lambda: hcube.AapcPlan(16, np.int64, d=2),
    ]


def test_no_command_line_flag_in_any_python_error() -> None:
    messages = []
    for call in bad_calls():
        with pytest.raises((ValueError, TypeError, MemoryError)) as e:
            call()
        messages.append(str(e.value))
        assert not FLAG.search(str(e.value)), str(e.value)
        assert not API_NAME.search(str(e.value)), str(e.value)
    # The Python names instead.
    assert "give n= (or m=)" in messages[0]
    assert any(m.startswith("nodes_log2=4: 2^4 nodes for 2^4 points") for m in messages)
    assert any("fused=True runs no routing algorithm" in m for m in messages)
