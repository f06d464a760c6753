"""The progress chart drawn in a short-lived child process.

matplotlib costs a running bot about 37 MB once loaded, for a chart asked for now and then; a child
process started for each chart takes that memory away with it when it exits. If a child cannot be
started, the chart is drawn in a thread instead: slower to free, never missing.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor

from bot.progress.stats import Progress, progress_chart_png

log = logging.getLogger(__name__)


async def draw_progress_chart(progress: Progress, language: str, labels: Mapping[str, str]) -> bytes:
    loop = asyncio.get_running_loop()
    try:
        pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    except (OSError, ValueError) as error:
        log.warning("no child process for the chart (%s): drawing it here", error)
        return await asyncio.to_thread(progress_chart_png, progress, language, dict(labels))
    try:
        return await loop.run_in_executor(pool, progress_chart_png, progress, language, dict(labels))
    except Exception as error:  # a broken child (killed, out of memory): the chart still comes
        log.warning("chart child process failed (%s): drawing it here", error)
        return await asyncio.to_thread(progress_chart_png, progress, language, dict(labels))
    finally:
        pool.shutdown(wait=False)
