"""The targets read off one world's summary rows, and sharing at chosen rounds."""

from __future__ import annotations

from graphmem.worlds.report import shares_at, targets


def row(design, written, multi=0.0, linked=0.0, amp=0.8, talk=0.0, silent=0.0):
    return {"design": design, "written": written, "multi_owner": multi, "linked": linked,
            "amplification": amp, "talk_overlap": talk, "silent_overlap": silent}


def test_targets_hold_when_only_consensus_merges():
    rows = [row("consensus", 100, 0.3, 0.9, talk=0.14, silent=0.001), row("nomerge", 170, 0, 0.9),
            row("private", 170), row("two-tier", 200), row("shared-acl", 170)]
    t = targets(rows)
    assert t["consensus_fewest_entries"] and t["only_consensus_shares"]
    assert t["only_consensus_links_among_baselines"] and t["nomerge_shares_nothing"]
    assert t["nomerge_ratio"] == 1.7 and t["conversing_tenfold"] and t["amplification_at_most_1"]


def test_targets_fail_where_the_figures_say_so():
    rows = [row("consensus", 100, 0.3, 0.9, amp=1.4, talk=0.01, silent=0.01),
            row("private", 90, 0.1, 0.2)]
    t = targets(rows)
    assert t["consensus_fewest_entries"] is False and t["only_consensus_shares"] is False
    assert t["only_consensus_links_among_baselines"] is False
    assert t["conversing_tenfold"] is False and t["amplification_at_most_1"] is False
    assert t["nomerge_ratio"] is None and targets([row("private", 5)]) == {}


def test_shares_at_reads_one_run_at_several_rounds():
    run = {"report": {"design": "consensus"},
           "rounds": [{"round": r, "multi_owner_share": r / 100} for r in range(40)]}
    assert shares_at([run], [10, 20, 40, 80]) == {"consensus": {10: 0.09, 20: 0.19, 40: 0.39}}
