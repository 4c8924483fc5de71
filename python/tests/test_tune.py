"""hcube.tune(): the fused passes' tile sizes measured on this host and saved as wisdom."""
from __future__ import annotations

import json
import pathlib

import pytest

import hcube


def test_tune_writes_wisdom(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "cache" / "wisdom.json"  # its directory is made
    r = hcube.tune(quick=True, log2_bytes=18, output=out)
    assert r["wisdom_path"] == str(out)
    saved = json.loads(out.read_text())
    assert saved["format"] == "hcube-wisdom/1"
    assert saved["values"] == r["values"]
    for wb in (4, 8, 16):
        key = "fused.tile_bytes.{}".format(wb)
        chosen = r["values"][key]
        scores = {t["value"]: t["score"] for t in r["trials"] if t["key"] == key}
        # The best candidate, or the default where none beat it by 5 %.
        default = 65536 if wb == 16 else 131072
        assert chosen in scores
        if chosen == default:
            assert max(scores.values()) < 1.05 * scores[default]
        else:
            assert scores[chosen] == max(scores.values())
        assert chosen & (chosen - 1) == 0


def test_tune_refuses_a_bad_size_in_python_terms(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ValueError, match="log2_bytes = 40 out of range"):
        hcube.tune(log2_bytes=40, output=tmp_path / "w.json")
