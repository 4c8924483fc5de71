"""The distribution: a licence, metadata, and a name of its own on the Python package index (the import
name stays hcube)."""
from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path
from typing import Any, Dict

import pytest

import hcube

ROOT = Path(__file__).resolve().parents[2]


def pyproject() -> Dict[str, Any]:
    if sys.version_info < (3, 11):
        pytest.skip("tomllib needs Python 3.11: pyproject.toml is not read")
    import tomllib
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def test_licence_file_is_apache_2() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text


def test_project_metadata() -> None:
    project = pyproject()["project"]
    assert project["name"] == "hcube-emulator"  # "hcube" on the index is another project
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    assert project["authors"] and project["classifiers"]
    assert "mypy" in " ".join(project["optional-dependencies"]["test"])


def test_installed_distribution_carries_the_metadata() -> None:
    try:
        meta = metadata.metadata("hcube-emulator")
    except metadata.PackageNotFoundError:
        pytest.skip("hcube is not installed from this tree's wheel (no hcube-emulator distribution)")
    assert meta["Version"] == hcube.__version__
    licence = meta["License-Expression"] or meta["License"] or ""
    assert "Apache-2.0" in licence, licence
