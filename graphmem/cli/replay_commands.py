"""``graphmem replay``: story replays on each memory design."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click

from graphmem.cli.app import cli, open_graph
from graphmem.errors import InvalidInput
from graphmem.replay import replay_hamlet
from graphmem.cli.render import print_table
from graphmem.designs import DESIGNS
from graphmem.worlds.sources import DATA_ENV, WORLDS, world_source


@cli.group()
def replay() -> None:
    """Replay a story into memory, deposit by deposit, and measure the store."""


@replay.command("hamlet")
@click.option("--design", type=click.Choice(list(DESIGNS)), default="consensus",
              show_default=True, help="Memory design to replay into.")
@click.option("--data", "data", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              default=None, help=f"hamlet.tei.xml (default: {WORLDS['hamlet']} under ${DATA_ENV} "
                   "or the shared data beside the project).")
@click.option("--acts", default=None, help="Only these acts, e.g. 1,2.")
@click.option("--json", "as_json", is_flag=True,
              help="Print a list of per-act objects (act, entries, multi_owner_share, "
                   "linked_share, max_owners).")
@click.option("--report", "report_path", type=click.Path(path_type=Path), default=None,
              help="Also write the whole report (per act, merge precision/recall) as JSON.")
@click.pass_context
def replay_hamlet_command(ctx, design, data, acts, as_json, report_path) -> None:
    """Hamlet: every speech deposited by those on stage; per act, the store's entries,
    multi-owner share, linked share and deepest merge; merge precision and recall."""
    path = data or world_source("hamlet")
    if not path.is_file():
        raise InvalidInput(f"{path} not found; pass --data path/to/hamlet.tei.xml, or set "
                           f"{DATA_ENV} to the directory that holds {WORLDS['hamlet']}")
    chosen = [int(a) for a in acts.split(",")] if acts else None
    with open_graph(ctx, design=design) as g:
        report = replay_hamlet(g, path, design=design, acts=chosen,
                               progress=None if as_json else lambda m: click.echo(m, err=True))
    if report_path:
        report_path.write_text(json.dumps(report.as_dict(), indent=2))
    rows = [{k: v for k, v in asdict(a).items() if k != "deposits"} for a in report.acts]
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    print_table(rows)
    m = report.merge
    click.echo(f"{report.deposits} deposits in {report.seconds} s; merge precision "
               f"{m.precision:.3f}, recall {m.recall:.3f} ({m.correct_pairs} of "
               f"{m.merged_pairs} merged pairs correct, {m.true_pairs} true pairs)")
