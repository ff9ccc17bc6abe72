"""The trust commands of the CLI on a real embedded store."""

from __future__ import annotations

import json

from click.testing import CliRunner

from graphmem.cli import cli


def run(data, *args):
    result = CliRunner().invoke(cli, ["--data-dir", str(data), *args])
    return result


def test_trust_profile_events_conflicts_revocation_and_federation(tmp_path, monkeypatch):
    monkeypatch.delenv("GRAPHMEM_SERVER", raising=False)
    data, other = tmp_path / "store", tmp_path / "other"
    assert run(data, "agent", "root", "--kind", "human", "--ns", "x").exit_code == 0
    key = tmp_path / "scout.key"
    keygen = run(data, "agent", "keygen", str(key))
    assert keygen.exit_code == 0 and len(keygen.output.strip()) == 44  # base64 of 32 bytes
    assert run(data, "agent", "register", "scout", "--kind", "ai", "--ns", "x",
               "--public-key", keygen.output.strip()).exit_code == 0
    signed = run(data, "remember", "scout", "The mill pond is frozen.", "--ns", "x",
                 "--key-file", str(key))
    assert signed.exit_code == 0, signed.output
    assert run(data, "remember", "scout", "The well water is safe.", "--ns", "x",
               "--at", "2026-01-01").exit_code == 0
    assert run(data, "remember", "root", "The well water is not safe.", "--ns", "x",
               "--at", "2026-01-01").exit_code == 0
    done = run(data, "trust", "set", "scout", "0.4", "--domain", "medical", "--by", "root",
               "--ns", "x")
    assert done.exit_code == 0, done.output
    assert "medical=0.4" in done.output
    shown = json.loads(run(data, "trust", "show", "--ns", "x", "--json").output)
    scout = next(a for a in shown["agents"] if a["id"] == "scout")
    assert scout["trusts"][0]["domain"] == "medical" and scout["signs"]
    log = json.loads(run(data, "events", "--ns", "x", "--kind", "TRUST_SCORE_UPDATE",
                         "--json").output)
    assert [e["kind"] for e in log] == ["trust_score_update"]
    listed = json.loads(run(data, "conflicts", "--ns", "x", "--json").output)
    assert len(listed) == 1 and not listed[0]["resolved"]
    refused = run(data, "trust", "set", "root", "0.1", "--by", "scout", "--ns", "x")
    assert refused.exit_code == 1 and "kind" in refused.output
    revoked = run(data, "agent", "revoke", "scout", "--by", "root", "--ns", "x")
    assert revoked.exit_code == 0 and "2 now unverified" in revoked.output
    assert run(other, "remember", "scout", "The mill wheel is broken.", "--ns",
               "x").exit_code == 0
    merged = run(data, "federate", str(other), "--node-id", "mill", "--ns", "x")
    assert merged.exit_code == 0, merged.output
    assert "1 memories" in merged.output
    shown = json.loads(run(data, "trust", "show", "--ns", "x", "--json").output)
    assert {"scout", "federated:mill:scout"} <= {a["id"] for a in shown["agents"]}
