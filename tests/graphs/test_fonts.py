"""Figures with Chinese names: a font that has the characters is found, or a warning says
what will not show."""

from __future__ import annotations

import warnings

import pytest

from graphmem import MemoryGraph
from graphmem.graphs.fonts import MissingGlyphs, charmap, font_families, installed_fonts
from graphmem.graphs.render import heatmap_png

NAMES = {"baoyu": "贾宝玉", "daiyu": "林黛玉", "baochai": "薛宝钗"}


def cjk_font_installed() -> bool:
    return any({ord(c) for c in "贾宝玉林黛薛钗"} <= charmap(p) for p in installed_fonts())


def test_latin_labels_keep_the_default_font():
    assert font_families(["Hamlet", "Russian armed forces"]) == []


def test_characters_no_font_has_are_a_clear_warning():
    with pytest.warns(MissingGlyphs, match="apt-get install"):
        assert font_families(["\U0010fffd"]) == []


@pytest.mark.skipif(not cjk_font_installed(),
                    reason="no installed font has Chinese characters (scripts/setup installs "
                           "fonts-wqy-microhei where apt-get is at hand)")
def test_heat_map_with_chinese_names_finds_a_font(tmp_path, embedder):
    families = font_families(NAMES.values())
    assert families and families[-1] == "DejaVu Sans"
    ns = "hlm"
    with MemoryGraph.open(data_dir=tmp_path / "data", embedder=embedder) as g:
        for aid, name in NAMES.items():
            g.register_agent(aid, kind="character", name=name, ns=ns)
        g.remember("baoyu", "宝玉和黛玉在园中读书。", witnesses=["daiyu"], ns=ns)
        g.remember("baochai", "宝钗送来一盒冷香丸。", witnesses=["daiyu"], ns=ns)
        with warnings.catch_warnings():
            warnings.simplefilter("error", MissingGlyphs)
            path = heatmap_png(g, ns, tmp_path / "heat.png")
    assert path.stat().st_size > 5_000
