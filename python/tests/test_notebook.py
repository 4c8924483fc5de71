"""examples/teaching.ipynb runs top to bottom, so it cannot rot."""
import pathlib

import pytest

NOTEBOOK = pathlib.Path(__file__).resolve().parents[2] / "examples" / "teaching.ipynb"


def test_teaching_notebook_runs() -> None:
    nbformat = pytest.importorskip("nbformat", reason="pip install nbformat nbclient ipykernel to run the notebook")
    nbclient = pytest.importorskip("nbclient", reason="pip install nbclient ipykernel to run the notebook")
    pytest.importorskip("ipykernel", reason="pip install ipykernel to run the notebook")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    # The page is shown inline, as an iframe holding the whole page.
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    assert any(h.startswith("<iframe srcdoc=") for h in html)
    # And Algorithms 1 and 4 side by side, two machines stepping together.
    assert any("2 runs side by side" in h for h in html)
