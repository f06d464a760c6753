"""Proof by running code: each question's `verify` snippet runs in its own subprocess.

The snippet sees the options (not the key) and must derive `answer`; the runner compares it with the
keyed letter. A snippet whose requirements (torch, numpy) are missing is skipped and counted.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import signal
import sys
import tempfile
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bot.domain import LETTERS, Question

Outcome = Literal["pass", "fail", "error", "skip"]

_PRELUDE = textwrap.dedent(
    r'''
    import json as _json, re as _re, sys as _sys
    options = _json.loads(_sys.argv[1])
    _NUMBER = _re.compile(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")

    def _first_number(text):
        match = _NUMBER.search(_re.sub(r"(?<=\d)[,_](?=\d{3}\b)", "", text))
        return float(match.group()) if match else None

    def _only(letters, what):
        if len(letters) != 1:
            raise AssertionError(f"{what} matches {len(letters)} options ({', '.join(letters) or 'none'}): {options}")
        return letters[0]

    def pick_number(x, rel=1e-6):
        """The letter of the one option whose first number equals x within rel."""
        x = float(x)
        hits = [k for k, v in options.items()
                if (n := _first_number(v)) is not None and abs(n - x) <= rel * max(abs(x), 1e-12)]
        return _only(hits, f"number {x!r}")

    def pick_text(s):
        """The letter of the one option containing s (case-insensitive)."""
        hits = [k for k, v in options.items() if str(s).lower() in v.lower()]
        return _only(hits, f"text {s!r}")
    '''
)

_EPILOGUE = "\nprint('\\n__VERIFY_ANSWER__=' + _json.dumps(answer))\n"


@dataclass(frozen=True)
class VerifyResult:
    question_id: str
    outcome: Outcome
    detail: str = ""
    seconds: float = 0.0

    def line(self) -> str:
        tail = f": {self.detail}" if self.detail else ""
        return f"{self.outcome.upper():5} {self.question_id} ({self.seconds:.1f} s){tail}"


def missing_requirements(question: Question) -> list[str]:
    assert question.verify is not None
    return [name for name in question.verify.requires if importlib.util.find_spec(name) is None]


def _options_for(question: Question) -> dict[str, str]:
    return {LETTERS[i]: option.texts.get("en") or option.text("tr") for i, option in enumerate(question.options)}


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


async def verify_question(question: Question, attempts: int = 2) -> VerifyResult:
    """Run one snippet in a fresh interpreter and judge its `answer`; a time-out is tried once more,
    since a multi-process snippet (a gloo DDP step) can stall on a loaded machine."""
    assert question.verify is not None
    missing = missing_requirements(question)
    if missing:
        return VerifyResult(question.id, "skip", f"needs {', '.join(missing)} (not installed)")
    result = await _run_snippet(question)
    for _ in range(attempts - 1):
        if not (result.outcome == "error" and result.detail.startswith("timed out")):
            break
        result = await _run_snippet(question)
    return result


def _kill_group(pid: int) -> None:
    """Kill the snippet and every process it forked (ranks of a DDP step would otherwise be orphaned,
    holding the output pipes open and the CPU busy)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


async def _run_snippet(question: Question) -> VerifyResult:
    """The snippet's output goes to files, not pipes: a child it forked and left behind would keep
    pipes open (and asyncio waiting for their end) for as long as it lives."""
    assert question.verify is not None
    script = _PRELUDE + "\n" + question.verify.code + _EPILOGUE
    loop = asyncio.get_running_loop()
    started = loop.time()
    with tempfile.TemporaryDirectory(prefix="verify-") as workdir:
        path = os.path.join(workdir, "snippet.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(script)
        out_path, err_path = os.path.join(workdir, "out.txt"), os.path.join(workdir, "err.txt")
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            process = await asyncio.create_subprocess_exec(
                sys.executable, path, json.dumps(_options_for(question)), cwd=workdir, stdout=out, stderr=err,
                env={**os.environ, "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1"},
                start_new_session=True,  # its own process group, so that _kill_group reaches its children
            )
            try:
                await asyncio.wait_for(process.wait(), question.verify.timeout)
            except TimeoutError:
                return VerifyResult(question.id, "error", f"timed out after {question.verify.timeout:g} s",
                                    loop.time() - started)
            finally:
                _kill_group(process.pid)
                if process.returncode is None:
                    await process.wait()
        with open(out_path, "rb") as out, open(err_path, "rb") as err:
            stdout, stderr = out.read(), err.read()
    return _judge(question, process.returncode, stdout, stderr, loop.time() - started)


def _judge(question: Question, returncode: int | None, stdout: bytes, stderr: bytes, seconds: float) -> VerifyResult:
    out, err = stdout.decode(errors="replace"), stderr.decode(errors="replace")
    if returncode != 0:
        last = _last_line(err) or f"exit code {returncode}"
        outcome: Outcome = "fail" if last.startswith("AssertionError") else "error"
        return VerifyResult(question.id, outcome, last, seconds)
    marker = next((line for line in out.splitlines() if line.startswith("__VERIFY_ANSWER__=")), None)
    if marker is None:
        return VerifyResult(question.id, "error", "the snippet printed no answer", seconds)
    answer = json.loads(marker.split("=", 1)[1])
    if answer != question.correct_letter:
        return VerifyResult(question.id, "fail", f"derived {answer!r}, the key is {question.correct_letter!r}", seconds)
    return VerifyResult(question.id, "pass", "", seconds)


async def verify_all(questions: Sequence[Question], jobs: int | None = None) -> list[VerifyResult]:
    """Run every snippet, a few at a time (each may start torch), results in bank order."""
    limit = asyncio.Semaphore(jobs or max(1, os.cpu_count() or 1))

    async def run(question: Question) -> VerifyResult:
        async with limit:
            return await verify_question(question)

    return list(await asyncio.gather(*(run(q) for q in questions if q.verify is not None)))


def summary(results: Sequence[VerifyResult]) -> str:
    counts = {outcome: sum(1 for r in results if r.outcome == outcome) for outcome in ("pass", "fail", "error", "skip")}
    line = (f"verify: {counts['pass']} passed, {counts['fail']} failed, {counts['error']} errors, "
            f"{counts['skip']} skipped")
    if counts["skip"]:
        needs = sorted({r.detail for r in results if r.outcome == "skip"})
        line += f" ({'; '.join(needs)}; install the `verify` extra to run them)"
    return line
