"""The package is typed: py.typed and the extension's stub ship with it, mypy --strict passes on the package and
the tests, and the extension's functions show their parameters' names (not arg0, arg1, ...)."""
from __future__ import annotations

import ast
import importlib.util
import inspect
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, List, Optional, Tuple

import pytest

import hcube

ROOT = Path(__file__).resolve().parents[2]


def test_marker_and_stub_ship_with_the_package() -> None:
    package = Path(hcube.__file__).parent
    assert (package / "py.typed").is_file()
    assert (package / "_hcube.pyi").is_file()
    assert (package / "_hcube_mpi.pyi").is_file()


def test_the_stub_declares_everything_the_extension_has() -> None:
    stub = (ROOT / "python" / "hcube" / "_hcube.pyi").read_text()
    for name, value in vars(hcube._hcube).items():
        if name.startswith("__") or inspect.ismodule(value):
            continue
        assert f"def {name}(" in stub or f"class {name}" in stub, name


def test_the_mpi_stub_declares_everything_the_mpi_extension_has() -> None:
    try:
        _hcube_mpi = importlib.import_module("hcube._hcube_mpi")
    except ImportError as e:  # built without MPI, or its MPI library absent here
        pytest.skip(f"no hcube._hcube_mpi here: {e}")
    stub = (ROOT / "python" / "hcube" / "_hcube_mpi.pyi").read_text()
    for name, value in vars(_hcube_mpi).items():
        if name.startswith("__") or inspect.ismodule(value):
            continue
        assert f"def {name}(" in stub or f"class {name}" in stub, name
    for f in (_hcube_mpi.permute_plan, _hcube_mpi.aapc_plan, _hcube_mpi.AcrossPlan.execute):
        assert "arg0" not in (f.__doc__ or ""), f.__doc__


def _runtime_names(f: Any) -> Optional[List[str]]:
    """The parameter names of a pybind11 function, from the signature on its docstring's first line."""
    first = (f.__doc__ or "").strip().splitlines()[0] if (f.__doc__ or "").strip() else ""
    if "(" not in first:
        return None
    return [n for n in re.findall(r"(?:\(|, )(\w+)(?=: )", first.split(") ->")[0]) if n != "self"]


def _stub_vs_runtime(stub: str, module: Any) -> List[str]:
    """Each function of the stub whose parameter names differ from the extension's, as a line."""
    differ: List[str] = []
    tree = ast.parse(stub)
    scopes: List[Tuple[Any, List[ast.stmt]]] = [(module, tree.body)]
    scopes += [(getattr(module, c.name), c.body) for c in tree.body if isinstance(c, ast.ClassDef)]
    for owner, body in scopes:
        for f in body:
            if not isinstance(f, ast.FunctionDef) or not hasattr(owner, f.name):
                continue
            runtime = _runtime_names(getattr(owner, f.name))
            stubbed = [a.arg for a in f.args.args if a.arg != "self"]
            if runtime is not None and runtime != stubbed:
                differ.append(f"{f.name}: the stub has {stubbed}, the extension {runtime}")
    return differ


def test_the_stubs_parameters_are_the_extensions() -> None:
    assert _stub_vs_runtime((ROOT / "python" / "hcube" / "_hcube.pyi").read_text(), hcube._hcube) == []
    try:
        _hcube_mpi = importlib.import_module("hcube._hcube_mpi")
    except ImportError as e:  # built without MPI, or its MPI library absent here
        pytest.skip(f"no hcube._hcube_mpi here: {e}")
    assert _stub_vs_runtime((ROOT / "python" / "hcube" / "_hcube_mpi.pyi").read_text(), _hcube_mpi) == []


def test_extension_arguments_have_names() -> None:
    for f in (hcube._hcube.permute_plan, hcube._hcube.aapc_plan, hcube._hcube.fft, hcube._hcube.redistribute,
              hcube._hcube.Machine.__init__, hcube._hcube.Machine.cycle, hcube._hcube.Machine.permute,
              hcube._hcube.Plan.execute):
        doc = f.__doc__ or ""
        assert "arg0" not in doc and "arg1" not in doc, doc


def test_mypy_strict_passes_on_the_package_and_the_tests(tmp_path: Path) -> None:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install '.[test]' brings it): the type check is not run")
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"),
                          str(ROOT / "python" / "hcube"), str(ROOT / "python" / "tests")],
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr


def test_docstring_examples_run() -> None:
    import doctest
    result = doctest.testmod(hcube, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 2 and result.failed == 0
