"""Signed operations (graphmem.security): Ed25519 over a canonical payload."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from graphmem.errors import InvalidInput, Unauthorized
from graphmem.security import (FRESHNESS_MS, canonical, generate_keypair, operation,
                               parse_signature, sign, verify)

NOW = 1_767_225_600_000


def test_a_signature_verifies_for_its_operation_and_no_other():
    private, public = generate_keypair()
    op = operation("remember", ns="ops", agent="scout", text="The bridge is out.")
    signature = parse_signature(sign(private, op, now_ms=NOW))
    verify(public, op, signature, now_ms=NOW)
    with pytest.raises(Unauthorized, match="does not match"):
        verify(public, {**op, "text": "The bridge is fine."}, signature, now_ms=NOW)
    _, someone_else = generate_keypair()
    with pytest.raises(Unauthorized, match="does not match"):
        verify(someone_else, op, signature, now_ms=NOW)
    with pytest.raises(Unauthorized, match="window"):
        verify(public, op, signature, now_ms=NOW + FRESHNESS_MS + 1)


def test_defaults_are_left_out_and_order_does_not_matter():
    assert operation("remember", ns="a", text="x", witnesses=[], told_by=None) == \
        {"op": "remember", "ns": "a", "text": "x"}
    assert canonical({"b": 1, "a": 2}) == canonical({"a": 2, "b": 1})


@given(st.dictionaries(st.text(min_size=1, max_size=8), st.text(max_size=20), max_size=5))
def test_any_operation_round_trips(arguments):
    private, public = generate_keypair()
    op = operation("remember", **{f"k_{k}": v for k, v in arguments.items()})
    verify(public, op, parse_signature(sign(private, op, now_ms=NOW)), now_ms=NOW)


def test_bad_keys_are_refused_with_what_to_use():
    with pytest.raises(InvalidInput, match="generate_keypair"):
        sign("not-a-key", {"op": "x"})
    with pytest.raises(Unauthorized, match="malformed"):
        parse_signature("e30=")  # base64 of "{}"
