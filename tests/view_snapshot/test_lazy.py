"""The lazy containers a snapshot loads into behave as the dict and list they replace."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.view_snapshot.lazy import (LazyDict, LazyList, copy_json_column, load_array,
                                         read_json_column, write_json_column)

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


def test_a_value_changed_in_place_is_saved_as_it_is_now(tmp_path):
    write_json_column(tmp_path, "c", [{"a": 1}, {"b": 2}])
    column = read_json_column(tmp_path, "c")
    keys = ["x", "y"]
    lazy = LazyDict(keys, lambda i: column[i], source=column)
    lazy["y"]["b"] = 3
    copy_json_column(tmp_path, "d", column, lazy.saved_positions(keys), lambda i: lazy[keys[i]])
    saved = read_json_column(tmp_path, "d")
    assert [saved[0], saved[1]] == [{"a": 1}, {"b": 3}]
    # without the column it was saved in, every value is written from what it is
    assert LazyDict(keys, lambda i: column[i]).saved_positions(keys).tolist() == [-1, -1]
    assert LazyList(2, lambda i: column[i]).saved_positions().tolist() == [-1, -1]


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


@settings(max_examples=200, deadline=None)
@given(saved=st.lists(st.one_of(st.integers(), st.text(max_size=5), st.lists(st.text(
    max_size=3), max_size=3)), max_size=12), picks=st.lists(st.integers(-3, 14), max_size=20))
def test_a_copied_column_holds_the_saved_values_and_the_encoded_ones(tmp_path_factory, saved,
                                                                    picks):
    """`copy_json_column`: the i-th value is saved's ``positions[i]``-th, copied in runs
    where positions go up by one, else the one encoded here; any order, repeats, gaps."""
    directory = tmp_path_factory.mktemp("copy")
    write_json_column(directory, "saved", saved)
    column = read_json_column(directory, "saved")
    positions = [p if 0 <= p < len(saved) else -1 for p in picks]
    encoded = {i: {"new": i} for i, p in enumerate(positions) if p < 0}
    assert copy_json_column(directory, "copy", column, positions, lambda i: encoded[i]) == \
        len(positions)
    copied = read_json_column(directory, "copy")
    assert [copied[i] for i in range(len(copied))] == \
        [saved[p] if p >= 0 else encoded[i] for i, p in enumerate(positions)]


def test_a_lazy_dict_and_list_name_the_values_still_as_saved(tmp_path):
    write_json_column(tmp_path, "c", [1, 2, 3])
    column = read_json_column(tmp_path, "c")
    lazy = LazyDict(["x", "y", "z"], lambda i: column[i], source=column)
    assert lazy["y"] == 2  # read: no longer copied
    lazy["w"] = 4
    assert lazy.saved_positions(["x", "y", "z", "w"]).tolist() == [0, -1, 2, -1]
    items = LazyList(3, lambda i: column[i], source=column)
    items[2] = 9
    items.append(5)
    assert items.saved_positions().tolist() == [0, 1, -1, -1]


def _resident_kb(path) -> int:
    """Resident kB of this process's mappings of ``path`` (/proc/self/smaps)."""
    total, inside = 0, False
    for line in open("/proc/self/smaps"):
        if line[0] in "0123456789abcdef" and "-" in line.split()[0]:
            inside = line.rstrip().endswith(str(path))
        elif inside and line.startswith("Rss:"):
            total += int(line.split()[1])
    return total


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/smaps is Linux's")
def test_a_populated_array_is_mapped_at_once_and_stays_the_files(tmp_path):
    values = np.arange(2_000_000, dtype=np.float32)  # 8 MB
    for name in ("lazy.npy", "populated.npy"):
        np.save(tmp_path / name, values)
    lazy = load_array(tmp_path / "lazy.npy")
    populated = load_array(tmp_path / "populated.npy", populate=True)
    assert _resident_kb(tmp_path / "populated.npy") >= 7_500  # every page, before a read
    assert _resident_kb(tmp_path / "lazy.npy") < 1_000  # nothing read yet
    assert np.array_equal(populated, values) and np.array_equal(lazy, values)
    populated[0] = -1.0  # copy-on-write: the file keeps its values
    assert np.load(tmp_path / "populated.npy")[0] == 0.0
    assert lazy[1] == 1.0
