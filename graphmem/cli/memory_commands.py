"""Commands about memories: remember, recall, unmerge, stats, who-knew, agent, demo."""

from __future__ import annotations

import json

import click

from graphmem.cli.app import cli, key_file_option, open_graph, signature_from
from graphmem.demo import run_demo
from graphmem.cli.render import print_table
from graphmem.models import DEFAULT_NS

ns_option = click.option("--ns", default=DEFAULT_NS, show_default=True,
                         help="Namespace of the memories.")
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")


def emit(rows, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(rows, indent=2, default=str))
    else:
        print_table(rows)


@cli.command()
@click.argument("agent")
@click.argument("text")
@click.option("--witness", "-w", "witnesses", multiple=True, help="An agent who was present (repeat).")
@click.option("--told-by", default=None, help="The agent AGENT learned it from.")
@click.option("--at", default=None, help="When it happened: ISO time, a date, or epoch ms.")
@click.option("--place", default=None, help="Where it happened.")
@click.option("--domain", default=None, help="Topic domain (for trust).")
@click.option("--context", default=None,
              help="What TEXT answers or follows (e.g. the previous turn): indexed, not remembered.")
@key_file_option
@ns_option
@json_option
@click.pass_context
def remember(ctx, agent, text, witnesses, told_by, at, place, domain, context, key_file, ns,
             as_json) -> None:
    """Deposit TEXT as remembered by AGENT; equivalent memories merge, owners unite."""
    signature = signature_from(key_file, "remember", ns=ns, agent=agent, text=text,
                               witnesses=list(witnesses), told_by=told_by, at=at, place=place,
                               domain=domain, context=context)
    with open_graph(ctx) as g:
        result = g.remember(agent, text, witnesses=witnesses, told_by=told_by, at=at,
                            place=place, domain=domain, ns=ns, context=context,
                            signature=signature)
    rows = [a.model_dump() for a in result.atoms]
    emit(rows if as_json else [{"action": r["action"], "memory": r["memory_id"],
                                 "text": r["text"], "contradicts": r["contradicts"]}
                                for r in rows], as_json)


@cli.command()
@click.argument("agent")
@click.argument("query")
@click.option("-k", default=10, show_default=True, help="How many memories to return.")
@click.option("--token", envvar="GRAPHMEM_NS_TOKEN", default=None,
              help="The namespace's read token, where a governed namespace has one. "
                   "Env: GRAPHMEM_NS_TOKEN.")
@ns_option
@json_option
@click.pass_context
def recall(ctx, agent, query, k, token, ns, as_json) -> None:
    """Recall the K memories AGENT owns that best answer QUERY, with their authorship."""
    with open_graph(ctx) as g:
        hits = g.recall(agent, query, k=k, ns=ns, token=token)
    rows = [h.model_dump(mode="json") for h in hits]
    emit(rows if as_json else [{"score": round(h.score, 3), "found_by": h.found_by,
                                 "text": h.text, "owners": ", ".join(h.owners),
                                 "by": ", ".join(h.asserted_by),
                                 "confidence": None if h.confidence is None
                                 else round(h.confidence, 2)}
                                for h in hits], as_json)


@cli.command()
@click.argument("memory_id")
@click.option("--op", "op_id", default=None, help="The merge to undo (default: the latest).")
@ns_option
@click.pass_context
def unmerge(ctx, memory_id, op_id, ns) -> None:
    """Undo a merge into MEMORY_ID: the merged statement becomes its own memory again."""
    with open_graph(ctx) as g:
        restored = g.unmerge(memory_id, ns=ns, op_id=op_id)
    click.echo(f"restored as {restored}")


@cli.command()
@ns_option
@json_option
@click.pass_context
def stats(ctx, ns, as_json) -> None:
    """Structure metrics: entries, multi-owner share, linked share, deepest merge."""
    with open_graph(ctx) as g:
        info = g.stats(ns=ns)
    emit(info if as_json else [info], as_json)


@cli.group("who-knew")
def who_knew() -> None:
    """Who knew what, when, and from whom (named queries in cypher/who_knew/)."""


@who_knew.command("owners")
@click.argument("text")
@ns_option
@json_option
@click.pass_context
def who_owners(ctx, text, ns, as_json) -> None:
    """Who owns the memories whose text contains TEXT, how, from whom and since when."""
    with open_graph(ctx.find_root()) as g:
        emit(g.owners_of(text, ns=ns), as_json)


@who_knew.command("at")
@click.argument("agent")
@click.argument("when")
@ns_option
@json_option
@click.pass_context
def who_at(ctx, agent, when, ns, as_json) -> None:
    """What AGENT knew at or before WHEN."""
    with open_graph(ctx.find_root()) as g:
        emit(g.knew_at(agent, when, ns=ns), as_json)


@who_knew.command("from")
@click.argument("agent")
@click.option("--about", default=None, help="Only memories whose text contains this.")
@ns_option
@json_option
@click.pass_context
def who_from(ctx, agent, about, ns, as_json) -> None:
    """From whom AGENT learned what it was told."""
    with open_graph(ctx.find_root()) as g:
        emit(g.learned_from(agent, about, ns=ns), as_json)


@who_knew.command("shared")
@click.option("--limit", default=10, show_default=True)
@ns_option
@json_option
@click.pass_context
def who_shared(ctx, limit, ns, as_json) -> None:
    """Pairs of agents that share the most memories."""
    with open_graph(ctx.find_root()) as g:
        emit(g.shared_most(ns=ns, limit=limit), as_json)


class _AgentGroup(click.Group):
    """``graphmem agent AGENT ...`` registers AGENT (the subcommand ``register`` may be
    left out); ``graphmem agent revoke AGENT`` and the other subcommands act on one."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and not args[0].startswith("-") and args[0] not in self.commands:
            args = ["register", *args]
        return super().parse_args(ctx, args)


@cli.group(cls=_AgentGroup)
def agent() -> None:
    """Agents of a namespace: register, and (trust) revoke, permit, lift-quarantine,
    keygen."""


@agent.command("register")
@click.argument("agent_id")
@click.option("--kind", type=click.Choice(["character", "human", "ai", "service", "process",
                                           "environment", "carrier"]), default=None)
@click.option("--name", default=None, help="Display name (used to resolve 'I' in deposits).")
@click.option("--strict", is_flag=True, help="Also make the namespace strict.")
@click.option("--public-key", default=None,
              help="Base64 Ed25519 public key that checks the agent's signed writes.")
@click.option("--by", default=None, help="The ADMIN registering it (governed namespaces).")
@ns_option
@click.pass_context
def register(ctx, agent_id, kind, name, strict, public_key, by, ns) -> None:
    """Register AGENT_ID in a namespace (a strict namespace refuses unknown agents)."""
    with open_graph(ctx, **({"check": True} if public_key or by else {})) as g:
        row = g.register_agent(agent_id, kind=kind, name=name, ns=ns, public_key=public_key,
                               by=by)
        if strict:
            g.set_strict(ns)
    click.echo(f"agent {row['id']} ({row['kind'] or 'no kind'}) in {ns}"
               + (" (namespace is strict)" if strict else ""))


@cli.command()
@click.pass_context
def demo(ctx) -> None:
    """Deposit a small multi-agent scene and print who-knew-what answers from Cypher."""
    with open_graph(ctx) as g:
        run_demo(g, click.echo, print_table)
