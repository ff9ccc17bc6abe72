"""Write/read benchmark: remember and recall latency at 10,000 and 100,000 memories.

    python benchmarks/memory_bench.py --sizes 10000,100000 [--ops 200] [--json]
    python benchmarks/memory_bench.py --sizes 1000000 --synthetic-vectors \
        --data-dir DIR --ops 0          # fill once, read the view, save its snapshot
    python benchmarks/memory_bench.py --sizes 1000000 --data-dir DIR   # then measure
    python benchmarks/memory_bench.py --sizes 100000 --claims --ops 2400 --window 400
                                        # a writer that runs long: remember, stretch by stretch
    python benchmarks/memory_bench.py --sizes 100000 --synthetic-vectors --preferences 0.1
                                        # a tenth of the memories state a taste, and each
                                        # operation also asks for a recommendation
    python benchmarks/memory_bench.py --sizes 100000 --synthetic-vectors --deposit-atoms 3
                                        # every three statements one deposit's atoms
    python benchmarks/memory_bench.py --sizes 1000000 --template-vectors --data-dir DIR \
        --ops 0                         # vectors near the questions, as real ones lie
    python benchmarks/memory_bench.py --sizes 100000 --data-dir DIR --without expand
                                        # each kind of question also timed without a
                                        # channel, in the same run: what it costs
    python benchmarks/memory_bench.py --sizes 1000000 --data-dir DIR --askers 1
                                        # one agent writes and asks (a person's
                                        # assistant); by default twenty, at random

With ``--data-dir`` the store is kept and filled only the first time; a later run opens
it as a new process would (from the view snapshot the first run saved) and reports the
seconds to the first recall, then until its vector index is ready (trained on a thread
past 50,000 memories), and the process's resident memory (VmRSS, and its peak
VmHWM) after it and after the timed operations, read before the close; the close's
own seconds and the peak with it (a close that saves the view snapshot copies it) are
reported apart. The store is filled by a bulk load of
generated statements with real embeddings (a fill through ``remember`` would take hours at 100k); then ``remember`` (embedding
included, the deterministic judge, no LLM) and ``recall`` are timed on new statements,
half of them re-wordings of stored ones so that merges happen; recall is timed on a
factual question and on a list question naming an agent (the multi-hop kind's channels
and weights), after one untimed remember (the first loads the parser); p50, p95, p99
and the slowest. Baselines measured in the same run: embedding one sentence alone, and a
``RETURN 1`` round trip. What the tail is made of is counted too
(`process_counters.py`): the interpreter's full collections, the embedded server's forks
(its index garbage collection), and the major page faults of each kind of operation.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from graphmem import MemoryGraph, vector_index
from graphmem.untraced import freeze_survivors
from graphmem.supersession.detector import SupersessionDetector
from process_counters import (FaultCount, FullCollections, IndexGarbage, ServerForks,
                              majflt, rss_mb)

NAMES = ["Ana", "Ben", "Chloe", "Dmitri", "Esra", "Farid", "Greta", "Hugo", "Ines", "Jonas",
         "Kemal", "Lena", "Mateo", "Nadia", "Oskar", "Priya", "Quinn", "Rosa", "Sami", "Tove"]
PLACES = ["the harbour", "the library", "the old mill", "the market", "the station",
          "the clinic", "the bakery", "the school", "the river bank", "the town hall"]
THINGS = ["a blue bicycle", "three letters", "the spare key", "a broken radio", "the ledger",
          "a box of apples", "the night train ticket", "a silver watch", "the map", "a kite"]
VERBS = ["found", "lost", "repaired", "sold", "hid", "borrowed", "painted", "returned",
         "photographed", "described"]
AGENTS = [f"agent-{i:02d}" for i in range(20)]


def statement(rng: random.Random) -> str:
    return (f"{rng.choice(NAMES)} {rng.choice(VERBS)} {rng.choice(THINGS)} at "
            f"{rng.choice(PLACES)} on day {rng.randint(1, 3000)}.")


def preference(rng: random.Random) -> str:
    """A statement of a taste (`graphmem.retrieval.preferences` reads it as one)."""
    first, second = rng.sample(THINGS, 2)
    return f"{rng.choice(NAMES)} prefers {first} to {second} at {rng.choice(PLACES)}."


def reword(text: str) -> str:
    """'X found Y at Z on day N.' -> 'On day N, X found Y at Z.' (same facts)."""
    head, _, day = text.rstrip(".").rpartition(" on ")
    return f"On {day}, {head}." if head else text


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def synthetic_vectors(texts: list[str], seed: int, dim: int = 384) -> np.ndarray:
    """Random unit vectors, one per text (seeded by ``seed``): the cost of a scan, a
    snapshot or an index does not depend on what the vectors mean, and the real model
    embeds about 100 short sentences a second on a loaded 2-core machine (100k: 20 min)."""
    vectors = np.random.default_rng(seed).standard_normal((len(texts), dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


#: how far a statement's vector lies from its template's (`template_vectors`): a cosine
#: of about 0.97, as two days of one sentence have in the real model
DAY_SPREAD = 0.25


def template_vectors(g: MemoryGraph, texts: list[str], seed: int,
                     known: dict[str, np.ndarray]) -> np.ndarray:
    """The real model's vector of each text's template (the text less its day: at most
    20,000 statements and 18,000 tastes, each embedded once, kept in ``known``), moved a
    little at random (`DAY_SPREAD`): vectors that lie as the model puts such sentences,
    near the questions about them and clustered as real memories are, at the cost of
    random ones (a random vector is far from every question, so each one is routed as
    nothing near it, and an index over random vectors is evenly filled)."""
    templates = [text.split(" on day ")[0] for text in texts]
    fresh = sorted(set(templates) - known.keys())
    for template, vector in zip(fresh, g.embedder.embed(fresh) if fresh else []):
        known[template] = np.asarray(vector, dtype=np.float32)
    base = np.stack([known[t] for t in templates])
    noise = synthetic_vectors(texts, seed, base.shape[1]) * DAY_SPREAD
    moved = base + noise
    return moved / np.linalg.norm(moved, axis=1, keepdims=True)


def fill(g: MemoryGraph, ns: str, n: int, rng: random.Random, batch: int = 1000,
         synthetic: bool = False, claims: bool = False, preferences: float = 0.0,
         deposit_atoms: int = 1, templates: bool = False) -> float:
    """Bulk-load ``n`` generated statements into ``ns`` with real embeddings (or random
    unit vectors with ``synthetic``); with ``claims``, each keeps its claims as the write
    path keeps them (parsed here: a store written through ``remember`` has them; an
    import does not); ``preferences`` of them (a share, drawn by their own generator)
    state a taste; ``deposit_atoms`` > 1: each run of that many statements is one
    deposit's atoms (the same owners and time, AFFILIATED to one another, as a turn cut
    into atoms is); ``templates``: vectors by `template_vectors`; returns the seconds it
    took."""
    started = time.perf_counter()
    detector = SupersessionDetector() if claims else None
    tastes = random.Random(f"preferences-{n}")
    for agent in AGENTS:
        g.register_agent(agent, kind="ai", ns=ns)
    batch -= batch % deposit_atoms  # a deposit's atoms are loaded together
    known: dict[str, np.ndarray] = {}
    for lo in range(0, n, batch):
        texts = [preference(tastes) if preferences and tastes.random() < preferences
                 else statement(rng) for _ in range(min(batch, n - lo))]
        vectors = (synthetic_vectors(texts, lo) if synthetic
                   else template_vectors(g, texts, lo, known) if templates
                   else g.embedder.embed(texts))
        kept: list[str | None] = [None] * len(texts)
        if detector is not None:
            detector.claims(texts)
            kept = [detector.kept([t]) for t in texts]
        # drawn once a deposit (once a statement without --deposit-atoms: the same store)
        owners = [rng.sample(AGENTS, rng.randint(1, 3)) for _ in range(0, len(texts),
                                                                       deposit_atoms)]
        rows = [{"id": f"bulk-{lo + i}", "text": t,
                 "t": 1_600_000_000_000 + lo + i - i % deposit_atoms,
                 "owners": owners[i // deposit_atoms], "claims": c,
                 "embedding": [float(x) for x in v]}
                for i, (t, v, c) in enumerate(zip(texts, vectors, kept))]
        g.query("bulk/load_memories", {"ns": ns, "seq": 1, "rows": rows}, write=True)
        if deposit_atoms > 1:
            links = [{"from_id": f"bulk-{lo + i}", "to_id": f"bulk-{lo + j}", "props": {}}
                     for first in range(0, len(texts), deposit_atoms)
                     for i in range(first, min(first + deposit_atoms, len(texts)))
                     for j in range(i + 1, min(first + deposit_atoms, len(texts)))]
            g.query("worlds/load_edges/AFFILIATED", {"ns": ns, "rows": links}, write=True)
    g.query("bulk/set_version", {"ns": ns, "version": 1}, write=True)
    return time.perf_counter() - started


def settle(g: MemoryGraph, timeout_s: float = 600) -> None:
    """Wait until the embedded server has finished rewriting its append-only file: the
    rewrite a bulk fill triggers would otherwise compete with the timed operations."""
    import redis

    server = getattr(g._store, "server", None)
    if server is None:
        return
    client = redis.Redis(unix_socket_path=str(server.socket_path))
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        info = client.info("persistence")
        if not info.get("aof_rewrite_in_progress") and not info.get("aof_rewrite_scheduled"):
            break
        time.sleep(0.5)
    client.close()


def measure(size: int, ops: int, data_dir: Path, seed: int, synthetic: bool = False,
            claims: bool = False, freeze: bool = False, window: int = 0,
            preferences: float = 0.0, deposit_atoms: int = 1, templates: bool = False,
            without: str | None = None, tables: Path | None = None, askers: int = 0) -> dict:
    rng = random.Random(seed)
    # the agents that write and ask (the first ``askers``; all of them by default)
    active = AGENTS[:askers] if askers else AGENTS
    asked = None if tables is None else config_of_tables(tables)
    lacking = None if without is None else without_channel(without, asked)
    ns = f"bench-{size}"
    opening = time.perf_counter()
    with MemoryGraph.open(data_dir=data_dir) as g:
        stored = g.cypher("MATCH (m:Memory {ns: $ns}) RETURN count(m) AS n", {"ns": ns})[0]["n"]
        if stored:  # kept from an earlier run (--data-dir): open it as a new process would
            fill_s = None
            rng = random.Random(f"{seed}-{stored}")  # not the statements of the last run
            g.recall(AGENTS[0], "What did Ana do with the spare key?", k=10, ns=ns)
            sync_s = time.perf_counter() - opening
            index_s = ready_index(g, ns)
        else:
            g.embedder.embed(["warm up"])
            fill_s = fill(g, ns, size, rng, synthetic=synthetic, claims=claims,
                          preferences=preferences, deposit_atoms=deposit_atoms,
                          templates=templates)
            settle(g)
            t = time.perf_counter()
            g._views.synced(ns)
            sync_s = time.perf_counter() - t
            index_s = ready_index(g, ns)  # trained before the snapshot is saved on close
        rss_first = rss_mb()
        stored = [r["text"] for r in g.cypher(
            "MATCH (m:Memory {ns: $ns}) RETURN m.text AS text LIMIT 500", {"ns": ns})]
        embed_ms, ping_ms, remember_ms, recall_ms, listing_ms = [], [], [], [], []
        asking_ms: list[float] = []
        lacking_ms: list[float] = []  # with --without: the same kinds of question without it
        lacking_list_ms: list[float] = []
        merged = 0
        if ops:  # untimed: the first remember loads the parser (seconds: the p99 and max
            # are of the operations, not of a process's first write)
            g.remember(AGENTS[0], f"{statement(rng)} (warm up)", ns=ns)
        if freeze:  # as `graphmem serve` does once it has warmed up
            gc.collect()
            gc.freeze()
            stop_freezing = freeze_survivors()
        collections, forks, garbage = FullCollections(), ServerForks(g), IndexGarbage(g)

        def ask(query: str, config, into: list[float], counted: FaultCount | None) -> None:
            """Time one recall of ``query`` by an agent at random into ``into``."""
            t, before = time.perf_counter(), majflt()
            g.recall(rng.choice(active), query, k=10, ns=ns, config=config)
            into.append((time.perf_counter() - t) * 1000)
            if counted is not None:
                counted.add(majflt() - before)

        faults = {"remember": FaultCount(), "recall": FaultCount(), "list": FaultCount()}
        for i in range(ops):
            fresh = f"{statement(rng)} (note {i})" if i % 2 else reword(rng.choice(stored))
            t = time.perf_counter()
            g.embedder.embed([f"baseline sentence {i} {fresh}"])
            embed_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            g.cypher("RETURN 1 AS one")
            ping_ms.append((time.perf_counter() - t) * 1000)
            t, before = time.perf_counter(), majflt()
            result = g.remember(rng.choice(active), fresh, witnesses=rng.sample(AGENTS, 0), ns=ns)
            remember_ms.append((time.perf_counter() - t) * 1000)
            faults["remember"].add(majflt() - before)
            merged += sum(a.action == "merged" for a in result.atoms)
            # with --without, each kind of question is also asked (another one, so that
            # no embedding is cached) without the channel, which of the two first in turn
            askings = [(asked, recall_ms, listing_ms)]
            if lacking is not None:
                askings.append((lacking, lacking_ms, lacking_list_ms))
                askings = askings[::-1] if i % 2 else askings
            for config, timed, listed in askings:
                counted = config is asked  # the faults of the main questions only
                ask(f"What did {rng.choice(NAMES)} do with {rng.choice(THINGS)}?", config,
                    timed, faults["recall"] if counted else None)
                # a list question about one agent (the multi-hop kind: its channels and weights)
                ask(f"What things has {rng.choice(AGENTS)} {rng.choice(VERBS)}?", config,
                    listed, faults["list"] if counted else None)
            if preferences:  # a question for a recommendation: the profile channel's kind
                first, second = rng.sample(THINGS, 2)
                query = f"Would you suggest {first} or {second} for me?"
                t = time.perf_counter()
                g.recall(rng.choice(active), query, k=10, ns=ns)
                asking_ms.append((time.perf_counter() - t) * 1000)
        collections.stop()
        if freeze:
            stop_freezing()
        server_forks, index_garbage = forks.count(), garbage.count()
        # read before the close: a close that saves the view snapshot copies it (1.5-1.9
        # GB more at a million memories), which is not what a serving process holds
        held = {name: round(rss_mb(field)) for name, field in (
            ("rss_mb", "VmRSS"), ("peak_rss_mb", "VmHWM"), ("rss_anon_mb", "RssAnon"),
            ("rss_file_mb", "RssFile"))}
        closing = time.perf_counter()
    closed = {"close_s": round(time.perf_counter() - closing, 2),
              # the peak over the whole run, the close (and any snapshot save) included
              "peak_rss_mb_with_close": round(rss_mb("VmHWM"))}
    if not ops:
        return {"memories": size, "fill_s": fill_s and round(fill_s, 1),
                "view_sync_s": round(sync_s, 2), "index_ready_s": round(index_s, 1),
                "rss_mb_after_first_read": round(rss_first),
                "peak_rss_mb": held["peak_rss_mb"], **closed}
    summary = {name: {"p50": round(percentile(v, 0.5), 2), "p95": round(percentile(v, 0.95), 2),
                      "p99": round(percentile(v, 0.99), 2), "max": round(max(v), 2)}
               for name, v in (("remember", remember_ms), ("recall", recall_ms),
                               ("recall, a list question naming an agent", listing_ms),
                               *((("recall, a question for a recommendation", asking_ms),)
                                 if asking_ms else ()),
                               *(((f"recall without {without}", lacking_ms),
                                  (f"recall, a list question, without {without}",
                                   lacking_list_ms)) if lacking_ms else ()),
                               ("embed_one (baseline)", embed_ms), ("RETURN 1 (baseline)", ping_ms))}
    filled = "as filled by an earlier run" if fill_s is None else \
        ("synthetic (random unit)" if synthetic else
         "all-MiniLM-L6-v2 of each template, moved" if templates else "all-MiniLM-L6-v2") + \
        (", claims kept" if claims else ", no claims kept")
    return {"memories": size, "vectors": filled, "ops": ops, "merged": merged,
            "askers": len(active),
            "fill_s": fill_s and round(fill_s, 1),
            "first_read": "open + first recall (snapshot)" if fill_s is None
            else "first view read",
            "view_sync_s": round(sync_s, 2), "index_ready_s": round(index_s, 1),
            # resident memory after the operations, before the close; rss_anon_mb is
            # private memory, rss_file_mb pages mapped from files (the snapshot: shared
            # by every process that maps it, and given back under pressure)
            "rss_mb_after_first_read": round(rss_first), **held, **closed,
            "latency_ms": summary,
            # the interpreter's full collections during the operations (what the p99 and
            # max are made of), and what each one walks: every reference held by a
            # tracked container (long lists and sets of ids are most of it)
            "gc_frozen": gc.get_freeze_count(),
            "gc_full_collections": len(collections.pauses_ms),
            "gc_full_ms_max": round(max(collections.pauses_ms, default=0.0), 1),
            "gc_references_walked": collections.references(),
            # the server's forks during the operations (its index garbage collection):
            # each stalls the writes in flight (the tail of remember)
            "server_forks": server_forks,
            # this process's reads from disk on touch during the timed operations (major
            # faults, each of a page or more: of a mapped snapshot file, or of a library,
            # that was not in memory; a host that pages out what has not been touched for
            # a while makes them after an idle minute)
            "major_faults": {op: {"ops_with": c.ops_with, "faults": c.faults}
                             for op, c in faults.items()},
            # which indexes made the garbage, and which ones the forks collected
            "index_garbage": index_garbage,
            # each op's p95 over the baseline's, run by run: what compares two builds
            # on a machine whose speed drifts within a session
            "remember_p95_over_embed_p95": round(summary["remember"]["p95"] /
                                                 summary["embed_one (baseline)"]["p95"], 2),
            "recall_p95_over_embed_p95": round(summary["recall"]["p95"] /
                                               summary["embed_one (baseline)"]["p95"], 2),
            # with --window: remember and recall in each stretch of that many operations
            # (what grows with the time a writer has run)
            **({"remember_by_window": by_window(remember_ms, window),
                "recall_by_window": by_window(recall_ms, window)} if window else {})}


def without_channel(channel: str, config=None):
    """``config`` (the default recall config if None) with ``channel`` at weight 0 for
    every kind of question, and in the route gate's own table."""
    from cv_attribution import channels_off
    from graphmem.retrieval.config import CHANNELS, HYBRID

    if channel not in CHANNELS:
        raise SystemExit(f"--without {channel!r}: not a channel; the channels are {list(CHANNELS)}")
    return channels_off(config or HYBRID, (channel,))


def config_of_tables(path: Path):
    """The recall config of weight tables as `cv_fitted` prints and saves them (its
    "fitted on every fold": rrf_k, secondary_share, route, fallback and a table per
    kind of question)."""
    from cv_report import config_of_tables as of_tables

    return of_tables(json.loads(path.read_text()))


def by_window(values: list[float], window: int) -> list[dict]:
    """p50 and p95 of each stretch of ``window`` values, in order (the last may be shorter)."""
    return [{"ops": lo + len(part), "p50": round(percentile(part, 0.5), 2),
             "p95": round(percentile(part, 0.95), 2)}
            for lo in range(0, len(values), window) for part in [values[lo:lo + window]]]


def ready_index(g: MemoryGraph, ns: str) -> float:
    """Seconds until the view's vector index is ready (trained on a thread once the view
    is past `graphmem.vector_index.IVF_ABOVE`; searches scan exactly meanwhile): the
    timed operations then measure the index, not the scan."""
    started = time.perf_counter()
    view = g._views.synced(ns)
    if len(view) > vector_index.IVF_ABOVE:
        view.index_ready(wait=None)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--ops", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    vectors = parser.add_mutually_exclusive_group()  # how the fill makes its vectors
    vectors.add_argument("--synthetic-vectors", action="store_true",
                        help="fill with random unit vectors (scan and write costs are the "
                             "same; rewordings then rarely merge, and the fill is fast)")
    vectors.add_argument("--template-vectors", action="store_true",
                        help="fill with the real model's vector of each statement's "
                             "template (less its day), moved a little at random: as fast "
                             "as random vectors past the first 38,000 statements, and near "
                             "the questions as real memories are (random ones are far "
                             "from every question, so every question is routed)")
    parser.add_argument("--claims", action="store_true",
                        help="the filled memories keep their claims, as memories written "
                             "through remember do (parsing them makes the fill slower); "
                             "without: an import's memories, parsed by the detector "
                             "when a new statement may replace them")
    parser.add_argument("--freeze", action="store_true",
                        help="after warming up, freeze what the process holds (gc.freeze), "
                             "and again after every full collection, as `graphmem serve` "
                             "does: a full collection then walks only what was made since "
                             "the one before")
    parser.add_argument("--window", type=int, default=0,
                        help="also report remember's and recall's p50 and p95 in each "
                             "stretch of this many operations, in order: a cost that grows "
                             "with the time a writer has run shows there")
    parser.add_argument("--preferences", type=float, default=0.0,
                        help="this share of the filled statements state a taste, and each "
                             "operation also asks for a recommendation (timed apart: the "
                             "profile channel ranks the asker's statements of a taste)")
    parser.add_argument("--deposit-atoms", type=int, default=1,
                        help="fill deposits of this many atoms each (AFFILIATED siblings "
                             "with the same owners, as a conversation's turns are stored): "
                             "the deposit channel and affiliated ranking read them")
    parser.add_argument("--without", metavar="CHANNEL",
                        help="also time each kind of question without this channel (its "
                             "weight 0 for every kind), in the same run: what it costs")
    parser.add_argument("--tables", type=Path,
                        help="recall with these weight tables (JSON, as cv_fitted.py's "
                             "'fitted on every fold') instead of the shipped ones")
    parser.add_argument("--askers", type=int, default=0,
                        help="only the first N agents write and ask (1: a person's "
                             "assistant); 0, the default: all %d, at random" % len(AGENTS))
    parser.add_argument("--data-dir", type=Path,
                        help="keep the stores here (DIR/size-N): filled by the first run, "
                             "opened from their view snapshots by later ones")
    args = parser.parse_args()
    if not 0 <= args.askers <= len(AGENTS):
        parser.error(f"--askers takes 0 (all) to {len(AGENTS)} agents, got {args.askers}")
    if args.deposit_atoms < 1:
        parser.error(f"--deposit-atoms takes a count of atoms, 1 or more, got {args.deposit_atoms}")
    options = {"synthetic": args.synthetic_vectors, "claims": args.claims,
               "freeze": args.freeze, "window": args.window,
               "preferences": args.preferences, "deposit_atoms": args.deposit_atoms,
               "templates": args.template_vectors, "without": args.without,
               "tables": args.tables, "askers": args.askers}
    results = []
    for size in (int(s) for s in args.sizes.split(",")):
        if args.data_dir is not None:
            results.append(measure(size, args.ops, args.data_dir / f"size-{size}", args.seed,
                                   **options))
            continue
        with tempfile.TemporaryDirectory(prefix="graphmem-bench-") as tmp:
            results.append(measure(size, args.ops, Path(tmp) / "data", args.seed, **options))
    if args.json or not args.ops:
        print(json.dumps(results, indent=2))
        return
    print("| memories | op | p50 ms | p95 ms | p99 ms | max ms |\n|---:|---|---:|---:|---:|---:|")
    for r in results:
        for op, lat in r["latency_ms"].items():
            print(f"| {r['memories']:,} | {op} | {lat['p50']} | {lat['p95']} | {lat['p99']} "
                  f"| {lat['max']} |")
    for r in results:
        print(f"\n{r['memories']:,} memories ({r['vectors']} vectors): RSS "
              f"{r['rss_mb_after_first_read']} MB after the first read, {r['rss_mb']} MB "
              f"after the operations (peak {r['peak_rss_mb']} MB; private {r['rss_anon_mb']} "
              f"MB, mapped from files {r['rss_file_mb']} MB); the close took "
              f"{r['close_s']} s, peak {r['peak_rss_mb_with_close']} MB with it; "
              f"fill {r['fill_s']} s, "
              f"{r['first_read']} {r['view_sync_s']} s, {r['merged']} of {r['ops']} "
              "deposits merged, "
              f"remember p95 / embed p95 = {r['remember_p95_over_embed_p95']}, "
              f"recall p95 / embed p95 = {r['recall_p95_over_embed_p95']}; major page "
              f"faults: " + ", ".join(f"{op} {c['faults']} in {c['ops_with']} operations"
                                      for op, c in r["major_faults"].items()))
        for op in ("remember", "recall"):
            for w in r.get(f"{op}_by_window", []):
                print(f"  {op} after {w['ops']} operations: p50 {w['p50']} ms, "
                      f"p95 {w['p95']} ms")


if __name__ == "__main__":
    main()
