"""The small slice of LoCoMo the benchmark scripts' tests run on: the first two sessions
of three conversations (each a fold of its own), and the questions whose evidence lies
in them."""

from __future__ import annotations

from graphmem.ingestion.benchmarks.locomo import normalise_evidence

CONVERSATIONS = ("conv-26", "conv-30", "conv-41")
SESSIONS = 2


def first_sessions(conversation: dict, n: int) -> dict:
    """A LoCoMo conversation cut to its first ``n`` sessions and the questions whose
    evidence lies in them."""
    kept = {"speaker_a": conversation["speaker_a"], "speaker_b": conversation["speaker_b"]}
    for s in range(1, n + 1):
        kept[f"session_{s}_date_time"] = conversation[f"session_{s}_date_time"]
        kept[f"session_{s}"] = conversation[f"session_{s}"]

    def within(question: dict) -> bool:
        ids, _, unreadable = normalise_evidence(question.get("evidence") or [])
        return bool(ids) and not unreadable and all(
            int(i[1:].split(":")[0]) <= n for i in ids)

    kept["qa"] = [q for q in conversation["qa"] if within(q)]
    return kept
