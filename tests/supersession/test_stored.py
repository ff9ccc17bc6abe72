"""Claims kept with their memories: read back as they were read, never from another
release's reading, and used by a new process instead of a parse."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem import MemoryGraph
from graphmem.supersession import stored
from graphmem.supersession.claims import Claim
from graphmem.supersession.detector import SupersessionDetector
from graphmem.supersession.participants import Participant
from tests.store.test_durability import incr_bytes

T0 = datetime(2023, 3, 1, tzinfo=timezone.utc)
_words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_participants = st.builds(Participant, _words, st.sampled_from(["name", "thing", "time"]),
                          _words, st.booleans())
_claims = st.builds(Claim, st.sampled_from(["state", "event", "utterance", "none"]), _words,
                    _words, st.frozensets(_words, max_size=3),
                    st.tuples(_participants, _participants), st.booleans(), st.booleans(),
                    _words)


def parsed_from_now(monkeypatch) -> list[str]:
    """The texts every detector parses from now on (not those it read before)."""
    parsed: list[str] = []
    original = SupersessionDetector.claims

    def counting(self, texts):
        texts = list(texts)
        parsed.extend(t for t in texts if t not in self._claims)
        return original(self, texts)

    monkeypatch.setattr(SupersessionDetector, "claims", counting)
    return parsed


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(_words, _claims, max_size=4))
def test_a_kept_claim_reads_back_as_it_was_read(claims):
    assert stored.decode(stored.encode(claims)) == claims


def test_another_reading_or_damage_is_not_trusted():
    claim = SupersessionDetector().claim("Ana lives in Berlin.")
    kept = json.loads(stored.encode({"Ana lives in Berlin.": claim}))
    kept["reading"] = "an older release"
    assert stored.decode(json.dumps(kept)) == {}
    assert stored.decode('{"reading": ') == {}
    assert stored.decode(None) == {}


def test_a_new_process_finds_the_replaced_claim_without_parsing_it(tmp_path, embedder,
                                                                   monkeypatch):
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        old = g.remember("ana", "The hosting provider is Hetzner.", at=T0).memory_ids[0]
        kept = g.cypher("MATCH (m:Memory {id: $m}) RETURN m.claims AS c", {"m": old})[0]["c"]
        assert "The hosting provider is Hetzner." in stored.decode(kept)
    parsed = parsed_from_now(monkeypatch)
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        new = g.remember("ana", "We switched the hosting provider to Vercel.",
                         at=T0 + timedelta(days=2)).memory_ids[0]
        assert g.cypher("MATCH (m:Memory {id: $m}) RETURN m.superseded_by AS by",
                        {"m": old})[0]["by"] == new
    assert "The hosting provider is Hetzner." not in parsed
    assert "We switched the hosting provider to Vercel." in parsed


def test_reclaim_keeps_claims_with_imported_and_outdated_memories_and_nothing_else(
        tmp_path, embedder, monkeypatch):
    texts = ["The hosting provider is Hetzner.", "Ana lives in Berlin."]
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        g.register_agent("ana", kind="human")
        written = g.remember("ana", "The office opens at nine.", at=T0).memory_ids[0]
        rows = [{"id": f"bulk-{i}", "text": t, "t": 1_600_000_000_000 + i, "owners": ["ana"],
                 "embedding": [float(x) for x in v]}
                for i, (t, v) in enumerate(zip(texts, embedder.embed(texts)))]
        g.query("bulk/load_memories", {"ns": "default", "seq": 2, "rows": rows}, write=True)
        g.query("bulk/set_version", {"ns": "default", "version": 2}, write=True)
        outdated = json.loads(g.cypher("MATCH (m:Memory {id: $m}) RETURN m.claims AS c",
                                       {"m": written})[0]["c"])
        outdated["reading"] = "an older release"
        g.cypher("MATCH (m:Memory {id: 'bulk-1'}) SET m.claims = $c",
                 {"c": json.dumps(outdated)}, write=True)  # another release's reading
        assert g.reclaim(batch=1) == {"default": 2}
        assert incr_bytes(tmp_path / "d") == 0  # the log was compacted: no claim replayed
        assert g.reclaim() == {"default": 0}  # nothing left to read
        kept = {r["id"]: stored.decode(r["c"]) for r in g.cypher(
            "MATCH (m:Memory) RETURN m.id AS id, m.claims AS c")}
        assert set(kept["bulk-0"]) == {texts[0]} and set(kept["bulk-1"]) == {texts[1]}
        assert kept["bulk-0"][texts[0]] == SupersessionDetector().claim(texts[0])
        assert g.check() == []
        view = g._views.synced("default")
        assert stored.decode(view.records["bulk-0"].claims) == kept["bulk-0"]
    parsed = parsed_from_now(monkeypatch)
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        new = g.remember("ana", "We switched the hosting provider to Vercel.",
                         at=T0 + timedelta(days=2)).memory_ids[0]
        assert g.cypher("MATCH (m:Memory {id: 'bulk-0'}) RETURN m.superseded_by AS by"
                        )[0]["by"] == new
    assert texts[0] not in parsed  # read from what reclaim kept


def test_reclaim_says_so_when_no_claims_are_kept(tmp_path, embedder):
    from graphmem import WriteConfig
    from graphmem.errors import ConfigError

    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder,
                          write_config=WriteConfig(supersession=False)) as g:
        with pytest.raises(ConfigError, match="supersession off"):
            g.reclaim()


def test_the_claims_a_writer_keeps_are_not_walked_by_the_garbage_collector():
    """A writer keeps up to 200,000 claims: as tuples of strings, which the collector
    stops tracking, not as objects it walks at every full collection."""
    import gc

    detector = SupersessionDetector()
    text = "Ana moved from Berlin to Lisbon in May."
    claim = detector.claim(text)
    assert claim.participants
    for _ in range(3):  # a collection untracks a tuple once what it holds is untracked
        gc.collect()
    assert not [packed for packed in detector._claims.values() if gc.is_tracked(packed)]
    assert detector.claim(text) == claim  # as read, from what it keeps
    assert stored.decode(detector.kept([text])) == {text: claim}
