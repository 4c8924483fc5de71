"""hcube from Python against NumPy, the oracle: every expected array below is
written from its definition with NumPy, never with hcube's own code."""
import numpy as np
import pytest

import hcube

DTYPES = [np.uint32, np.int32, np.uint64, np.float32, np.float64, np.complex64, np.complex128]


def random_array(shape, dtype, rng):
    """Distinct-looking words of any dtype (bit patterns, so NaNs cannot hide a miss)."""
    dtype = np.dtype(dtype)
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_version():
    assert hcube.__version__.count(".") == 2


@pytest.mark.parametrize("dtype", DTYPES)
def test_aapc_is_the_transpose(dtype):
    rng = np.random.default_rng(1)
    for d in range(1, 6):
        a = random_array((2**d, 2**d), dtype, rng)
        for algorithm in [1, 2, 3, 4, "edelman"]:
            assert same_bits(hcube.aapc(a, algorithm=algorithm), np.ascontiguousarray(a.T)), (d, algorithm)


def numpy_permute(a, perm):
    """Address bit i (bit 0 the lowest local bit) of every word goes to bit perm[i]:
    as 2-sized axes in C order axis k is bit q - 1 - k."""
    q = len(perm)
    inv = [0] * q
    for i, p in enumerate(perm):
        inv[p] = i
    axes = [q - 1 - inv[q - 1 - k] for k in range(q)]
    return np.ascontiguousarray(np.transpose(a.reshape((2,) * q), axes)).reshape(a.shape)


def test_random_stable_dimension_permutations_equal_numpy():
    rng = np.random.default_rng(2)
    for trial in range(40):
        n, m = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        perm = [int(p) for p in rng.permutation(n + m)]
        dtype = DTYPES[trial % len(DTYPES)]
        a = random_array((2**n, 2**m), dtype, rng)
        want = numpy_permute(a, perm)
        assert same_bits(hcube.permute(a, perm), want), (n, m, perm)
        assert same_bits(hcube.permute(a, perm, fused=True), want), (n, m, perm)
        flat = a.reshape(-1)
        assert same_bits(hcube.permute(flat, perm, n=n), want.reshape(-1)), (n, m, perm)
    a = random_array((16, 16), np.uint32, rng)
    assert same_bits(hcube.permute(a, "transpose"), np.ascontiguousarray(a.T))
    assert same_bits(hcube.permute(a, "bit-reversal"), numpy_permute(a, list(range(7, -1, -1))))


def test_machine_runs_plans_and_counts():
    rng = np.random.default_rng(3)
    a = random_array((16, 16), np.uint64, rng)
    mach = hcube.Machine(4, 4, dtype=np.uint64, backend="cpu")
    assert (mach.n, mach.m, mach.dtype, mach.backend) == (4, 4, np.dtype(np.uint64), "cpu")
    mach.load(a)
    mach.aapc(algorithm=4)
    assert same_bits(mach.read(), np.ascontiguousarray(a.T))
    c = mach.counters
    for key in ["routing_cycles", "element_hops", "kernel_launches", "alignments"]:
        assert key in c, key
    assert c["routing_cycles"] == 8  # K/2 for Algorithm 4 (Theorem 1)
    mach.permute([1, 0, 2, 3, 4, 5, 6, 7])  # swap the two lowest local bits
    assert same_bits(mach.read(), numpy_permute(np.ascontiguousarray(a.T), [1, 0, 2, 3, 4, 5, 6, 7]))
    mach.load(a.reshape(-1))  # flat works too
    assert same_bits(mach.read(), a)


@pytest.mark.parametrize("n", [1, 3, 5])
def test_fft_equals_numpy(n):
    rng = np.random.default_rng(4)
    for q in [n + 1, n + 4, 12]:
        x = rng.standard_normal(2**q) + 1j * rng.standard_normal(2**q)
        want = np.fft.fft(x)
        got = hcube.fft(x, nodes_log2=n)
        assert np.max(np.abs(got - want)) / np.max(np.abs(want)) < 1e-12
        back = hcube.fft(got, nodes_log2=n, inverse=True)
        assert np.max(np.abs(back / 2**q - x)) / np.max(np.abs(x)) < 1e-12
        got64 = hcube.fft(x.astype(np.complex64), nodes_log2=n)
        assert got64.dtype == np.complex64
        assert np.max(np.abs(got64 - want)) / np.max(np.abs(want)) < 1e-4
    x = np.full(64, np.nan, dtype=np.complex128)
    assert np.isnan(hcube.fft(x, nodes_log2=2)).all()


def cyclic_kx_rows(data, Q, K, x, width):
    """cyclic(Kx) on Q by definition: element g in block i = g // x, big block
    b = i // K on destination b % Q at local word (b // Q) K x + g % (K x)."""
    rows = np.zeros((Q, width), dtype=data.dtype)
    for g, v in enumerate(data):
        b = (g // x) // K
        rows[b % Q, (b // Q) * K * x + g % (K * x)] = v
    return rows


@pytest.mark.parametrize("P,Q,K,x,N", [(6, 4, 2, 3, 150), (3, 6, 2, 2, 24), (28, 36, 14, 2, 4032), (5, 5, 3, 1, 77)])
def test_redistribution_places_every_element_by_the_closed_form(P, Q, K, x, N):
    rng = np.random.default_rng(5)
    data = random_array((N,), np.uint64, rng)
    for schedule in ["circulant", "caterpillar", "bipartite-stepwise", "bipartite-greedy"]:
        rows = hcube.redistribute(data, P=P, Q=Q, K=K, x=x, schedule=schedule)
        assert rows.shape[0] == Q
        assert same_bits(rows, cyclic_kx_rows(data, Q, K, x, rows.shape[1])), schedule


def test_schedule_is_the_file_format():
    s = hcube.schedule(4, 5)
    assert s["format"] == "hcube-schedule/1"
    assert s["d"] == 5
    assert len(s["cycles"]) == 16
    assert hcube.schedule(4, 5, lines="type1")["lines"] == "type1"


def test_bad_input_raises_the_librarys_message():
    a = np.zeros((8, 8), dtype=np.uint32)
    mach = hcube.Machine(3, 3)
    with pytest.raises(TypeError, match="int64"):
        mach.load(a.astype(np.int64))
    with pytest.raises(TypeError, match="uint64"):
        mach.load(a.astype(np.uint64))
    with pytest.raises(ValueError, match="C-contiguous"):
        mach.load(np.asfortranarray(np.zeros((8, 8), dtype=np.uint32)).T[:, ::1].T)
    with pytest.raises(ValueError, match=r"shape \(8, 8\)"):
        mach.load(np.zeros((4, 8), dtype=np.uint32))
    with pytest.raises(hcube.Error, match="'zz' unknown"):
        hcube.permute(a, "zz")
    with pytest.raises(ValueError, match="n="):
        hcube.permute(a.reshape(-1), "transpose")
    with pytest.raises(ValueError, match="power of two"):
        hcube.aapc(np.zeros((6, 8), dtype=np.uint32))
    with pytest.raises(ValueError, match="out of range"):
        hcube.Machine(40, 40)
    with pytest.raises(TypeError, match="complex"):
        hcube.fft(np.zeros(8), nodes_log2=1)
    with pytest.raises(ValueError, match="x = 0"):
        hcube.redistribute(np.zeros(8, dtype=np.uint32), P=2, Q=2, K=1, x=0)
    assert issubclass(hcube.Error, ValueError)
