"""Signed operations: Ed25519 keys, a canonical payload, and the check of a signature.

An agent of a namespace that requires verified writes signs each operation it asks for
(per operation, not per session, as RFC-0011 §3 asks):

    private_key, public_key = generate_keypair()
    g.register_agent("scout", public_key=public_key, ns="ops", by="admin")
    op = operation("remember", ns="ops", agent="scout", text="The bridge is out.")
    g.remember("scout", "The bridge is out.", ns="ops", signature=sign(private_key, op))

The signed payload is the operation's name and arguments as canonical JSON (sorted keys,
no spaces, arguments left at their defaults omitted) plus a fresh random nonce and the
signing time. The store remembers every nonce it accepted within the freshness window,
so a captured signature cannot be replayed; a signature older than the window is refused
(sign again). Keys travel as base64 text of the raw 32-byte keys.
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Mapping

from graphmem.errors import InvalidInput, Unauthorized, missing

#: how long a signature stays usable after it was made (and its nonce is remembered)
FRESHNESS_MS = 10 * 60 * 1000


def _ed25519() -> Any:
    try:
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError:  # pragma: no cover - a base dependency; guarded for clarity
        raise missing("cryptography") from None
    return ed25519


def generate_keypair() -> tuple[str, str]:
    """A new Ed25519 key pair as (private key, public key), each base64 text."""
    key = _ed25519().Ed25519PrivateKey.generate()
    private = key.private_bytes_raw()
    public = key.public_key().public_bytes_raw()
    return _b64(private), _b64(public)


def operation(name: str, /, **arguments: Any) -> dict[str, Any]:
    """The operation ``name`` with ``arguments`` as it is signed: arguments that are
    None or empty are left out, times become ISO text, sequences become lists."""
    op: dict[str, Any] = {"op": name}
    for key, value in arguments.items():
        if value is None or (isinstance(value, (list, tuple, set, frozenset, dict, str))
                             and not value and key != "text"):
            continue
        op[key] = _plain(value)
    return op


def canonical(op: Mapping[str, Any]) -> bytes:
    """The bytes that are signed: canonical JSON of the operation."""
    return json.dumps(op, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      default=str).encode("utf-8")


def sign(private_key: str | Any, op: Mapping[str, Any], *, now_ms: int | None = None) -> str:
    """A signature of ``op`` (see :func:`operation`) with a fresh nonce, as text to pass
    as ``signature=``. ``private_key`` is base64 text or an Ed25519PrivateKey."""
    key = _private(private_key)
    nonce = secrets.token_hex(16)
    at = int(time.time() * 1000) if now_ms is None else now_ms
    signed = {**op, "_nonce": nonce, "_at": at}
    sig = key.sign(canonical(signed))
    token = {"nonce": nonce, "at": at, "sig": _b64(sig)}
    return _b64(json.dumps(token, separators=(",", ":")).encode("utf-8"))


@dataclass(frozen=True)
class Signature:
    """A parsed signature: its nonce, when it was made, and the signature bytes."""

    nonce: str
    at: int
    sig: bytes


def parse_signature(signature: object) -> Signature:
    """The parts of a ``signature=`` text, or Unauthorized saying what is wrong."""
    if not isinstance(signature, str) or not signature:
        raise Unauthorized("the signature is missing or not text; sign the operation with "
                           "graphmem.security.sign(private_key, op)")
    try:
        token = json.loads(base64.b64decode(signature, validate=True))
        return Signature(str(token["nonce"]), int(token["at"]),
                         base64.b64decode(token["sig"], validate=True))
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise Unauthorized("the signature is malformed (not what graphmem.security.sign "
                           "returns); sign the operation again") from None


def verify(public_key: str, op: Mapping[str, Any], signature: Signature, *,
           now_ms: int) -> None:
    """Check ``signature`` over ``op`` with ``public_key``; Unauthorized if it does not
    hold or is outside the freshness window (the nonce check is the caller's)."""
    ed25519 = _ed25519()
    try:
        key = ed25519.Ed25519PublicKey.from_public_bytes(_unb64(public_key, "public key"))
    except ValueError:
        raise Unauthorized("the agent's public key is not an Ed25519 key; register the "
                           "agent again with the public key from generate_keypair()") from None
    if abs(now_ms - signature.at) > FRESHNESS_MS:
        raise Unauthorized(f"the signature was made {abs(now_ms - signature.at) // 1000} s "
                           f"from now, outside the {FRESHNESS_MS // 60000}-minute window; "
                           "sign the operation again")
    from cryptography.exceptions import InvalidSignature

    try:
        key.verify(signature.sig, canonical({**op, "_nonce": signature.nonce,
                                             "_at": signature.at}))
    except InvalidSignature:
        raise Unauthorized(f"the signature does not match operation {op.get('op')!r} "
                           "with these arguments and the agent's public key; sign exactly "
                           "the operation you send, with the agent's own key") from None


def check_public_key(public_key: object) -> str:
    """``public_key`` if it is base64 text of a raw Ed25519 public key, else InvalidInput."""
    if not isinstance(public_key, str):
        raise InvalidInput("public_key must be base64 text (generate_keypair()'s second "
                           "value)")
    try:
        _ed25519().Ed25519PublicKey.from_public_bytes(_unb64(public_key, "public key"))
    except (ValueError, Unauthorized):
        raise InvalidInput("public_key is not a base64 Ed25519 public key of 32 bytes; use "
                           "generate_keypair()'s second value") from None
    return public_key


def _private(private_key: str | Any) -> Any:
    ed25519 = _ed25519()
    if isinstance(private_key, ed25519.Ed25519PrivateKey):
        return private_key
    if not isinstance(private_key, str):
        raise InvalidInput("the private key must be base64 text or an Ed25519PrivateKey")
    try:
        return ed25519.Ed25519PrivateKey.from_private_bytes(_unb64(private_key, "private key"))
    except (ValueError, Unauthorized):
        raise InvalidInput("the private key is not a base64 Ed25519 private key of 32 "
                           "bytes; use generate_keypair()'s first value") from None


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in (sorted(value) if isinstance(value, (set, frozenset))
                                    else value)]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise Unauthorized(f"the {what} is not base64 text") from None
