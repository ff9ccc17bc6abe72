"""A namespace's trust policy, and the permission levels.

A namespace is *open* until an administrator sets a policy (``MemoryGraph.set_policy``):
then it is *governed*, and RFC-0011's defences hold in it — namespace permissions
before identity before trust, signed writes when ``require_signatures``, rate limits,
new-agent quarantine. Confidence, trust weighting, conflicts and the event log work in
every namespace; an open namespace (benchmarks, one person's assistant) simply trusts
every agent at ``default_trust`` and limits no one.

The policy is stored as JSON on the namespace node (``n.trust_policy``), so every
process reads the same one with the namespace version.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from graphmem.errors import InvalidInput

Permission = Literal["none", "read", "write", "admin"]
PERMISSIONS: tuple[str, ...] = ("none", "read", "write", "admin")
#: RFC-0011 §2's examples and a few more; any domain name is accepted, these are the ones
#: the docs and tests use. A profile holds at least this many domain slots.
DOMAINS = ("financial", "medical", "legal", "technical", "personal", "creative",
           "external_data", "operational", "scientific", "political", "general")
DEFAULT_DOMAIN = "general"
#: the agent kinds that may change trust, lift quarantine and resolve conflicts (with
#: ADMIN permission in a governed namespace): RFC-0011's HUMAN_USER and SYSTEM_PROCESS
ADMIN_KINDS = ("human", "process")


class TrustPolicy(BaseModel):
    """The trust settings of one namespace (RFC-0011's defaults)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    governed: bool = False
    require_signatures: bool = False
    #: sha256 of the namespace token that reads need in a governed namespace (None: a
    #: READ permission is enough)
    read_token_sha256: str | None = None
    default_permission: Permission = "none"
    default_trust: float = Field(default=1.0, ge=0.0, le=1.0)
    #: federated agents are trusted this much until local policy says otherwise (§10)
    federated_trust: float = Field(default=0.0, ge=0.0, le=1.0)
    default_domain: str = DEFAULT_DOMAIN
    max_per_hour: int = Field(default=100, ge=1)
    max_per_day: int = Field(default=500, ge=1)
    #: per agent kind: [per hour, per day]
    limits_by_kind: dict[str, tuple[int, int]] = Field(default_factory=dict)
    quarantine_hours: float = Field(default=24.0, ge=0.0)
    quarantine_cap: float = Field(default=0.35, ge=0.0, le=1.0)
    #: assertions by one agent about one entity within an hour before an alert
    high_volume: int = Field(default=10, ge=1)
    conflict_ttl_days: float = Field(default=30.0, gt=0.0)
    summary_salience: float = Field(default=0.70, ge=0.0, le=1.0)
    # -- the confidence rule (graphmem.trust.confidence) --
    initial: float = Field(default=0.5, ge=0.0, le=1.0)
    gamma_base: float = Field(default=0.2, ge=0.0, le=1.0)
    contradiction_penalty: float = Field(default=0.3, ge=0.0, le=1.0)
    correlated_weight: float = Field(default=0.25, ge=0.0, le=1.0)
    session_cap: float = Field(default=0.40, ge=0.0, le=1.0)
    session_minutes: float = Field(default=60.0, gt=0.0)
    resolution_penalty: float = Field(default=0.5, ge=0.0, le=1.0)

    def limits_for(self, kind: str | None) -> tuple[int, int]:
        """(per hour, per day) for an agent of ``kind``."""
        return self.limits_by_kind.get(kind or "", (self.max_per_hour, self.max_per_day))

    @property
    def quarantine_ms(self) -> int:
        return int(self.quarantine_hours * 3_600_000)

    @property
    def session_ms(self) -> int:
        return int(self.session_minutes * 60_000)


OPEN = TrustPolicy()


def parse_policy(stored: str | None) -> TrustPolicy:
    """The policy stored on a namespace node (OPEN when none is)."""
    return OPEN if not stored else TrustPolicy.model_validate_json(stored)


def updated_policy(current: TrustPolicy, settings: dict) -> TrustPolicy:
    """``current`` with ``settings`` applied and governed on, or InvalidInput naming what
    is wrong."""
    unknown = sorted(set(settings) - set(TrustPolicy.model_fields) - {"read_token"})
    if unknown:
        raise InvalidInput(f"unknown trust policy setting(s) {', '.join(unknown)}; the "
                           f"settings are {', '.join(sorted(TrustPolicy.model_fields))}")
    values = {**current.model_dump(), **settings, "governed": True}
    if "read_token" in values:
        token = values.pop("read_token")
        values["read_token_sha256"] = None if token is None else token_digest(token)
    try:
        return TrustPolicy.model_validate(values)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise InvalidInput(f"invalid trust policy: {problems}") from None


def policy_json(policy: TrustPolicy) -> str:
    return json.dumps(policy.model_dump(), sort_keys=True)


def token_digest(token: object) -> str:
    import hashlib

    if not isinstance(token, str) or len(token) < 16:
        raise InvalidInput("a namespace read token must be text of at least 16 characters "
                           "(use secrets.token_urlsafe())")
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def level(permission: str | None) -> int:
    """The rank of a permission (none < read < write < admin)."""
    return PERMISSIONS.index(permission) if permission in PERMISSIONS else 0


def check_permission_name(value: object) -> str:
    if not isinstance(value, str) or value.lower() not in PERMISSIONS:
        raise InvalidInput(f"unknown permission {value!r}; choose one of "
                           f"{', '.join(p.upper() for p in PERMISSIONS)}")
    return value.lower()


def check_score(score: object) -> float:
    if isinstance(score, bool) or not isinstance(score, (int, float)) \
            or not 0.0 <= float(score) <= 1.0:
        raise InvalidInput(f"a trust score is a number in [0, 1], got {score!r}")
    return float(score)


def check_domain(domain: object) -> str:
    if not isinstance(domain, str) or not domain.strip() or len(domain) > 64 \
            or domain != domain.strip():
        raise InvalidInput(f"a trust domain is a short name such as 'financial' or "
                           f"'medical', got {domain!r}")
    return domain
