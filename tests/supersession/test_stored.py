"""Claims kept with their memories: read back as they were read, never from another
release's reading, and used by a new process instead of a parse."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem import MemoryGraph
from graphmem.supersession import stored
from graphmem.supersession.claims import Claim
from graphmem.supersession.detector import SupersessionDetector
from graphmem.supersession.participants import Participant

T0 = datetime(2023, 3, 1, tzinfo=timezone.utc)
_words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_participants = st.builds(Participant, _words, st.sampled_from(["name", "thing", "time"]),
                          _words, st.booleans())
_claims = st.builds(Claim, st.sampled_from(["state", "event", "utterance", "none"]), _words,
                    _words, st.frozensets(_words, max_size=3),
                    st.tuples(_participants, _participants), st.booleans(), st.booleans(),
                    _words)


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
    parsed: list[str] = []
    original = SupersessionDetector.claims

    def counting(self, texts):
        texts = list(texts)
        parsed.extend(t for t in texts if t not in self._claims)
        return original(self, texts)

    monkeypatch.setattr(SupersessionDetector, "claims", counting)
    with MemoryGraph.open(data_dir=tmp_path / "d", embedder=embedder) as g:
        new = g.remember("ana", "We switched the hosting provider to Vercel.",
                         at=T0 + timedelta(days=2)).memory_ids[0]
        assert g.cypher("MATCH (m:Memory {id: $m}) RETURN m.superseded_by AS by",
                        {"m": old})[0]["by"] == new
    assert "The hosting provider is Hetzner." not in parsed
    assert "We switched the hosting provider to Vercel." in parsed
