"""Trust between agents from the command line (RFC-0011): ``graphmem trust show|set|
policy``, ``graphmem agent revoke|permit|lift-quarantine|keygen``, ``graphmem events``,
``graphmem conflicts``, ``graphmem resolve`` and ``graphmem federate``.

These open the store itself (not a ``graphmem serve`` service). Where the namespace
requires signed writes, ``--key-file`` names a file holding the actor's base64 private
key, and the act is signed with it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import click

from graphmem.api import MemoryGraph
from graphmem.cli.app import cli, key_file_option, open_graph, signature_from
from graphmem.cli.memory_commands import emit, agent, json_option, ns_option
from graphmem.errors import InvalidInput
from graphmem.security import generate_keypair

by_option = click.option("--by", required=True,
                         help="Who acts: a human or process agent (ADMIN where governed).")


def act_options(command: Callable[..., None]) -> Callable[..., None]:
    """--by, --key-file and --ns, and the click context: what every act takes."""
    return by_option(key_file_option(ns_option(click.pass_context(command))))


def _local(ctx: click.Context) -> MemoryGraph:
    """The store itself (trust acts are not served by ``graphmem serve``)."""
    return open_graph(ctx, check=True)


@cli.group()
def trust() -> None:
    """Trust profiles and the namespace's trust policy."""


@trust.command("show")
@click.option("--agent", "agent_id", default=None, help="Only this agent.")
@ns_option
@json_option
@click.pass_context
def trust_show(ctx, agent_id, ns, as_json) -> None:
    """Every agent's kind, permission, trust per domain, verifier and quarantine."""
    with _local(ctx) as g:
        profiles = [p for p in g.trust_profiles(ns=ns) if agent_id in (None, p["id"])]
        policy = g.trust_policy(ns=ns)
    if as_json:
        click.echo(json.dumps({"policy": policy.model_dump(), "agents": profiles}, indent=2,
                              default=str))
        return
    click.echo(f"namespace {ns}: {'governed' if policy.governed else 'open'}"
               + (", signed writes" if policy.require_signatures else ""))
    emit([{"agent": p["id"], "kind": p["kind"], "permission": p["permission"],
            "trust": ", ".join(f"{t['domain']}={t['score']:g}" for t in p["trusts"]) or "-",
            "version": p["trust_version"], "verified_by": p["verified_by"],
            "quarantined_until": p["quarantined_until"], "revoked": bool(p["revoked"])}
           for p in profiles], False)


@trust.command("set")
@click.argument("agent_id")
@click.argument("score", type=float)
@click.option("--domain", default=None, help="The domain (default: the agent's default "
                                              "trust for every domain without a score).")
@act_options
def trust_set(ctx, agent_id, score, domain, by, key_file, ns) -> None:
    """Trust AGENT_ID at SCORE (0-1); everything it contributed to is re-evaluated."""
    with _local(ctx) as g:
        done = g.set_trust(agent_id, score, domain=domain, ns=ns, by=by, signature=signature_from(
            key_file, "set_trust", ns=ns, agent=agent_id, score=score, domain=domain, by=by))
    click.echo(f"trust {agent_id} {done['domain']}={score:g} (was {done['previous']}); "
               f"{done['reevaluated']} memories re-evaluated")


@trust.command("policy")
@click.option("--set", "settings", multiple=True, metavar="NAME=VALUE",
              help="A setting of the namespace's policy (repeat), e.g. max_per_hour=50.")
@act_options
def trust_policy(ctx, settings, by, key_file, ns) -> None:
    """Govern the namespace (permissions, limits, quarantine) and set its policy."""
    values: dict[str, Any] = {}
    for item in settings:
        name, sep, raw = item.partition("=")
        if not sep:
            raise InvalidInput(f"--set {item!r}: write NAME=VALUE")
        try:
            values[name] = json.loads(raw)
        except json.JSONDecodeError:
            values[name] = raw
    with _local(ctx) as g:
        policy = g.set_policy(ns=ns, by=by, signature=signature_from(
            key_file, "set_policy", ns=ns, by=by, **values), **values)
    click.echo(json.dumps(policy.model_dump(), indent=2))


@agent.command("revoke")
@click.argument("agent_id")
@act_options
def agent_revoke(ctx, agent_id, by, key_file, ns) -> None:
    """Refuse AGENT_ID from now on and re-evaluate what it contributed (nothing deleted)."""
    with _local(ctx) as g:
        done = g.revoke(agent_id, ns=ns, by=by, signature=signature_from(
            key_file, "revoke", ns=ns, agent=agent_id, by=by))
    click.echo(f"revoked {agent_id}: {done['reevaluated']} memories re-evaluated, "
               f"{done['unverified']} now unverified")


@agent.command("permit")
@click.argument("agent_id")
@click.argument("level", type=click.Choice(["none", "read", "write", "admin"],
                                           case_sensitive=False))
@act_options
def agent_permit(ctx, agent_id, level, by, key_file, ns) -> None:
    """Grant AGENT_ID a permission in the namespace (READ, WRITE, ADMIN or NONE)."""
    with _local(ctx) as g:
        g.set_permission(agent_id, level, ns=ns, by=by, signature=signature_from(
            key_file, "set_permission", ns=ns, agent=agent_id, level=level, by=by))
    click.echo(f"{agent_id}: {level.upper()} in {ns}")


@agent.command("lift-quarantine")
@click.argument("agent_id")
@act_options
def agent_lift(ctx, agent_id, by, key_file, ns) -> None:
    """End AGENT_ID's new-agent quarantine (a human or process ADMIN only)."""
    with _local(ctx) as g:
        g.lift_quarantine(agent_id, ns=ns, by=by, signature=signature_from(
            key_file, "lift_quarantine", ns=ns, agent=agent_id, by=by))
    click.echo(f"{agent_id}: quarantine lifted")


@agent.command("keygen")
@click.argument("private_key_file", type=click.Path(dir_okay=False))
def agent_keygen(private_key_file) -> None:
    """Write a new Ed25519 private key to PRIVATE_KEY_FILE (mode 600); print the public
    key to register with ``graphmem agent register --public-key``."""
    private, public = generate_keypair()
    path = Path(private_key_file)
    if path.exists():
        raise InvalidInput(f"{path} exists; choose another file (keys are never overwritten)")
    path.touch(mode=0o600)
    path.write_text(private + "\n", "utf-8")
    click.echo(public)


@cli.command()
@click.option("--kind", "kinds", multiple=True,
              help="Only events of this kind (repeat), e.g. TRUST_SCORE_UPDATE.")
@click.option("--since", default=None, help="Only events at or after this time.")
@click.option("--limit", default=1000, show_default=True)
@ns_option
@json_option
@click.pass_context
def events(ctx, kinds, since, limit, ns, as_json) -> None:
    """The namespace's event log, oldest first: who did what, when, to which memory."""
    with _local(ctx) as g:
        rows = g.events(ns=ns, kinds=list(kinds) or None, since=since, limit=limit)
    emit([{k: r[k] for k in ("seq", "kind", "at", "actor", "memory", "payload")}
           for r in rows], as_json)


@cli.command()
@click.option("--all", "everything", is_flag=True, help="Resolved conflicts too.")
@ns_option
@json_option
@click.pass_context
def conflicts(ctx, everything, ns, as_json) -> None:
    """Contradicting claims of the namespace, with who asserted them and their
    confidence; resolve one with ``graphmem resolve``."""
    with _local(ctx) as g:
        rows = g.conflicts(ns=ns, unresolved=not everything)
    emit(rows if as_json else [
        {"a": r["a"], "claim": r["a_text"], "conf": r["a_confidence"], "b": r["b"],
         "versus": r["b_text"], "conf_b": r["b_confidence"], "resolved": r["resolved"]}
        for r in rows], as_json)


@cli.command()
@click.argument("memory_id")
@click.argument("winner_id")
@act_options
def resolve(ctx, memory_id, winner_id, by, key_file, ns) -> None:
    """Resolve the conflict between MEMORY_ID and WINNER_ID for WINNER_ID (a human, or an
    arbiter with ADMIN); the loser stays, weakened."""
    with _local(ctx) as g:
        loser = g.resolve_conflict(memory_id, winner_id, ns=ns, by=by, signature=signature_from(
            key_file, "resolve_conflict", ns=ns, memory_id=memory_id, winner_id=winner_id,
            by=by))
    click.echo(f"resolved for {winner_id}; {loser} kept, weakened")


@cli.command()
@click.argument("source")
@click.option("--node-id", required=True, help="Names the other store: its agents become "
                                               "federated:<node-id>:<agent>.")
@click.option("--source-ns", default=None, help="Its namespace (default: --ns).")
@ns_option
@click.pass_context
def federate(ctx, source, node_id, source_ns, ns) -> None:
    """Merge a namespace of another graphmem store (SOURCE: its data directory or URI)."""
    with _local(ctx) as g:
        done = g.federate(source, node_id=node_id, ns=ns, source_ns=source_ns)
    click.echo(f"federated {node_id}: {done['agents']} agents, {done['memories']} memories, "
               f"{done['events']} events")
