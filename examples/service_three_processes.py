"""Three agent processes share one memory (and one loaded model) through ``graphmem serve``.

The script starts the service, then runs three agent processes at once, each a plain
Python process holding only a ``graphmem.Client`` (no torch, no model): each remembers
what it saw, with another agent present as witness. Then three processes recall, each
asking about what the agent it was with deposited.

    python examples/service_three_processes.py

Against a service you started yourself (``graphmem serve``), run one agent by hand:

    GRAPHMEM_SERVER=http://127.0.0.1:8765 python examples/service_three_processes.py \\
        --agent scout --phase recall
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from graphmem.service.client import Client

NS = "field-team"
SEEN = {  # agent: (what it saw, who was with it)
    "scout": ("The bridge at Elm Creek is washed out.", "medic"),
    "medic": ("The field clinic moved to the school gym.", "driver"),
    "driver": ("Fuel is rationed to ten litres per car.", "scout"),
}
ASK = {  # agent: a question about what its companion deposited
    "medic": "Which bridge is out?",
    "driver": "Where is the field clinic now?",
    "scout": "How much fuel can a car get?",
}


def act(agent: str, phase: str) -> dict:
    """One agent process: remember what it saw, or recall an answer."""
    with Client.from_env() as memory:
        if phase == "remember":
            text, companion = SEEN[agent]
            result = memory.remember(agent, text, witnesses=[companion], ns=NS)
            return {"agent": agent, "remembered": [a.text for a in result.atoms]}
        hit = memory.recall(agent, ASK[agent], k=1, ns=NS)[0]
        return {"agent": agent, "asked": ASK[agent], "recalled": hit.text, "owners": hit.owners,
                "torch_loaded": "torch" in sys.modules}


def run_agents(phase: str, env: dict[str, str]) -> list[dict]:
    """The three agents of one phase as three processes, at the same time."""
    procs = [subprocess.Popen([sys.executable, __file__, "--agent", agent, "--phase", phase],
                              env=env, stdout=subprocess.PIPE, text=True)
             for agent in SEEN]
    outputs = [p.communicate(timeout=120)[0] for p in procs]
    if any(p.returncode for p in procs):
        raise SystemExit(f"an agent process failed: {[p.returncode for p in procs]}")
    return [json.loads(out) for out in outputs]


def main(data_dir: str | None = None) -> list[dict]:
    from graphmem.service.spawn import spawned_service

    with tempfile.TemporaryDirectory() as tmp:
        with spawned_service(Path(data_dir or tmp) / "data") as service:
            env = {**os.environ, "GRAPHMEM_SERVER": service.url, "GRAPHMEM_TOKEN": service.token}
            for line in run_agents("remember", env):
                print(f"{line['agent']:>6} remembered: {line['remembered'][0]}")
            recalled = run_agents("recall", env)
            for line in recalled:
                print(f"{line['agent']:>6} asked {line['asked']!r} -> {line['recalled']} "
                      f"(owners: {', '.join(line['owners'])})")
            return recalled


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", choices=sorted(SEEN), help="Run one agent (a child process).")
    parser.add_argument("--phase", choices=["remember", "recall"], default="remember")
    parser.add_argument("--data-dir", default=None)
    args = parser.parse_args()
    if args.agent:
        print(json.dumps(act(args.agent, args.phase)))
    else:
        main(args.data_dir)
