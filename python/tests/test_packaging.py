"""The distribution: a licence, metadata, and a name of its own on the Python package index (the import
name stays hcube)."""
from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest

import hcube

ROOT = Path(__file__).resolve().parents[2]


def test_licence_file_is_apache_2() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text


def test_project_metadata() -> None:
    # Read as text: tomllib is Python 3.11's, and the suite runs on 3.8 too.
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'^name = "hcube-emulator"$', text, re.M)  # "hcube" on the index is another project
    assert re.search(r'^license = "Apache-2\.0"$', text, re.M)
    assert re.search(r'^license-files = \["LICENSE"\]$', text, re.M)
    assert re.search(r"^authors = ", text, re.M) and re.search(r"^classifiers = \[", text, re.M)
    assert re.search(r'^test = \[.*"mypy".*\]$', text, re.M)


def test_installed_distribution_carries_the_metadata() -> None:
    try:
        meta = metadata.metadata("hcube-emulator")
    except metadata.PackageNotFoundError:
        pytest.skip("hcube is not installed from this tree's wheel (no hcube-emulator distribution)")
    assert meta["Version"] == hcube.__version__
    licence = meta["License-Expression"] or meta["License"] or ""
    assert "Apache-2.0" in licence, licence
