"""A font that shows every character of a figure's labels (Chinese names included).

Matplotlib's default font (DejaVu Sans) has no Chinese glyphs: names such as 宝玉 would
come out as empty boxes. Before drawing, the labels' characters are checked against
the default font; when some are missing, the installed fonts (a fresh scan of the
system's font folders, so a font installed after matplotlib built its cache counts)
are searched for one that covers them all, and it is put first in the font family
list with the default behind it. With none installed the figure is drawn anyway, and a
warning says which characters will not show and what to install (Debian:
``fonts-noto-cjk`` or ``fonts-wqy-microhei``; ``scripts/setup`` installs the latter
where it can).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterable

HINT = ("install a font that has them (Debian: apt-get install fonts-wqy-microhei or "
        "fonts-noto-cjk) and draw again")


class MissingGlyphs(UserWarning):
    """Some characters of a figure's labels have no glyph in any installed font."""


@functools.cache
def charmap(path: str) -> frozenset[int]:
    from matplotlib.ft2font import FT2Font

    try:
        return frozenset(FT2Font(path).get_charmap())
    except (OSError, RuntimeError, ValueError):
        return frozenset()


@functools.cache
def installed_fonts() -> tuple[str, ...]:
    """Font files: matplotlib's own list first, then a fresh scan of the system."""
    from matplotlib import font_manager as fm

    known = [f.fname for f in fm.fontManager.ttflist]
    return tuple(dict.fromkeys(known + sorted(fm.findSystemFonts())))


def default_font_path() -> str:
    from matplotlib import font_manager as fm

    return fm.findfont(fm.FontProperties(family="DejaVu Sans"))


def font_families(texts: Iterable[str]) -> list[str]:
    """The font family list to draw ``texts`` with: ``[]`` (keep the defaults) when the
    default font has every character, else a covering font then DejaVu Sans."""
    from matplotlib import font_manager as fm

    needed = {ord(c) for t in texts for c in t if not c.isspace()}
    missing = needed - charmap(default_font_path())
    if not missing:
        return []
    for path in installed_fonts():
        if "lastresort" in path.lower().replace(" ", "").replace("_", ""):
            continue  # matplotlib's Last Resort font "covers" everything with placeholders
        if missing <= charmap(path):
            fm.fontManager.addfont(path)
            return [fm.FontProperties(fname=path).get_name(), "DejaVu Sans"]
    sample = "".join(sorted(chr(c) for c in missing)[:8])
    warnings.warn(f"no installed font has the characters {sample}… of these labels; they "
                  f"will show as boxes: {HINT}", MissingGlyphs, stacklevel=3)
    return []
