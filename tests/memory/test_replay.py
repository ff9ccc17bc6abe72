"""The Hamlet witness replay on a slice of the real play (Act 1, Scene 1), every design."""

from __future__ import annotations

import pytest

from graphmem import MemoryGraph
from graphmem.replay import replay_hamlet, score_merges


@pytest.fixture(scope="module")
def reports(tmp_path_factory, shared_data, embedder):
    path = shared_data / "hamlet" / "hamlet.tei.xml"
    out = {}
    for design in ("consensus", "nomerge", "private", "shared-acl"):
        data_dir = tmp_path_factory.mktemp(design) / "data"
        with MemoryGraph.open(data_dir=data_dir, design=design, embedder=embedder) as g:
            out[design] = replay_hamlet(g, path, design=design, acts=[1], scenes_per_act=1)
    return out


@pytest.mark.slow
def test_per_witness_designs_keep_one_record_per_account(reports):
    for design in ("private", "nomerge"):
        r = reports[design]
        assert r.acts[-1].entries == r.deposits
        assert r.merge.merged_pairs == 0


@pytest.mark.slow
def test_consensus_stores_each_speech_about_once(reports):
    consensus, private = reports["consensus"], reports["private"]
    shared = reports["shared-acl"]  # one deposit per speech: its entries count the speeches
    assert consensus.acts[-1].entries <= 0.4 * private.acts[-1].entries
    assert abs(consensus.acts[-1].entries - shared.acts[-1].entries) <= 0.1 * shared.acts[-1].entries
    assert consensus.merge.precision >= 0.9
    assert consensus.merge.recall >= 0.9
    assert consensus.acts[-1].multi_owner_share > 0.5


@pytest.mark.slow
def test_links_exist_only_where_the_design_keeps_them(reports):
    assert reports["private"].acts[-1].linked_share == 0
    assert reports["shared-acl"].acts[-1].linked_share == 0
    assert reports["nomerge"].acts[-1].linked_share > 0.9
    assert reports["consensus"].acts[-1].linked_share > 0.9


def test_merge_score_counts_pairs():
    groups = [("s1", {"m1"}), ("s1", {"m1"}), ("s1", {"m2"}), ("s2", {"m2"})]
    score = score_merges(groups)
    assert score.true_pairs == 3
    assert score.merged_pairs == 2
    assert score.correct_pairs == 1
    assert score.precision == 0.5
    assert score.recall == pytest.approx(1 / 3)
