"""The quick run's lanes: groups of benchmarks run side by side, each lane one benchmark after another.

Why: four benchmarks are paced by real time (the fake Bot API's rate limits, the quiz's question
timer, the flood guard's fixed waits) and use a fifth of a core each, so running everything one after
another left the machine mostly idle for half of the quick run. Each lane is a child process running
`python -m benchmarks --quick --only <its benchmarks> --sequential --outcomes FILE`, so a benchmark's
CPU time (its lane process and the processes it waits for) stays its own, and one lane crashing
reports its missing benchmarks as failed while the other lanes' figures stand. The full run stays
sequential; docs/benchmarks.md compares the lanes' verdicts with one-after-another runs.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.figures import Figure

Outcomes = list[dict[str, Any]]


def planned_lanes(lanes: tuple[tuple[str, ...], ...], names: list[str]) -> list[tuple[str, ...]]:
    """The lanes restricted to the selected benchmark names, empty lanes dropped; a selected name that
    no lane lists gets a lane of its own (so a new benchmark is never skipped)."""
    planned = [tuple(name for name in lane if name in names) for lane in lanes]
    listed = {name for lane in lanes for name in lane}
    planned += [(name,) for name in names if name not in listed]
    return [lane for lane in planned if lane]


def outcome_record(name: str, figures: tuple[Figure, ...], result: dict[str, Any], error: str | None,
                   elapsed_s: float, cpu_s: float, load: float | None) -> dict[str, Any]:
    """One finished benchmark as JSON, for the parent run to rebuild its outcome."""
    return {"name": name, "figures": [dataclasses.asdict(figure) for figure in figures], "result": result,
            "error": error, "elapsed_s": elapsed_s, "cpu_s": cpu_s, "load": load}


def write_records(path: Path, records: Outcomes) -> None:
    """Rewritten after every benchmark, so a lane that dies later still hands over what it finished."""
    temporary = path.with_suffix(".partial")
    temporary.write_text(json.dumps(records, default=str), encoding="utf-8")
    temporary.replace(path)


def figures_of(record: dict[str, Any]) -> tuple[Figure, ...]:
    """The figures (with their goals) a lane reported, as the table needs them."""
    return tuple(Figure(**fields) for fields in record["figures"])


def run_lanes(lanes: list[tuple[str, ...]]) -> tuple[Outcomes, list[dict[str, Any]]]:
    """Start every lane at once, wait for all, and return their benchmarks' records (a benchmark a lane
    did not report is a failed record) with each lane's names, wall time, CPU time and exit code. The
    environment (BENCHMARKS_SCALE among it) passes to the lanes as it is."""
    with tempfile.TemporaryDirectory(prefix="bench-lanes-") as folder:
        started = time.perf_counter()
        running = []
        for index, lane in enumerate(lanes):
            output = Path(folder) / f"lane-{index}.json"
            command = [sys.executable, "-m", "benchmarks", "--quick", "--sequential", "--outcomes", str(output),
                       "--only", *lane]
            print(f"lane {index + 1}: {' '.join(lane)}", file=sys.stderr, flush=True)
            # the lane's table goes nowhere (the parent prints one table); its progress lines go to stderr
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=dict(os.environ))
            running.append((lane, output, process))
        ended: dict[int, float] = {}
        try:
            while len(ended) < len(running):  # poll, so each lane's own wall time is known
                for index, (_, _, process) in enumerate(running):
                    if index not in ended and process.poll() is not None:
                        ended[index] = time.perf_counter() - started
                time.sleep(0.2)
        finally:  # interrupted: no lane goes on measuring on its own
            for _, _, process in running:
                if process.poll() is None:
                    process.terminate()
                    process.wait()
        records: Outcomes = []
        summary = []
        for index, (lane, output, process) in enumerate(running):
            lane_records = json.loads(output.read_text(encoding="utf-8")) if output.exists() else []
            finished = {record["name"] for record in lane_records}
            lane_records += [outcome_record(name, (), {}, f"the lane process exited with code {process.returncode} "
                                            f"before it reported {name}", 0.0, 0.0, None)
                             for name in lane if name not in finished]
            records += lane_records
            summary.append({"benchmarks": list(lane), "exit_code": process.returncode,
                            "elapsed_s": round(ended[index], 2),
                            "cpu_s": round(sum(record["cpu_s"] for record in lane_records), 2)})
    return records, summary
