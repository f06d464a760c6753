"""Run the selected benchmarks, print one table against the goals, and write the raw figures as JSON.

Each benchmark runs in its own event loop (asyncio.run) so that one cannot leave tasks, threads or
connections behind for the next; a benchmark that fails is reported and the others still run. A quick
run puts its benchmarks in lanes that run side by side (benchmarks/lanes.py, registry.QUICK_LANES);
`--sequential` and the full run take them one after another.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib
import json
import os
import resource
import sys
import time
import traceback
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType
from typing import Any

from benchmarks.figures import Figure, format_value, lookup
from benchmarks.lanes import figures_of, outcome_record, planned_lanes, run_lanes, write_records
from benchmarks.registry import MODULES, QUICK_LANES, REQUIRED_KEYS
from benchmarks.sizes import SCALE_VARIABLE, machine, scale


@dataclass(frozen=True)
class Outcome:
    """One benchmark's run: its figures, or the error that stopped it."""

    name: str
    figures: tuple[Figure, ...]
    result: dict[str, Any]
    error: str | None
    elapsed_s: float
    cpu_s: float  # this process and its finished children: what the run cost whatever else the machine did
    load: float | None  # the 1-minute load average as it ended


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    short_names = [path.rsplit(".", 1)[1] for path in MODULES]
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller workloads, in lanes side by side (152-164 s on a quiet 2-core VM)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the raw figures to FILE")
    parser.add_argument("--only", nargs="+", metavar="NAME", choices=short_names,
                        help=f"run only these benchmarks ({', '.join(short_names)})")
    parser.add_argument("--scale", type=float, metavar="X",
                        help=f"multiply every workload by X (sets {SCALE_VARIABLE}; for smoke tests)")
    parser.add_argument("--sequential", action="store_true",
                        help="a quick run one benchmark after another, without lanes (as the full run always is)")
    parser.add_argument("--outcomes", type=Path, help=argparse.SUPPRESS)  # a lane's records for its parent run
    return parser.parse_args(argv)


def selected_modules(only: list[str] | None, in_given_order: bool = False) -> list[str]:
    """Module paths in registry order, restricted to --only names when given; a lane runs them in its own order."""
    paths = [path for path in MODULES if not only or path.rsplit(".", 1)[1] in only]
    if only and in_given_order:
        paths.sort(key=lambda path: only.index(path.rsplit(".", 1)[1]))
    return paths


def run_one(path: str, quick: bool) -> Outcome:
    """Import and run one benchmark; any exception becomes the outcome's error."""
    name = path.rsplit(".", 1)[1]
    started, cpu_started = time.perf_counter(), cpu_seconds()
    figures: tuple[Figure, ...] = ()
    try:
        module: ModuleType = importlib.import_module(path)
        name = getattr(module, "NAME", name)
        figures = tuple(getattr(module, "FIGURES", ()))
        print(f"running {name} ({'quick' if quick else 'full'}) ...", file=sys.stderr, flush=True)
        result = asyncio.run(module.run(quick))
        error = None
    except Exception:  # a broken benchmark must not hide the others' figures
        result, error = {}, traceback.format_exc()
        print(error, file=sys.stderr)
    gc.collect()
    elapsed, cpu = time.perf_counter() - started, cpu_seconds() - cpu_started
    result = {**result, "elapsed_s": round(elapsed, 2), "cpu_s": round(cpu, 2)}
    if error:
        result["error"] = error
    load = load_average()
    print(f"{name}: {elapsed:.1f} s ({cpu:.1f} s CPU, load {load})", file=sys.stderr, flush=True)
    return Outcome(name, figures, result, error, elapsed, cpu, load)


def run_sequentially(paths: list[str], quick: bool, records_path: Path | None) -> list[Outcome]:
    """One benchmark after another in this process; a lane hands each finished one to its parent as it goes."""
    outcomes: list[Outcome] = []
    for path in paths:
        outcomes.append(run_one(path, quick))
        if records_path is not None:
            write_records(records_path, [outcome_record(o.name, o.figures, o.result, o.error, o.elapsed_s, o.cpu_s,
                                                        o.load) for o in outcomes])
    return outcomes


def run_in_lanes(paths: list[str]) -> tuple[list[Outcome], list[dict[str, Any]]]:
    """The quick run's lanes side by side; the outcomes come back in registry order."""
    names = [path.rsplit(".", 1)[1] for path in paths]
    records, lanes = run_lanes(planned_lanes(QUICK_LANES, names))
    by_name = {record["name"]: record for record in records}
    outcomes = []
    for name in names:
        record = by_name[name]
        result = {**record["result"], **({"error": record["error"]} if record["error"] else {})}
        outcomes.append(Outcome(name, figures_of(record), result, record["error"], record["elapsed_s"],
                                record["cpu_s"], record["load"]))
    return outcomes, lanes


def cpu_seconds() -> float:
    """User + system CPU of this process and its waited-for children (the bot processes, the fake servers,
    PostgreSQL): less sensitive to a shared machine's load than wall time."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def load_average() -> float | None:
    """The 1-minute load average, beside each duration: on a shared machine it says how far to trust it."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def shown_figures(outcome: Outcome) -> tuple[Figure, ...]:
    """The declared figures, else every top-level number (for modules that declare none)."""
    if outcome.figures:
        return outcome.figures
    return tuple(Figure(key) for key, value in outcome.result.items()
                 if isinstance(value, (int, float)) and not isinstance(value, bool))


def goal_rows(outcomes: list[Outcome]) -> list[dict[str, Any]]:
    """Every shown figure with its value, goal and verdict; the table and the JSON both use these."""
    rows = []
    for outcome in outcomes:
        for figure in shown_figures(outcome):
            value = lookup(outcome.result, figure.key)
            rows.append({"benchmark": outcome.name, "figure": figure.key, "key": f"{outcome.name}.{figure.key}",
                         "value": value, "unit": figure.unit, "goal": figure.goal or None,
                         "met": figure.met(value) if figure.goal else None})
    return rows


def render_table(rows: list[dict[str, Any]]) -> str:
    """A plain fixed-width table: benchmark, figure, value, goal, met?."""
    header = ("benchmark", "figure", "value", "goal", "met?")
    body = [(row["benchmark"], row["figure"], f"{format_value(row['value'])}{row['unit'] if row['value'] is not None else ''}",
             row["goal"] or "", {True: "yes", False: "NO", None: ""}[row["met"]]) for row in rows]
    widths = [max(len(str(cells[i])) for cells in (header, *body)) for i in range(len(header))]
    line = "  ".join("-" * width for width in widths)
    text = ["  ".join(str(cell).ljust(width) for cell, width in zip(cells, widths)).rstrip()
            for cells in (header, *body)]
    return "\n".join([text[0], line, *text[1:]])


def render_notes(outcomes: list[Outcome]) -> str:
    """Each benchmark's notes (where the time goes when a goal is missed) and its errors."""
    parts = []
    for outcome in outcomes:
        notes = outcome.result.get("notes") or []
        if outcome.error:
            notes = [*notes, f"ERROR: {outcome.error.strip().splitlines()[-1]}"]
        if notes:
            parts.append(f"[{outcome.name}]\n" + "\n".join(f"  {note}" for note in notes))
    return "\n".join(parts)


def render_durations(outcomes: list[Outcome], lanes: list[dict[str, Any]]) -> str:
    """Each benchmark's wall time and CPU time, so a run that grew says which part grew; then each lane's."""
    text = "durations: " + ", ".join(f"{o.name} {o.elapsed_s:.0f} s ({o.cpu_s:.0f} s CPU)" for o in outcomes)
    return text + "".join(f"\nlane {index}: {lane['elapsed_s']:.0f} s ({lane['cpu_s']:.0f} s CPU): "
                          f"{', '.join(lane['benchmarks'])}" for index, lane in enumerate(lanes, 1))


def document(outcomes: list[Outcome], rows: list[dict[str, Any]], quick: bool, elapsed: float,
             lanes: list[dict[str, Any]]) -> dict[str, Any]:
    """The JSON: machine and run settings, each benchmark's raw figures, and the goal verdicts. With lanes,
    a benchmark's duration and load are those of its lane's share of a machine the other lanes also used;
    its CPU time is its own (its lane's process and the processes it waited for)."""
    produced = {row["key"] for row in rows if row["value"] is not None}
    data: dict[str, Any] = {
        "meta": {"quick": quick, "scale": scale(), "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                 "elapsed_s": round(elapsed, 2), "machine": machine(),
                 "layout": "lanes" if lanes else "sequential", "lanes": lanes,
                 "duration_s": {outcome.name: round(outcome.elapsed_s, 2) for outcome in outcomes},
                 "cpu_s": {outcome.name: round(outcome.cpu_s, 2) for outcome in outcomes},
                 "load_average": {outcome.name: outcome.load for outcome in outcomes},
                 "missing_required_keys": [key for key in REQUIRED_KEYS
                                           if key not in produced
                                           and lookup({o.name: o.result for o in outcomes}, key) is None]},
    }
    for outcome in outcomes:
        data[outcome.name] = outcome.result
    data["goals"] = [row for row in rows if row["goal"]]
    data["figures"] = rows  # the whole table: the goals' rows and the figures reported beside them
    return data


def main(argv: list[str] | None = None) -> int:
    """Exit status 1 when a benchmark failed to run; a missed goal is a figure, not a failure."""
    arguments = parse_arguments(argv)
    if arguments.scale is not None:
        os.environ[SCALE_VARIABLE] = repr(arguments.scale)
    started = time.perf_counter()
    paths = selected_modules(arguments.only, in_given_order=arguments.outcomes is not None)
    in_lanes = arguments.quick and not arguments.sequential and arguments.outcomes is None
    if in_lanes and len(planned_lanes(QUICK_LANES, [path.rsplit(".", 1)[1] for path in paths])) > 1:
        outcomes, lanes = run_in_lanes(paths)
    else:
        outcomes, lanes = run_sequentially(paths, arguments.quick, arguments.outcomes), []
    rows = goal_rows(outcomes)
    data = document(outcomes, rows, arguments.quick, time.perf_counter() - started, lanes)
    print(render_table(rows))
    notes = render_notes(outcomes)
    if notes:
        print("\n" + notes)
    missing = data["meta"]["missing_required_keys"]
    if missing:
        print(f"\nnot produced by this run: {', '.join(missing)}")
    if arguments.json:
        arguments.json.parent.mkdir(parents=True, exist_ok=True)
        arguments.json.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
        print(f"figures written to {arguments.json}")
    print("\n" + render_durations(outcomes, lanes))
    layout = f"{len(lanes)} lanes" if lanes else "sequential"
    print(f"total {data['meta']['elapsed_s']:.1f} s ({'quick' if arguments.quick else 'full'}, {layout}, "
          f"scale {scale():g})")
    return 1 if any(outcome.error for outcome in outcomes) else 0
