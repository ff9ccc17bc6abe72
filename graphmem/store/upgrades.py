"""What an operator must run once after upgrading a store written by an older release.

Some changes of a release cannot be made while a store opens (they read the whole store)
and are left to a command; this says when one is due. Each `Upgrade` names the command
and a query that finds whether the store holds anything the command would set right.
Opening a store looks at every upgrade it has not recorded as done: where the store holds
nothing of the kind (a new store) the upgrade is recorded as done there and then; where
it does, the upgrade is pending, and opening, ``graphmem status`` and ``graphmem check``
say so until the command has run (the command records it done). A store written by a
release with the fix but without this record is told too; the command then changes
nothing and records it.

An upgrade with a ``version`` is due again whenever the version changes: its record
names the version, and its query is given it (``$version``). The layers above the store
add such upgrades of their own (``also``): `graphmem reclaim`'s, whose version is how this
release reads claims (`graphmem.supersession.stored.RECLAIM`).

Not part of the schema steps: those are part of a view snapshot's fingerprint, and a
pending upgrade is no reason to read a namespace again.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Upgrade:
    name: str
    finds: str  # a query returning a row if the store holds what the command sets right
    command: str
    why: str
    version: str = ""  # due again when it changes (see the module docstring)

    @property
    def record(self) -> str:
        """The name it is recorded as done under."""
        return f"{self.name} {self.version}" if self.version else self.name

    def __str__(self) -> str:
        return f"run `{self.command}` once: {self.why}"


RELINK = Upgrade("relink_timelines", "upgrade/has_timelines", "graphmem relink",
                 "the timelines (StoryArc NEXT edges) were linked by a release before "
                 "2026-12-05, which put the memories of one time in random order; relink "
                 "puts them in the order they were told")

UPGRADES: tuple[Upgrade, ...] = (RELINK,)


def pending_upgrades(store, queries, *, settle: bool = True,
                     also: tuple[Upgrade, ...] = ()) -> list[Upgrade]:
    """The upgrades ``store`` still needs, of ``UPGRADES`` and ``also``. With ``settle``,
    those it needs not (nothing of their kind in the store) are recorded as done."""
    done = {r["name"] for r in store.read(queries["upgrade/done"])}
    pending = []
    for upgrade in UPGRADES + also:
        if upgrade.record in done:
            continue
        if store.read(queries[upgrade.finds], {"version": upgrade.version}):
            pending.append(upgrade)
        elif settle:
            mark_done(store, queries, upgrade)
    return pending


def mark_done(store, queries, upgrade: Upgrade) -> None:
    """Record ``upgrade`` as done (for its version, forgetting its other versions'
    records): it is not asked for again."""
    store.write(queries["upgrade/record"], {"name": upgrade.record,
                                            "at": int(time.time() * 1000)})
    if upgrade.version:
        store.write(queries["upgrade/forget_other_versions"],
                    {"stem": f"{upgrade.name} ", "name": upgrade.record})


def warn_pending(upgrades: list[Upgrade], uri: str) -> None:
    for upgrade in upgrades:
        log.warning("the store at %s needs an upgrade: %s", uri, upgrade)
