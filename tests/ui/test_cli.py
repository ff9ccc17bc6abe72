"""``graphmem ui`` is registered and refuses a bad port before opening anything."""

from __future__ import annotations

from click.testing import CliRunner

from graphmem.cli import cli


def test_the_ui_command_is_registered_with_its_options():
    result = CliRunner().invoke(cli, ["ui", "--help"])
    assert result.exit_code == 0
    for option in ("--ns", "--port", "--agent", "--by", "--page-size"):
        assert option in result.output


def test_a_port_out_of_range_is_refused(tmp_path):
    result = CliRunner().invoke(cli, ["--data-dir", str(tmp_path / "d"), "ui",
                                      "--port", "70000"])
    assert result.exit_code == 2 and "70000" in result.output
    assert not (tmp_path / "d").exists()  # nothing was opened or written
