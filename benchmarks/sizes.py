"""Shared measuring helpers: the size knob, percentiles, temporary folders, machine facts.

BENCHMARKS_SCALE (default 1) multiplies every benchmark's workload, so the harness test can run
the real code paths at a tiny size in seconds; figures at a scale other than 1 are not comparable.
"""

from __future__ import annotations

import asyncio
import math
import os
import platform
import shutil
import signal
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

SCALE_VARIABLE = "BENCHMARKS_SCALE"


def scale() -> float:
    """The workload multiplier from the environment (the CLI's --scale sets it)."""
    try:
        value = float(os.environ.get(SCALE_VARIABLE, "1"))
    except ValueError:
        return 1.0
    return value if value > 0 else 1.0


def scaled(count: int, minimum: int = 1) -> int:
    """`count` times the scale, never below `minimum` (so tiny runs still exercise every path)."""
    return max(minimum, int(round(count * scale())))


def percentile(samples: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (p95 of 200 samples is the 190th smallest): no interpolation."""
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


@contextmanager
def temporary_folder(prefix: str) -> Iterator[Path]:
    """A folder removed afterwards; SQLite files and generated banks live only for one benchmark."""
    folder = Path(tempfile.mkdtemp(prefix=f"bench-{prefix}-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def cpu_model() -> str:
    """The CPU as /proc/cpuinfo names it (Linux), else what platform knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> dict[str, object]:
    """What the figures were measured on: they only mean something next to this."""
    import sqlite3

    import yaml

    return {
        "nproc": os.cpu_count(),
        "cpu_model": cpu_model(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "sqlite": sqlite3.sqlite_version,
        "pyyaml": yaml.__version__,
        "libyaml": bool(getattr(yaml, "__with_libyaml__", False)),
    }


async def stop_process(process: asyncio.subprocess.Process, grace: float) -> None:
    """SIGTERM, as a supervisor stops the bot; SIGKILL if it has not exited after `grace` seconds."""
    if process.returncode is not None:
        return
    process.send_signal(signal.SIGTERM)
    await _exited_or_killed(process, grace)


async def close_server_process(process: asyncio.subprocess.Process | None, grace: float = 10) -> None:
    """A helper server of the benchmarks (the fake Bot API, the latency proxy) serves until its stdin
    closes: close it, and SIGKILL it if it has not exited after `grace` seconds."""
    if process is None or process.returncode is not None:
        return
    assert process.stdin is not None
    process.stdin.close()
    await _exited_or_killed(process, grace)


async def _exited_or_killed(process: asyncio.subprocess.Process, grace: float) -> None:
    try:
        await asyncio.wait_for(process.wait(), grace)
    except TimeoutError:
        process.kill()
        await process.wait()
