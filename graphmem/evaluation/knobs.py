"""The knobs of recall that a selection protocol judges, as patches on a configuration.

A `Setting` is a RecallConfig plus the classifier cues that count (None: every cue). A
`Knob` is one thing that can be removed — a cue, one kind's weight for one channel, a
whole channel, affiliated expansion, the classifier, the mixing of secondary kinds —
with its "off" patch and the candidate values the protocol may choose between:

    knobs_of(setting)             every knob of a setting, with its off and option patches
    apply(setting, patches)       the setting with the patches applied, in order

Weights are chosen from `WEIGHT_GRID`; a weight now at 0 (the graph channel, time for
non-temporal questions) is a knob too: it may earn a weight.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from graphmem.retrieval.classify import _CUES
from graphmem.retrieval.config import CHANNELS, RecallConfig

__all__ = ["ALL_CUES", "Knob", "Patch", "Setting", "apply", "knobs_of"]

ALL_CUES: frozenset[str] = frozenset(name for _, name, _, _ in _CUES)
#: the cues of each kind: one knob per family (removing it, the classifier never names
#: that kind, and its questions take the weights of the kind they score next)
CUE_FAMILIES: dict[str, frozenset[str]] = {
    str(kind): frozenset(name for k, name, _, _ in _CUES if k == kind)
    for kind in dict.fromkeys(k for k, _, _, _ in _CUES)}
WEIGHT_GRID = (0.25, 0.5, 1.0, 2.0)
AFFILIATED_GRID = (0.05, 0.1, 0.25, 0.5)
SECONDARY_GRID = (0.25, 0.5, 1.0)
#: the k of reciprocal rank fusion: small k lets one channel's first rank outweigh a
#: memory that several channels rank lower (a preference that only dense similarity finds)
RRF_K_GRID = (1, 3, 10, 30, 60)


@dataclass(frozen=True)
class Setting:
    """What one replay runs under."""

    config: RecallConfig
    cues: frozenset[str] = ALL_CUES

    def key(self) -> str:
        return self.config.model_dump_json() + "|" + ",".join(sorted(self.cues))


@dataclass(frozen=True)
class Patch:
    """One change: ``what`` names the field ("cue", "weight", "channel", ...)."""

    what: str
    target: str  # cue name, "kind.channel", channel name, or ""
    value: float | bool | None = None

    def label(self) -> str:
        return f"{self.value:g}" if isinstance(self.value, float) else str(self.value)


@dataclass(frozen=True)
class Knob:
    """A removable part of recall and the values it may take."""

    name: str
    family: str
    current: str  # label of the setting now shipped
    off: Patch
    options: tuple[Patch, ...]


def apply(setting: Setting, patches: Iterable[Patch]) -> Setting:
    """``setting`` with every patch applied; channel removals win over weights."""
    patches = sorted(patches, key=lambda p: p.what == "channel")
    config, cues = setting.config, set(setting.cues)
    kind_weights = {kind: dict(table) for kind, table in config.kind_weights.items()}
    update: dict = {}
    for patch in patches:
        if patch.what == "cue":
            (cues.add if patch.value else cues.discard)(patch.target)
        elif patch.what == "cue-family":
            family = CUE_FAMILIES[patch.target]
            cues = cues | family if patch.value else cues - family
        elif patch.what == "weight":
            kind, channel = patch.target.split(".")
            table = next(t for k, t in kind_weights.items() if str(k) == kind)
            assert isinstance(patch.value, (int, float))
            table[channel] = float(patch.value)
        elif patch.what == "channel" and patch.value is False:
            for table in kind_weights.values():
                table[patch.target] = 0.0
        elif patch.what in ("expand_affiliated", "classify"):
            update[patch.what] = bool(patch.value)
        elif patch.what == "rrf_k":
            assert isinstance(patch.value, (int, float))
            update["rrf_k"] = int(patch.value)
        elif patch.what in ("affiliated_weight", "secondary_share"):
            assert isinstance(patch.value, (int, float))
            update[patch.what] = float(patch.value)
            if patch.what == "affiliated_weight":
                update["expand_affiliated"] = True  # a weight for it turns it on
    update["kind_weights"] = kind_weights
    return Setting(config.model_copy(update=update), frozenset(cues))


def knobs_of(setting: Setting, *, single_cues: bool = False) -> list[Knob]:
    """Every knob of ``setting``: cue families, or each cue with ``single_cues``."""
    config = setting.config
    if single_cues:
        out = [Knob(f"cue {name}", "cue", str(name in setting.cues), Patch("cue", name, False),
                    (Patch("cue", name, True),)) for name in sorted(ALL_CUES)]
    else:
        out = [Knob(f"cues {kind}", "cue", str(bool(cues & setting.cues)),
                    Patch("cue-family", kind, False), (Patch("cue-family", kind, True),))
               for kind, cues in CUE_FAMILIES.items()]
    for kind, table in config.kind_weights.items():
        for channel in CHANNELS:
            now = float(table.get(channel, 0.0))
            grid = sorted({now, *WEIGHT_GRID} - {0.0})
            out.append(Knob(f"weight {kind}.{channel}", "weight", f"{now:g}",
                            Patch("weight", f"{kind}.{channel}", 0.0),
                            tuple(Patch("weight", f"{kind}.{channel}", w) for w in grid)))
    for channel in CHANNELS:
        if any(t.get(channel, 0.0) > 0 for t in config.kind_weights.values()):
            out.append(Knob(f"channel {channel}", "channel", "True",
                            Patch("channel", channel, False),
                            (Patch("channel", channel, True),)))
    now = config.affiliated_weight if config.expand_affiliated else 0.0
    out.append(Knob("affiliated expansion", "channel", f"{now:g}",
                    Patch("expand_affiliated", "", False),
                    tuple(Patch("affiliated_weight", "", w)
                          for w in sorted({now, *AFFILIATED_GRID} - {0.0}))))
    # no "off" for the fusion constant: the value shipped is the one to beat
    out.append(Knob("rrf k", "fusion", str(config.rrf_k), Patch("rrf_k", "", config.rrf_k),
                    tuple(Patch("rrf_k", "", k) for k in RRF_K_GRID if k != config.rrf_k)))
    out.append(Knob("classifier", "classifier", str(config.classify),
                    Patch("classify", "", False), (Patch("classify", "", True),)))
    out.append(Knob("secondary kinds", "classifier", f"{config.secondary_share:g}",
                    Patch("secondary_share", "", 0.0),
                    tuple(Patch("secondary_share", "", s)
                          for s in sorted({config.secondary_share, *SECONDARY_GRID} - {0.0}))))
    return out
