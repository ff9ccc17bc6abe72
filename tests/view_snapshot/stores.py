"""A small store for the view snapshot tests: two agents, six facts in one namespace,
and the snapshot functions called as the views call them."""

from __future__ import annotations

from graphmem import view_snapshot as vs

NS = "snap"
FACTS = ["Ana repaired the blue bicycle at the harbour.", "Ben lost three letters at the market.",
         "Ana prefers tea to coffee.", "Ben moved to Toronto in May.",
         "Chloe painted the old mill red.", "Ana and Ben went camping by the river."]


def fill(graph, facts=FACTS):
    for agent in ("ana", "ben"):
        graph.register_agent(agent, kind="human", name=agent.capitalize(), ns=NS)
    for i, text in enumerate(facts):
        graph.remember("ana" if i % 2 == 0 else "ben", text,
                       witnesses=["ben" if i % 2 == 0 else "ana"], ns=NS)


def restore(graph):
    return vs.restore(graph._views.store, graph._views.queries, NS)


def keep(graph):
    view = graph._views.synced(NS)
    vs.keep(graph._views.store, graph._views.queries, view, graph._views.text_index(NS))


def snapshot_dir_of(graph):
    return vs.snapshot_dir(graph._views.store, NS)
