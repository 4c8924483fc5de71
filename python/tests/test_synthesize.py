"""hcube.synthesize(): the fewest routing cycles found by CaDiCaL, written as a schedule file.

The file is checked here against the transpose written from its formula (sec. 2.2.1: after the xor
pre-alignment, address a crosses exactly the dimensions of its set bits, once each), apart from the
library. Without CaDiCaL the tests skip, unless HCUBE_REQUIRE_CADICAL=1 makes them fail.
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


def test_bad_input_in_python_terms(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ValueError, match=r"max_cycles=0 out of range: allowed 1 \.\. 256"):
        hcube.synthesize("aapc", 3, max_cycles=0, output=tmp_path / "x.json")
    with pytest.raises(ValueError, match="unknown pattern 'foo': allowed aapc, multi-aapc"):
        hcube.synthesize("foo", 3, output=tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()
