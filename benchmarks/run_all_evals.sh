#!/usr/bin/env bash
# LLM-free evaluation runs on the shared data ($GRAPHMEM_SHARED_DATA, else ../shared/data;
# and the loaders' fixtures for the two sets that are too large to keep here). Usage:
#   benchmarks/run_all_evals.sh [--smoke] [OUT_ROOT] [PREFEVAL_300_EVERY]
# PrefEval explicit runs in full at 10 distractor turns; at 300 every PREFEVAL_300_EVERY-th
# item (default 25: 32 items over all 16 topics; 1 for the full run, about 30 s an item).
# Each `graphmem eval` run is resumable: rerun the script after an interruption and finished
# units are kept (the ablation starts again).
# --smoke runs every step on a tiny slice, to check that the harness works, in a little over a
# minute (tests/benchmarks/test_run_all_evals.py); its figures mean nothing. LoCoMo is its
# smallest conversation (conv-30); PrefEval every 500th item at 10 distractor turns, and at
# 20 in place of 300 every PREFEVAL_300_EVERY-th (default 1000: one item). OUT_ROOT defaults
# to runs-smoke.
set -euo pipefail
cd "$(dirname "$0")/.."
SMOKE=0
if [ "${1:-}" = --smoke ]; then SMOKE=1; shift; fi
DATA=${GRAPHMEM_SHARED_DATA:-../shared/data}  # as the Python benchmarks read it
export HF_HUB_OFFLINE=1
timed() { local start=$SECONDS; "$@"; echo "wall time: $((SECONDS - start)) s" >&2; }

if [ "$SMOKE" = 1 ]; then
  OUT=${1:-runs-smoke}
  PREFEVAL_300_EVERY=${2:-1000}
  LOCOMO=$DATA/locomo/conv-30.json
  PREFEVAL_10_SLICE=(--every 500)
  FAR=20  # distractor turns of the second PrefEval run
else
  OUT=${1:-runs}
  PREFEVAL_300_EVERY=${2:-25}
  LOCOMO=$DATA/locomo
  PREFEVAL_10_SLICE=()
  FAR=300
fi

mkdir -p "$OUT"
timed graphmem eval locomo --data "$LOCOMO" --out "$OUT/locomo" --skip-bad
timed python benchmarks/locomo_ablation.py --data "$LOCOMO" --split > "$OUT/locomo-ablation.md"
timed graphmem eval prefeval --data "$DATA/prefeval" --form explicit --distractors 10 \
  --seed 0 "${PREFEVAL_10_SLICE[@]}" --out "$OUT/prefeval-explicit-10"
timed graphmem eval prefeval --data "$DATA/prefeval" --form explicit --distractors "$FAR" \
  --seed 0 --every "$PREFEVAL_300_EVERY" --out "$OUT/prefeval-explicit-$FAR"
timed graphmem eval longmemeval --data tests/ingestion/fixtures/longmemeval/longmemeval_s.json \
  --out "$OUT/longmemeval-fixture"
timed graphmem eval personamem --data tests/ingestion/fixtures/personamem/questions_32k.csv \
  --out "$OUT/personamem-fixture"
graphmem eval report "$OUT"/locomo "$OUT"/prefeval-explicit-10 "$OUT/prefeval-explicit-$FAR" \
  "$OUT"/longmemeval-fixture "$OUT"/personamem-fixture
