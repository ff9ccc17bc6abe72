#!/usr/bin/env bash
# LLM-free evaluation runs on the shared data ($GRAPHMEM_SHARED_DATA, else ../shared/data;
# and the loaders' fixtures for the two sets that are too large to keep here). Usage: benchmarks/run_all_evals.sh [OUT_ROOT] [PREFEVAL_300_EVERY]
# PrefEval explicit runs in full at 10 distractor turns; at 300 every PREFEVAL_300_EVERY-th
# item (default 25: 32 items over all 16 topics; 1 for the full run, about 30 s an item).
# Each run is resumable: rerun the script after an interruption and finished units are kept.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-runs}
PREFEVAL_300_EVERY=${2:-25}
DATA=${GRAPHMEM_SHARED_DATA:-../shared/data}  # as the Python benchmarks read it
export HF_HUB_OFFLINE=1
timed() { local start=$SECONDS; "$@"; echo "wall time: $((SECONDS - start)) s" >&2; }

mkdir -p "$OUT"
timed graphmem eval locomo --data "$DATA/locomo" --out "$OUT/locomo" --skip-bad
timed python benchmarks/locomo_ablation.py --data "$DATA/locomo" --split > "$OUT/locomo-ablation.md"
timed graphmem eval prefeval --data "$DATA/prefeval" --form explicit --distractors 10 \
  --seed 0 --out "$OUT/prefeval-explicit-10"
timed graphmem eval prefeval --data "$DATA/prefeval" --form explicit --distractors 300 \
  --seed 0 --every "$PREFEVAL_300_EVERY" --out "$OUT/prefeval-explicit-300"
timed graphmem eval longmemeval --data tests/ingestion/fixtures/longmemeval/longmemeval_s.json \
  --out "$OUT/longmemeval-fixture"
timed graphmem eval personamem --data tests/ingestion/fixtures/personamem/questions_32k.csv \
  --out "$OUT/personamem-fixture"
graphmem eval report "$OUT"/locomo "$OUT"/prefeval-explicit-10 "$OUT"/prefeval-explicit-300 \
  "$OUT"/longmemeval-fixture "$OUT"/personamem-fixture
