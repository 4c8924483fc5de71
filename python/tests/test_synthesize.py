"""hcube.synthesize(): the fewest routing cycles found by CaDiCaL, written as a schedule file.

The files are checked here, apart from the library: an AAPC's against the transpose written from its
formula (sec. 2.2.1: after the xor pre-alignment, address a crosses exactly the dimensions of its set
bits, once each), a permutation's by running its cycles on labelled words. Without CaDiCaL the tests skip, unless HCUBE_REQUIRE_CADICAL=1 makes them fail.
"""
from __future__ import annotations

import json
import os
import pathlib
from typing import Dict, Set

import pytest

import hcube
from hcube import _hcube

if not _hcube.synthesis_available():
    if os.environ.get("HCUBE_REQUIRE_CADICAL", "0") not in ("", "0"):
        raise RuntimeError("HCUBE_REQUIRE_CADICAL is set, but hcube was built without CaDiCaL")
    pytest.skip("hcube was built without CaDiCaL (libcadical-dev)", allow_module_level=True)


def test_aapc_of_three_dimensions_takes_four_cycles(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "a3.json"
    r = hcube.synthesize("aapc", 3, output=out)
    assert r["command"] == "synthesize"
    assert (r["cycles"], r["optimal"], r["lower_bound"], r["lower_bound_proof"]) == (4, True, 4, "channels")
    assert r["output"] == str(out)
    f = json.loads(out.read_text())
    assert f["format"] == "hcube-schedule/1" and len(f["cycles"]) == 4
    # Direct-addressed: every address crosses each dimension of its bits once, one word a link a cycle.
    crossed: Dict[int, Set[int]] = {a: set() for a in range(8)}
    for cycle in f["cycles"]:
        assert len({e["dim"] for e in cycle}) == len(cycle)
        for e in cycle:
            assert e.get("peer_addr", e["addr"]) == e["addr"] and e.get("map", 0) == 0
            assert (e["addr"] >> e["dim"]) & 1 and e["dim"] not in crossed[e["addr"]]
            crossed[e["addr"]].add(e["dim"])
    assert all(crossed[a] == {k for k in range(3) if (a >> k) & 1} for a in range(8))


def test_orders_two_one_take_three_cycles(tmp_path: pathlib.Path) -> None:
    r = hcube.synthesize("multi-aapc", [2, 1], output=tmp_path / "m21.json")
    assert (r["cycles"], r["optimal"], r["unsat_at"]) == (3, True, 2)


def test_permute_transpose_of_two_two_takes_two_cycles(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "t.json"
    r = hcube.synthesize("permute", n=2, m=2, perm="transpose", output=out)
    assert (r["cycles"], r["optimal"], r["lower_bound_proof"], r["unsat_at"], r["perm"]) == (2, True, "distance", 1,
                                                                                              [2, 3, 0, 1])
    f = json.loads(out.read_text())
    assert (f["pre"], f["post"], f["perm"]) == ("none", "none", [2, 3, 0, 1])
    # The cycles alone, run on labelled words, put the word at g where bit i of g becomes bit perm[i].
    words = list(range(16))
    maps = f.get("offset_maps", [])
    for cycle in f["cycles"]:
        swaps = []
        for e in cycle:
            cols = maps[e["map"] - 1] if e.get("map", 0) else [0, 0]

            def slot(j: int, a: int) -> int:
                return j * 4 + (a ^ (cols[0] if j & 1 else 0) ^ (cols[1] if j & 2 else 0))

            for j in range(4):
                if not (j >> e["dim"]) & 1:
                    h = j | 1 << e["dim"]
                    swaps.append((slot(j, e["addr"]), slot(h, e.get("peer_addr", e["addr"]))))
        for x, y in swaps:
            words[x], words[y] = words[y], words[x]
    assert all(sum(1 << p for i, p in enumerate([2, 3, 0, 1]) if (w >> i) & 1) == g for g, w in enumerate(words))
    # A list works as hcube.permute's perm does, and d says n as well.
    assert hcube.synthesize("permute", 2, m=2, perm=[2, 3, 0, 1], output=out)["cycles"] == 2


def test_bad_input_in_python_terms(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ValueError, match=r"max_cycles=0 out of range: allowed 1 \.\. 256"):
        hcube.synthesize("aapc", 3, max_cycles=0, output=tmp_path / "x.json")
    with pytest.raises(ValueError, match="unknown pattern 'foo': allowed aapc, multi-aapc"):
        hcube.synthesize("foo", 3, output=tmp_path / "x.json")
    with pytest.raises(ValueError, match="perm missing"):
        hcube.synthesize("permute", n=2, output=tmp_path / "x.json")
    with pytest.raises(ValueError, match=r"perm entry 2 \(source bit 2\) = 5 out of range: allowed 0\.\.2"):
        hcube.synthesize("permute", n=2, m=1, perm=[0, 1, 5], output=tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()


def test_scatter_on_ring_of_eight_takes_dex_rounds(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "s.json"
    r = hcube.synthesize("scatter", topology="ring:8", output=out)
    # One-port by default (the notes' DEX model): 8 rounds = 2t^2 for z = 8, the bisection bound.
    assert (r["cycles"], r["rounds"], r["optimal"], r["lower_bound"], r["lower_bound_proof"], r["port_model"]) == (
        8, 8, True, 8, "bisection", "one")
    f = json.loads(out.read_text())
    assert (f["format"], f["topology"], len(f["rounds"])) == ("hcube-scatter/1", "ring:8", 8)
    # Every ordered pair once; each node sends one and receives one packet a round.
    pairs = [(p[0], p[1]) for rnd in f["rounds"] for p in rnd]
    assert sorted(pairs) == [(a, b) for a in range(8) for b in range(8) if a != b]
    for rnd in f["rounds"]:
        assert len({p[0] for p in rnd}) == len(rnd) == len({p[1] for p in rnd})
    r = hcube.synthesize("scatter", topology="cube:3", port_model="all", output=out)
    assert (r["cycles"], r["optimal"], r["lower_bound_proof"]) == (4, True, "bisection")
    with pytest.raises(ValueError, match="topology missing"):
        hcube.synthesize("scatter", output=tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()
