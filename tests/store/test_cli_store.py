"""The store commands as a user runs them: a real `graphmem` process per command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem import MemoryGraph, WriteConfig
from graphmem.errors import CorruptDataError
from graphmem.supersession.stored import READING, RECLAIM
from tests.cli import graphmem


def incr_aof(data: Path) -> Path:
    return next((data / "appendonlydir").glob("*.incr.aof"))


def damage_after(aof: Path, offset: int) -> None:
    """Overwrite the first command header after ``offset`` so the file cannot parse."""
    data = bytearray(aof.read_bytes())
    at = data.index(b"\r\n*", offset) + 2
    data[at:at + 8] = b"#damaged"
    aof.write_bytes(bytes(data))


def test_repair_restores_the_writes_before_the_damage(tmp_path):
    data = tmp_path / "data"
    with MemoryGraph.open(data_dir=data) as g:
        for i in range(30):
            g.cypher("CREATE (:Memory {ns: 'before', id: $id})", {"id": f"a{i:02}"}, write=True)
        intact = incr_aof(data).stat().st_size  # everything up to here must survive
        for i in range(30):
            g.cypher("CREATE (:Memory {ns: 'after', id: $id})", {"id": f"b{i:02}"}, write=True)
    damage_after(incr_aof(data), intact + (incr_aof(data).stat().st_size - intact) // 2)
    damaged_copy = incr_aof(data).read_bytes()
    with pytest.raises(CorruptDataError):
        MemoryGraph.open(data_dir=data)

    done = graphmem("repair", "--data-dir", str(data))
    assert done.returncode == 0, done.stderr
    assert "Successfully truncated" in done.stdout
    backups = list(data.glob("appendonlydir.backup-*"))
    assert len(backups) == 1
    assert (backups[0] / incr_aof(data).name).read_bytes() == damaged_copy

    with MemoryGraph.open(data_dir=data) as g:
        before = g.cypher("MATCH (m:Memory {ns: 'before'}) RETURN m.id AS id ORDER BY id")
        after = g.cypher("MATCH (m:Memory {ns: 'after'}) RETURN m.id AS id ORDER BY id")
    assert [r["id"] for r in before] == [f"a{i:02}" for i in range(30)]
    kept = [r["id"] for r in after]  # the writes up to the damage, in order
    assert 0 < len(kept) < 30 and kept == [f"b{i:02}" for i in range(len(kept))]


def test_repair_refuses_while_the_store_is_open(tmp_path):
    data = tmp_path / "data"
    with MemoryGraph.open(data_dir=data) as g:
        done = graphmem("repair", "--data-dir", str(data))
        assert done.returncode == 1
        assert f"the server (pid {g._store.server.pid})" in done.stderr
        assert "close every process" in done.stderr
        assert not list(data.glob("appendonlydir.backup-*"))


def test_repair_of_a_directory_without_a_store(tmp_path):
    done = graphmem("repair", "--data-dir", str(tmp_path))
    assert done.returncode == 1
    assert done.stderr.startswith("error: no append-only manifest")


def test_repair_that_cannot_help_says_so(tmp_path):
    data = tmp_path / "data"
    with MemoryGraph.open(data_dir=data) as g:
        g.cypher("CREATE (:Memory {ns: 't', id: 'x'})", write=True)
    base = next((data / "appendonlydir").glob("*.base.rdb"))
    raw = bytearray(base.read_bytes())
    raw[20:32] = b"XXXXXXXXXXXX"  # inside the RDB preamble: not a truncation fix
    base.write_bytes(bytes(raw))
    done = graphmem("repair", "--data-dir", str(data))
    assert done.returncode == 1
    assert "could not repair" in done.stderr and "backup kept in" in done.stderr


def test_unusable_data_dir_is_one_error_line(tmp_path):
    (tmp_path / "file").write_text("")
    done = graphmem("--data-dir", str(tmp_path / "file" / "data"), "status")
    assert done.returncode == 1
    assert done.stderr.startswith("error: data directory")
    assert "Traceback" not in done.stderr


def test_bad_uri_is_one_error_line(tmp_path):
    done = graphmem("--uri", "mysql://db:3306", "status")
    assert done.returncode == 1
    assert done.stderr.startswith("error: unsupported store URI scheme 'mysql'")



def test_a_file_where_the_append_only_directory_belongs_is_named(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "appendonlydir").write_text("not a directory")
    done = graphmem("--data-dir", str(data), "status")
    assert done.returncode == 1
    assert "appendonlydir is a file" in done.stderr and "did not start" not in done.stderr


def test_an_unknown_named_query_is_one_error_line(tmp_path):
    done = graphmem("--data-dir", str(tmp_path / "d"), "cypher", "@who_knew/owner_of")
    assert done.returncode == 1
    assert "no query named 'who_knew/owner_of'" in done.stderr and "Traceback" not in done.stderr


def test_reclaim_keeps_claims_with_imported_memories(tmp_path, embedder):
    data = tmp_path / "d"
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g:
        g.register_agent("ana", kind="human")
        _load_without_claims(g, embedder, "The hosting provider is Hetzner.")
    done = graphmem("--data-dir", str(data), "reclaim")
    assert done.returncode == 0, done.stderr
    assert "default: 1 memories given claims" in done.stdout
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g:
        assert g.cypher("MATCH (m:Memory {id: 'bulk-0'}) RETURN m.claims AS c")[0]["c"]
    assert graphmem("--data-dir", str(data), "reclaim", "--batch", "0").returncode != 0


def test_relink_removes_a_stale_timeline_edge(tmp_path, embedder):
    data = tmp_path / "d"
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g:
        g.remember("ana", "Ben repaired the blue bicycle.", at="2024-03-01T10:00")
        g.remember("ana", "Ben painted the old mill.", at="2024-03-02T10:00")
        g.remember("ana", "Ben lost the spare key.", at="2024-03-03T10:00")
        ids = [r["id"] for r in g.cypher(
            "MATCH (:StoryArc {id: 'arc:person:ben'})-[r:INCLUDES]->(m) "
            "RETURN m.id AS id ORDER BY r.t")]
        g.cypher("MATCH (x:Memory {id: $a}), (y:Memory {id: $b}) "
                 "CREATE (x)-[:NEXT {arc: 'arc:person:ben'}]->(y)",
                 {"a": ids[0], "b": ids[2]}, write=True)
    checked = graphmem("--data-dir", str(data), "relink", "--check")
    assert checked.returncode == 1, checked.stderr
    assert "default: 1 NEXT edges to remove or add (nothing changed" in checked.stdout
    done = graphmem("--data-dir", str(data), "relink")
    assert done.returncode == 0, done.stderr
    assert "default: 1 NEXT edges removed or added" in done.stdout
    again = graphmem("--data-dir", str(data), "relink", "--check")
    assert again.returncode == 0 and "default: 0 NEXT edges to remove" in again.stdout
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g:
        links = g.cypher("MATCH (x)-[:NEXT {arc: 'arc:person:ben'}]->(y) "
                         "RETURN x.id AS a, y.id AS b")
    assert sorted((r["a"], r["b"]) for r in links) == sorted(zip(ids, ids[1:]))


RELINK_DUE = "after the upgrade: run `graphmem relink` once"


def test_a_store_whose_timelines_an_older_release_linked_asks_for_relink_until_done(
        tmp_path, embedder, caplog):
    """A new store records the relink as done when it opens (it holds no timeline yet);
    one of an older release (timelines, no record) says at every open, in `status` and
    in `check` that relink is due, until relink has run (not its --check)."""
    data = tmp_path / "d"
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g:
        g.remember("ana", "Ben repaired the blue bicycle.", at="2024-03-01T10:00")
        g.remember("ana", "Ben painted the old mill.", at="2024-03-02T10:00")
        assert g.upgrades_pending() == []
        g.cypher("MATCH (u:GraphmemUpgrade) DELETE u", write=True)  # as an older release
    with caplog.at_level("WARNING", logger="graphmem.store.upgrades"):
        with MemoryGraph.open(data_dir=data, embedder=embedder) as g:
            assert [str(u) for u in g.upgrades_pending()][0].startswith("run `graphmem relink`")
            g.relink_timelines(check=True)
            assert len(g.upgrades_pending()) == 1  # a count is not a relink
    assert "needs an upgrade: run `graphmem relink` once" in caplog.text
    status = graphmem("--data-dir", str(data), "status")
    assert status.returncode == 0 and RELINK_DUE in status.stdout, status.stderr
    check = graphmem("--data-dir", str(data), "check")
    assert check.returncode == 0 and RELINK_DUE in check.stdout, check.stderr
    assert "the store is whole" in check.stdout
    assert graphmem("--data-dir", str(data), "relink").returncode == 0
    status = graphmem("--data-dir", str(data), "status", "--json")
    assert status.returncode == 0 and '"upgrades_pending": []' in status.stdout, status.stderr
    caplog.clear()
    with caplog.at_level("WARNING", logger="graphmem.store.upgrades"):
        MemoryGraph.open(data_dir=data, embedder=embedder).close()
    assert "needs an upgrade" not in caplog.text


def test_an_older_store_without_timelines_owes_no_relink(tmp_path, embedder):
    data = tmp_path / "d"
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g:
        g.cypher("MATCH (u:GraphmemUpgrade) DELETE u", write=True)
        g.cypher("CREATE (:Memory {ns: 'default', id: 'm1', text: 'a note'})", write=True)
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g:
        assert g.upgrades_pending() == [str(RECLAIM)]  # its memory keeps no claims
        done = g.cypher("MATCH (u:GraphmemUpgrade) RETURN u.name AS name")
    assert [r["name"] for r in done] == ["relink_timelines"]


RECLAIM_DUE = "after the upgrade: run `graphmem reclaim` once"


def _load_without_claims(g, embedder, text: str) -> None:
    g.query("bulk/load_memories", {"ns": "default", "seq": 2, "rows": [
        {"id": "bulk-0", "text": text, "t": 1_600_000_000_000, "owners": ["ana"],
         "embedding": [float(x) for x in embedder.embed([text])[0]]}]}, write=True)
    g.query("bulk/set_version", {"ns": "default", "version": 2}, write=True)


def test_reclaim_is_asked_for_where_memories_keep_no_claims_of_this_reading(
        tmp_path, embedder, caplog):
    """A store this release wrote owes no reclaim; a bulk load without claims makes it
    due (at every open, in `status` and in `check`) until reclaim has run; so does a
    memory another release read, even where an older reading's reclaim was recorded."""
    data = tmp_path / "d"
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g:
        g.remember("ana", "The office opens at nine.", at="2024-03-01T10:00")
        assert g.upgrades_pending() == []
        _load_without_claims(g, embedder, "The hosting provider is Hetzner.")
        assert g.upgrades_pending() == [str(RECLAIM)]
    with caplog.at_level("WARNING", logger="graphmem.store.upgrades"):
        MemoryGraph.open(data_dir=data, embedder=embedder).close()
    assert "needs an upgrade: run `graphmem reclaim` once" in caplog.text
    status = graphmem("--data-dir", str(data), "status")
    assert status.returncode == 0 and RECLAIM_DUE in status.stdout, status.stderr
    check = graphmem("--data-dir", str(data), "check")
    assert check.returncode == 0 and RECLAIM_DUE in check.stdout, check.stderr
    done = graphmem("--data-dir", str(data), "reclaim")
    assert done.returncode == 0 and "default: 1 memories given claims" in done.stdout
    status = graphmem("--data-dir", str(data), "status", "--json")
    assert status.returncode == 0 and '"upgrades_pending": []' in status.stdout, status.stderr
    caplog.clear()
    with caplog.at_level("WARNING", logger="graphmem.store.upgrades"):
        with MemoryGraph.open(data_dir=data, embedder=embedder) as g:
            assert g.upgrades_pending() == []
            # as after an upgrade: the record names an older reading, a memory keeps it
            g.cypher("MATCH (u:GraphmemUpgrade) WHERE u.name STARTS WITH 'reclaim ' "
                     "SET u.name = 'reclaim an-older-reading'", write=True)
            g.cypher("MATCH (m:Memory {id: 'bulk-0'}) SET m.claims = $c", {"c": json.dumps(
                {"reading": "an-older-reading", "claims": {}})}, write=True)
    assert "needs an upgrade" not in caplog.text
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g:
        assert g.upgrades_pending() == [str(RECLAIM)]
        assert g.reclaim() == {"default": 1}
        assert g.upgrades_pending() == []
        done = g.cypher("MATCH (u:GraphmemUpgrade) RETURN u.name AS name")
    # the older reading's record is forgotten: one record a versioned upgrade
    assert sorted(r["name"] for r in done) == ["reclaim " + READING, "relink_timelines"]


def test_a_store_whose_memories_all_keep_this_reading_records_reclaim_done_at_open(
        tmp_path, embedder):
    """A store of this release written before the record existed is looked at once."""
    data = tmp_path / "d"
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g:
        g.remember("ana", "The office opens at nine.", at="2024-03-01T10:00")
        g.cypher("MATCH (u:GraphmemUpgrade) DELETE u", write=True)
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g:
        assert g.upgrades_pending() == []
        done = g.cypher("MATCH (u:GraphmemUpgrade) RETURN u.name AS name")
    assert sorted(r["name"] for r in done) == ["reclaim " + READING, "relink_timelines"]


def test_a_handle_that_keeps_no_claims_asks_for_no_reclaim(tmp_path, embedder):
    data = tmp_path / "d"
    off = WriteConfig(supersession=False)
    with MemoryGraph.open(data_dir=data, embedder=embedder, write_config=off) as g:
        g.register_agent("ana", kind="human")
        _load_without_claims(g, embedder, "The hosting provider is Hetzner.")
        assert g.upgrades_pending() == []
    with MemoryGraph.open(data_dir=data, embedder=embedder) as g:  # supersession on
        assert g.upgrades_pending() == [str(RECLAIM)]
