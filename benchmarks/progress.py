"""/progress: how long a member waits for their progress chart, on the real `interview-bot run` process.

Why: round 1 found 660-810 ms a call, ~500 ms of it starting the chart's child process. The bot now
keeps one chart worker warm and a chart per person until their next answer. This drives the shipped
process (benchmarks/footprint_bot.py against the fake Bot API, the shipped bank): a /daily in a group,
members answering it, one /progress to warm the worker, then members asking /progress one after another,
each timed from the update entering the server's queue to the reply arriving (long-polling delivery
included, as a member experiences it). Each of them gets a chart drawn for the first time.
"""

from __future__ import annotations

from typing import Any

from benchmarks.figures import Figure
from benchmarks.footprint import measure
from benchmarks.sizes import percentile, scaled, temporary_folder

NAME = "progress"
GOAL_P50_MS = 150.0
FIGURES = (
    Figure("p50_ms", " ms", at_most=GOAL_P50_MS),
    Figure("p95_ms", " ms"),
)
MEMBERS, SAMPLES_FULL, SAMPLES_QUICK = 40, 30, 15


async def run(quick: bool) -> dict[str, Any]:
    samples = scaled(SAMPLES_QUICK if quick else SAMPLES_FULL, minimum=3)
    with temporary_folder("progress") as folder:
        measured = await measure(folder, None, MEMBERS, "progress", progress_samples=samples)
    latencies = measured["progress_ms"]
    return {
        "p50_ms": round(percentile(latencies, 0.50), 1), "p95_ms": round(percentile(latencies, 0.95), 1),
        "goal_p50_ms": GOAL_P50_MS, "samples_ms": latencies,
        "what": "a member's /progress (first chart for them, chart worker warm) from the server's update queue to "
                "the bot's reply, through the real process and long polling",
        "notes": [],
    }
