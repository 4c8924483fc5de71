"""hcube.mpi under mpirun on 2 and 4 ranks (mpi_ranks.py and docs/python.md's example), and its ImportErrors.

Where mpirun, mpi4py or hcube's MPI module is missing the runs skip, saying which; with HCUBE_REQUIRE_MPI4PY=1
(CI) that is a failure instead.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

HERE = Path(__file__).resolve().parent
DOC = HERE.parents[1] / "docs" / "python.md"


def _missing() -> str:
    if shutil.which("mpirun") is None:
        return "no mpirun on PATH (scripts/install-deps.sh installs Open MPI)"
    if importlib.util.find_spec("mpi4py") is None:
        return "mpi4py is not installed (pip install '.[mpi]')"
    if importlib.util.find_spec("hcube._hcube_mpi") is None:
        return "hcube was built without MPI (no hcube._hcube_mpi)"
    try:
        importlib.import_module("hcube._hcube_mpi")  # loads the MPI library, without initialising it
    except ImportError as e:
        return f"hcube._hcube_mpi does not load: {e}"
    return ""


def _mpirun(ranks: int, *args: str) -> "subprocess.CompletedProcess[str]":
    why = _missing()
    if why:
        if os.environ.get("HCUBE_REQUIRE_MPI4PY") == "1":
            pytest.fail(f"HCUBE_REQUIRE_MPI4PY=1 but {why}")
        pytest.skip(why)
    flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    return subprocess.run(["mpirun", *flags, "-np", str(ranks), sys.executable, *args], capture_output=True,
                          text=True, timeout=300)


@pytest.mark.parametrize("ranks", [2, 4])
def test_plans_across_ranks_match_the_address_formula(ranks: int) -> None:
    run = _mpirun(ranks, str(HERE / "mpi_ranks.py"))
    assert run.returncode == 0 and run.stdout.strip() == "ok: 55 runs", run.stdout + run.stderr


def test_a_bad_call_raises_one_line_on_every_rank() -> None:
    run = _mpirun(4, str(HERE / "mpi_ranks.py"), "errors")
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines() == [
        "ValueError: share has shape (1, 16): the plan's share on each rank is (4, 16) (on rank 3 of 4)",
        "TypeError: share has dtype <f4 (float32): this plan is for <f8 (float64) (on rank 0 of 4)",
        "ValueError: comm has 4 ranks: the plan's 2^1 nodes are shared by 2^r ranks, a power of two up to 2",
        "TypeError: plan: expected an hcube.PermutePlan or hcube.AapcPlan, got FftPlan",
    ], run.stdout + run.stderr


def test_ranks_not_a_power_of_two_are_refused() -> None:
    run = _mpirun(3, str(HERE / "mpi_ranks.py"), "errors")
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[0] == \
        "ValueError: comm has 3 ranks: the plan's 2^4 nodes are shared by 2^r ranks, a power of two up to 16"


def test_the_documented_example_runs(tmp_path: Path) -> None:
    section = DOC.read_text().split("## Across MPI ranks", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    script = tmp_path / "transpose.py"
    script.write_text(code.group(1))
    run = _mpirun(4, str(script))
    # mpirun may interleave the ranks' lines: each rank's report is looked for, not a line.
    ranks: List[str] = sorted(re.findall(r"rank (\d) of 4: \(4, 16\) ok", run.stdout))
    assert run.returncode == 0 and ranks == ["0", "1", "2", "3"], run.stdout + run.stderr


def _import_error(prelude: str) -> str:
    run = subprocess.run([sys.executable, "-c", prelude + "\ntry:\n    import hcube.mpi\nexcept ImportError as e:\n"
                          "    print(e)\nelse:\n    print('imported')"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_import_without_mpi4py_names_it() -> None:
    message = _import_error("import sys; sys.modules['mpi4py'] = None")
    assert message.startswith("hcube.mpi needs mpi4py (pip install 'hcube-emulator[mpi]')"), message


def test_import_without_the_mpi_module_says_hcube_lacks_mpi() -> None:
    # A stand-in for mpi4py.MPI: the check for hcube's own MPI module comes next, and needs no MPI to run.
    message = _import_error("import sys, types; sys.modules['mpi4py.MPI'] = types.ModuleType('mpi4py.MPI'); "
                            "sys.modules['hcube._hcube_mpi'] = None")
    assert message.startswith("hcube.mpi needs hcube built with MPI"), message
