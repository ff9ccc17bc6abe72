"""Where a world's source is read from when no --data is given."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from graphmem.cli import cli, replay_commands, world_commands  # noqa: F401
from graphmem.errors import InvalidInput
from graphmem.worlds.sources import DATA_ENV, WORLDS, sediment_world, world_source


def test_default_source_is_found_from_any_working_directory(shared_data, tmp_path,
                                                            monkeypatch):
    monkeypatch.delenv(DATA_ENV, raising=False)
    monkeypatch.chdir(tmp_path)  # no ../shared/data from here
    for name in WORLDS:
        path = world_source(name)
        assert path.is_file(), path
        assert path.resolve() == (shared_data / WORLDS[name]).resolve()


def test_the_environment_names_the_data_directory(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    assert world_source("russia_ukraine") == tmp_path / "russia_ukraine" / "events_2022.csv"
    with pytest.raises(InvalidInput, match=f"{DATA_ENV}.*russia_ukraine/events_2022.csv"):
        sediment_world("russia_ukraine")
    with pytest.raises(InvalidInput, match="unknown world 'elsinore'; choose one of hamlet"):
        world_source("elsinore")


@pytest.mark.parametrize("command", [["world", "sediment", "hamlet"],
                                     ["replay", "hamlet"]])
def test_missing_default_source_is_one_clear_error(command, tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "empty"))
    result = CliRunner().invoke(cli, ["--data-dir", str(tmp_path / "store"), *command])
    assert result.exit_code == 1, result.output
    assert "hamlet.tei.xml not found" in result.output and DATA_ENV in result.output
    assert not (tmp_path / "store").exists()  # nothing opened before the source was read
