"""The evaluation harness: LoCoMo, LongMemEval, PersonaMem and PrefEval, one protocol.

    runner     run_evaluation(EvalOptions, chat_model=None) — per unit a fresh store and
               namespace, turns through remember, memory frozen, questions asked of graphmem
               and of the BM25 / dense / RRF baselines; resumable via <out>/units.jsonl
    ingest     ingest_unit, TurnMap (which memories each turn produced, and back)
    systems    GraphmemSystem, BaselineSystem, choose_option (multiple choice by retrieval)
    metrics    recall_all@k, recall_any@k, ndcg_any@k, rank_turns, percentile (pure)
    protocols  each benchmark's cut-offs, levels, groups
    answer     LLM answers judged by each benchmark's own rule; prompts in `prompts`
    report     results.json, results.md, PNG charts; compare_runs for `graphmem eval report`

The command line is ``graphmem eval <benchmark>`` (graphmem.cli.eval_commands).
"""
