"""Identifiers are checked at the API: a bad one is refused naming its field, nothing is
written, and no identifier the API accepts can stop the shared server."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem import ConfigError, InvalidInput, MemoryGraph
from graphmem.models import MAX_ID_CHARS
from graphmem.settings import StoreSettings

BAD_IDS = [("", "empty"), (" tom", "whitespace"), ("tom\n", "whitespace"),
           ("t\x00m", "control"), ("t\x1bm", "control"), ("tom\ud800", "surrogate"),
           ("x" * (MAX_ID_CHARS + 1), "more than"), (7, "must be a str"),
           (b"tom", "must be a str")]


def count_memories(g: MemoryGraph) -> int:
    return g.cypher("MATCH (m:Memory) RETURN count(m) AS n")[0]["n"]


@pytest.mark.parametrize("bad, why", BAD_IDS)
@pytest.mark.parametrize("field", ["agent", "witnesses", "told_by", "ns"])
def test_a_bad_identifier_is_refused_naming_its_field(mem, field, bad, why):
    kwargs = {"witnesses": [bad]} if field == "witnesses" else {field: bad}
    args = {"agent": "ana", "text": "The bell rang twice.", **kwargs}
    with pytest.raises(InvalidInput, match=f"{field}.*{why}"):
        mem.remember(**args)
    assert count_memories(mem) == 0


def test_witnesses_given_as_one_string_are_refused_not_split(mem):
    with pytest.raises(InvalidInput, match=r"witnesses must be a list.*\['tom'\]"):
        mem.remember("ana", "The bell rang twice.", witnesses="tom")
    assert count_memories(mem) == 0


@pytest.mark.parametrize("call", [
    lambda g: g.recall(" ana", "bell?"), lambda g: g.recall("ana", "bell?", ns="a\x00"),
    lambda g: g.register_agent("ana ", ns="x"), lambda g: g.drop_namespace(""),
    lambda g: g.unmerge("m-1\t"), lambda g: g.knew_at("", "2024-01-01"),
    lambda g: g.stats(ns=" x"), lambda g: g.set_strict("x\ud800")])
def test_every_api_call_checks_its_identifiers(mem, call):
    with pytest.raises(InvalidInput):
        call(mem)


def test_an_unknown_agent_kind_is_refused(mem):
    with pytest.raises(InvalidInput, match="unknown agent kind 'wizard'"):
        mem.register_agent("ana", kind="wizard")


def test_a_bad_deposit_in_remember_many_names_its_index_and_what_was_applied(mem):
    with pytest.raises(InvalidInput, match="deposit 1 of 3.*nothing was applied"):
        mem.remember_many([{"agent": "ana", "text": "One."}, {"agent": " ana", "text": "Two."},
                           {"agent": "ben", "text": "Three."}])
    assert count_memories(mem) == 0
    mem.register_agent("ana", ns="strict")
    mem.set_strict("strict")
    with pytest.raises(InvalidInput, match="deposit 1 of 2.*deposits 0 to 0 were applied"):
        mem.remember_many([{"agent": "ana", "text": "The gate opened."},
                           {"agent": "zed", "text": "The gate closed."}], ns="strict")
    assert count_memories(mem) == 1


def test_a_bad_fsync_setting_names_the_variable(monkeypatch):
    monkeypatch.setenv("GRAPHMEM_FSYNC", "sometimes")
    with pytest.raises(ConfigError, match="GRAPHMEM_FSYNC = 'sometimes'"):
        StoreSettings.from_env()


def test_an_unknown_named_query_is_a_clear_error(mem):
    with pytest.raises(InvalidInput, match="no query named 'who_knew/owner_of'.*owners_of"):
        mem.query("who_knew/owner_of", {"ns": "default"})


ids = st.text(st.characters(codec="utf-8"), min_size=0, max_size=12) | st.sampled_from(
    [" a", "a ", "\ta", "a\u00a0", "\u2003b", "", "a\x00b", "é", "名前", "a b"])


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(agent=ids, ns=ids)
def test_no_identifier_the_api_accepts_can_stop_the_server(embedded_graph, agent, ns):
    g = embedded_graph
    try:
        g.register_agent(agent, ns=ns)
        g.remember(agent, "The bell rang twice.", ns=ns, witnesses=["bo"] if agent != "bo" else [])
    except InvalidInput:
        pass
    assert g.cypher("RETURN 1 AS one") == [{"one": 1}]  # the server still answers
