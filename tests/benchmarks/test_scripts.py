"""The benchmark scripts run on a small slice of the real data.

Nothing else imports them, so a change to what they read breaks them without any other
test noticing: `ivf_bench.py` failed for sessions after the view's row columns came.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _run(script: str, *args: str, cwd: Path) -> str:
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args],
                          capture_output=True, text=True, timeout=900, cwd=cwd,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})
    assert done.returncode == 0, f"{script} failed:\n{done.stderr[-3000:]}"
    return done.stdout


def test_sentence_vectors_feed_the_index_benchmark(tmp_path, shared_data):
    out = tmp_path / "vectors"
    _run("sentence_vectors.py", "--out", str(out), "--data", str(shared_data),
         "--limit", "600", cwd=tmp_path)
    blocks = sorted(out.glob("v*.npy"))
    assert [b.name for b in blocks] == ["v000.npy"]
    vectors = np.load(blocks[0])
    assert vectors.shape == (600, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert len({v.tobytes() for v in vectors}) == 600  # each sentence once
    report = json.loads(_run("ivf_bench.py", "--vectors", str(out), "--queries", "40",
                             cwd=tmp_path))
    assert report["rows"] == 560 and report["queries"] == 40
    assert 0 < report["agent_rows"] < 560
    recalls = [side["recall@10_report"] for row in report["settings"].values()
               for side in row.values()]
    assert len(recalls) == 20 and all(0.0 <= r <= 1.0 for r in recalls)
    # a quarter of the lists over real sentences finds most of the whole view's
    # neighbours (an agent's tenth here is 56 rows: too few to say anything)
    shipped = report["settings"]["share 0.25, margin 190"]
    assert shipped["all"]["recall@10_report"] >= 0.9, report["settings"]
