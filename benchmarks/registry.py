"""The one list of benchmark modules; adding a benchmark is adding its module path here.

A benchmark module defines:
  NAME: str                              -- the top-level key of its figures in the JSON
  FIGURES: tuple[benchmarks.figures.Figure, ...]  -- what the table shows, with goals (optional)
  async def run(quick: bool) -> dict     -- raw figures (JSON-able); "notes" (list[str]) is printed

Modules are imported only when selected, so a benchmark that needs an adapter's dependencies does
not stop the others from running.
"""

from __future__ import annotations

MODULES: tuple[str, ...] = (
    "benchmarks.answer_burst",
    "benchmarks.store",
    "benchmarks.broadcast",
    "benchmarks.storm",
    "benchmarks.leaderboard",
    "benchmarks.bank",
    "benchmarks.footprint",
    "benchmarks.progress",
    "benchmarks.flood",
    "benchmarks.adaptive",
    "benchmarks.scale",
    "benchmarks.webhook_workers",
    "benchmarks.quiz",
)

# The quick run's lanes (benchmarks/lanes.py): the lanes run side by side, each one benchmark after another.
# The paced benchmarks wait on real time (rate limits, timers) and use a fifth of a core each, so they run
# beside the CPU-bound ones; docs/benchmarks.md has the measurements behind this layout. webhook_workers
# (eight worker processes and PostgreSQL) comes last in its lane: beside broadcast and storm's posting it
# took their verdicts (rate 0.847, reply p95 2.7 s); adaptive after flood, not before, as it then ran
# beside webhook_workers longer. A benchmark no lane lists runs in a lane of its own. The full run is
# sequential, in MODULES' order.
QUICK_LANES: tuple[tuple[str, ...], ...] = (
    ("answer_burst", "store", "leaderboard", "bank", "footprint", "progress", "webhook_workers"),
    ("broadcast", "flood", "adaptive"),
    ("storm", "quiz", "scale"),
)

# Keys the issue asks the JSON to hold; the harness says which ones a run did not produce.
REQUIRED_KEYS: tuple[str, ...] = (
    "answer_burst.ratio_vs_bare",  # equal terms: the bare bot over ours' HTTP client, same server, same clicks
    "store.ratio_vs_raw",  # equal terms: raw runs the store's own statements in the same transactions
    "store.interview_ratio_vs_raw",  # equal terms: raw commits the same rows in the same groups
    "broadcast.rate_over_limit",
    "broadcast.http_429",
    "storm.interactive_p95_s",
    "leaderboard.p95_ms",
    "leaderboard.groups.p95_ms",
    "progress.p50_ms",
    "bank.load_10k_s",
    "footprint.rss_mb",
    "adaptive.band_accuracy_share_of_optimum",
    "adaptive.confidence_gap",
    "adaptive.questions_to_sure",
    "adaptive.other_wrong_key_flags",
    "scale.ratio_vs_raw",
    "webhook_workers.latency_1ms.clicks_per_s.workers_1",
    "webhook_workers.latency_1ms.clicks_per_s.workers_2",
    "webhook_workers.latency_1ms.clicks_per_s.workers_4",
    "webhook_workers.no_latency.clicks_per_s.workers_1",
    "webhook_workers.no_latency.clicks_per_s.workers_2",
    "webhook_workers.no_latency.clicks_per_s.workers_4",
    "webhook_workers.latency_1ms.ratio_to_no_latency",
    "quiz.tick_drift_p95_s",
)
