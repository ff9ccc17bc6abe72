"""GraphmemStore, a LangGraph BaseStore, on a real store with the real langgraph."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langgraph", reason='langgraph is not installed: pip install "graphmem[langgraph]"')

from langgraph.store.base import BaseStore

from graphmem.errors import InvalidInput
from graphmem.integrations.langgraph import GraphmemStore, matches


@pytest.fixture
def store(embedded_graph):
    return GraphmemStore(embedded_graph)


def test_put_get_update_delete(store):
    assert isinstance(store, BaseStore)
    ns = ("memories", "user-1")
    store.put(ns, "tea", {"text": "The user likes green tea.", "kind": "preference"})
    item = store.get(ns, "tea")
    assert item.value == {"text": "The user likes green tea.", "kind": "preference"}
    assert item.namespace == ns and item.key == "tea"
    store.put(ns, "tea", {"text": "The user likes oolong tea.", "kind": "preference"})
    again = store.get(ns, "tea")
    assert again.value["text"] == "The user likes oolong tea."
    assert again.created_at == item.created_at and again.updated_at >= item.updated_at
    store.delete(ns, "tea")
    assert store.get(ns, "tea") is None
    assert store.get(ns, "never-put") is None


def test_search_ranks_by_recall_within_the_namespace(store):
    me, other = ("memories", "user-1"), ("memories", "user-2")
    store.put(me, "tea", {"text": "The user likes green tea."})
    store.put(me, "bike", {"text": "The user cycles to work every day."})
    store.put(other, "tea", {"text": "This user hates tea."})
    found = store.search(me, query="What does the user like to drink?", limit=1)
    assert [(i.key, i.namespace) for i in found] == [("tea", me)]
    assert found[0].score > 0
    everything = store.search(("memories",), limit=10)
    assert {(i.namespace, i.key) for i in everything} == {(me, "tea"), (me, "bike"), (other, "tea")}
    assert store.list_namespaces(prefix=("memories",)) == [me, other]
    assert store.list_namespaces(max_depth=1) == [("memories",)]


def test_an_updated_value_is_what_search_finds(store):
    ns = ("prefs",)
    store.put(ns, "city", {"text": "The user lives in Lisbon."})
    store.put(ns, "city", {"text": "The user moved to Oslo."})
    found = store.search(ns, query="Where does the user live?")
    assert [i.value["text"] for i in found] == ["The user moved to Oslo."]
    store.delete(ns, "city")
    assert store.search(ns, query="Where does the user live?") == []


def test_filters_and_unindexed_items(store):
    ns = ("notes",)
    store.put(ns, "a", {"text": "Alpha report filed.", "priority": 3})
    store.put(ns, "b", {"text": "Beta report filed.", "priority": 7}, index=False)
    assert [i.key for i in store.search(ns, filter={"priority": {"$gte": 5}})] == ["b"]
    assert [i.key for i in store.search(ns, query="Which report was filed?")] == ["a"]
    assert matches({"x": 1}, {"x": 1}) and not matches({"x": 1}, {"x": {"$ne": 1}})
    with pytest.raises(InvalidInput):
        matches({"x": 1}, {"x": {"$regex": "."}})


def test_bad_namespaces_and_async(store):
    with pytest.raises(InvalidInput):
        store.put(("a/b",), "k", {"text": "x"})
    asyncio.run(store.aput(("async",), "k", {"text": "The kettle is in the attic."}))
    assert asyncio.run(store.aget(("async",), "k")).value["text"] == "The kettle is in the attic."
