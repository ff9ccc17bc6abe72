"""The lazy containers a snapshot loads into behave as the dict and list they replace."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.view_snapshot.lazy import LazyDict, LazyList, read_json_column, write_json_column

KEYS = st.sampled_from([f"k{i}" for i in range(8)])
OPS = st.lists(st.tuples(st.sampled_from(["get", "set", "del", "contains", "setdefault"]),
                         KEYS, st.integers(0, 99)), max_size=40)


@settings(max_examples=200, deadline=None)
@given(initial=st.dictionaries(KEYS, st.integers(0, 99)), ops=OPS)
def test_a_lazy_dict_answers_as_a_dict(initial, ops):
    keys = list(initial)
    made = []
    lazy = LazyDict(keys, lambda i: made.append(i) or [initial[keys[i]]])
    model = {k: [v] for k, v in initial.items()}
    for op, key, value in ops:
        if op == "get":
            assert lazy.get(key) == model.get(key)
        elif op == "set":
            lazy[key] = model[key] = [value]
        elif op == "del" and key in model:
            del lazy[key], model[key]
        elif op == "contains":
            assert (key in lazy) == (key in model)
        elif op == "setdefault":
            lazy.setdefault(key, [value]).append(value)
            model.setdefault(key, [value]).append(value)
        assert len(lazy) == len(model)
    assert dict(lazy.items()) == model
    assert sorted(lazy) == sorted(model)
    assert len(made) == len(set(made))  # each value is made once, then kept


def test_an_unread_entry_is_copied_as_saved_and_a_read_one_is_not(tmp_path):
    write_json_column(tmp_path, "c", [{"a": 1}, {"b": 2}])
    column = read_json_column(tmp_path, "c")
    lazy = LazyDict(["x", "y"], lambda i: column[i], source=column.raw)
    assert lazy.raw_of("x") == json.dumps({"a": 1}, separators=(",", ":")).encode()
    lazy["y"]["b"] = 3
    assert lazy.raw_of("y") is None and lazy["y"] == {"b": 3}


@settings(max_examples=100, deadline=None)
@given(initial=st.lists(st.integers()), ops=st.lists(
    st.tuples(st.sampled_from(["get", "set", "append"]), st.integers(0, 30), st.integers()),
    max_size=30))
def test_a_lazy_list_answers_as_a_list(initial, ops):
    lazy = LazyList(len(initial), lambda i: initial[i])
    model = list(initial)
    for op, i, value in ops:
        if op == "append":
            lazy.append(value)
            model.append(value)
        elif model and op == "get":
            assert lazy[i % len(model)] == model[i % len(model)]
        elif model and op == "set":
            lazy[i % len(model)] = model[i % len(model)] = value
    assert list(lazy) == model and len(lazy) == len(model)
