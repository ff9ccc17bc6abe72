#!/usr/bin/env bash
# LLM-free evaluation runs on the shared data (and the loaders' fixtures for the two sets
# that are too large to keep here). Usage: benchmarks/run_all_evals.sh [OUT_ROOT] [PREFEVAL_LIMIT]
# Each run is resumable: rerun the script after an interruption and finished units are kept.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-runs}
PREFEVAL_LIMIT=${2:-10}
DATA=../shared/data
export HF_HUB_OFFLINE=1
timed() { local start=$SECONDS; "$@"; echo "wall time: $((SECONDS - start)) s" >&2; }

timed graphmem eval locomo --data "$DATA/locomo" --out "$OUT/locomo" --skip-bad
for n in 10 300; do
  timed graphmem eval prefeval --data "$DATA/prefeval" --form explicit --distractors "$n" \
    --seed 0 --limit "$PREFEVAL_LIMIT" --out "$OUT/prefeval-explicit-$n"
done
timed graphmem eval longmemeval --data tests/ingestion/fixtures/longmemeval/longmemeval_s.json \
  --out "$OUT/longmemeval-fixture"
timed graphmem eval personamem --data tests/ingestion/fixtures/personamem/questions_32k.csv \
  --out "$OUT/personamem-fixture"
graphmem eval report "$OUT"/locomo "$OUT"/prefeval-explicit-10 "$OUT"/prefeval-explicit-300 \
  "$OUT"/longmemeval-fixture "$OUT"/personamem-fixture
