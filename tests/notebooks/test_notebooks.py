"""Every notebook in notebooks/ runs top to bottom without error."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path):
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    # the kernel's own temporary directory, none other test's (the suite runs on several
    # processes), and short: the stores a notebook makes there keep their sockets inside
    temp = Path(tempfile.mkdtemp(prefix="notebook-"))
    try:
        NotebookClient(notebook, timeout=300, kernel_name="python3",
                       resources={"metadata": {"path": str(tmp_path)}}).execute(
            env={**os.environ, "TMPDIR": str(temp)})
        outputs = [o for cell in notebook.cells if cell.cell_type == "code"
                   for o in cell.outputs]
        assert not [o for o in outputs if o.get("output_type") == "error"]
        assert outputs, "the notebook printed nothing"
        # a notebook run to the end leaves no store behind in the temporary directory
        assert not list(temp.glob("graphmem-*"))
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def test_there_are_notebooks():
    assert NOTEBOOKS
