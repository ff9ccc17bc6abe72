"""CLI commands go to the service when GRAPHMEM_SERVER is set, without loading torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys

# runs the CLI, then reports whether the model's libraries were imported
PROBE = """
import sys
from graphmem.cli import main
sys.argv = ["graphmem", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    code = exc.code
print("HEAVY:" + ",".join(m for m in ("torch", "sentence_transformers")
                          if m in sys.modules), file=sys.stderr)
sys.exit(code)
"""


def cli(service, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "GRAPHMEM_SERVER": service.url, "GRAPHMEM_TOKEN": service.token}
    return subprocess.run([sys.executable, "-c", PROBE, *args], env=env, text=True,
                          capture_output=True, timeout=60, check=False)


def test_remember_recall_stats_through_the_service(service):
    ns = "cli-remote"
    done = cli(service, "remember", "ada", "The kiln fires on Tuesdays.", "--ns", ns, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["action"] == "created"
    found = cli(service, "recall", "ada", "When does the kiln fire?", "--ns", ns, "--json")
    assert json.loads(found.stdout)[0]["text"] == "The kiln fires on Tuesdays."
    stats = cli(service, "stats", "--ns", ns, "--json")
    assert json.loads(stats.stdout)["entries"] == 1
    memory_id = json.loads(done.stdout)[0]["memory_id"]
    forgot = cli(service, "forget", memory_id, "--by", "ada", "--ns", ns)
    assert forgot.returncode == 0, forgot.stderr
    for run in (done, found, stats, forgot):
        assert "HEAVY:\n" in run.stderr or run.stderr.rstrip().endswith("HEAVY:"), run.stderr


def test_a_bad_deposit_is_one_error_line(service):
    bad = cli(service, "remember", "ada", " ", "--ns", "cli-remote")
    assert bad.returncode == 1
    assert "error: invalid deposit: text: text is empty" in bad.stderr
