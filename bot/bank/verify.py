"""Proof by running code: each question's `verify` snippet runs in its own process.

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


async def verify_question(question: Question, attempts: int = 2, zygote: Zygote | None = None) -> VerifyResult:
    """Run one snippet (in a child of the zygote, else in a fresh interpreter) and judge its `answer`;
    a time-out is tried once more, in a fresh interpreter, since a multi-process snippet (a gloo DDP
    step) can stall on a loaded machine."""
    assert question.verify is not None
    missing = missing_requirements(question)
    if missing:
        return VerifyResult(question.id, "skip", f"needs {', '.join(missing)} (not installed)")
    result = await _run_snippet(question, zygote)
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


SNIPPET_ENVIRONMENT = {"PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1"}


async def _run_snippet(question: Question, zygote: Zygote | None = None) -> VerifyResult:
    """The snippet's output goes to files, not pipes: a child it forked and left behind would keep
    pipes open (and asyncio waiting for their end) for as long as it lives. With a zygote the snippet
    runs in a child forked from it; without one, in a fresh interpreter."""
    assert question.verify is not None
    script = _PRELUDE + "\n" + question.verify.code + _EPILOGUE
    loop = asyncio.get_running_loop()
    started = loop.time()
    with tempfile.TemporaryDirectory(prefix="verify-") as workdir:
        path = os.path.join(workdir, "snippet.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(script)
        out_path, err_path = os.path.join(workdir, "out.txt"), os.path.join(workdir, "err.txt")
        args = [json.dumps(_options_for(question))]
        if zygote is not None and zygote.alive:
            returncode = await zygote.run(path, args, workdir, out_path, err_path, question.verify.timeout)
        else:
            returncode = await _run_fresh(path, args, workdir, out_path, err_path, question.verify.timeout)
        if returncode is None:
            return VerifyResult(question.id, "error", f"timed out after {question.verify.timeout:g} s",
                                loop.time() - started)
        with open(out_path, "rb") as out, open(err_path, "rb") as err:
            stdout, stderr = out.read(), err.read()
    return _judge(question, returncode, stdout, stderr, loop.time() - started)


async def _run_fresh(path: str, args: list[str], workdir: str, out_path: str, err_path: str,
                     timeout: float) -> int | None:
    """The snippet in a new interpreter; its exit code, or None when it timed out (and was killed)."""
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        process = await asyncio.create_subprocess_exec(
            sys.executable, path, *args, cwd=workdir, stdout=out, stderr=err,
            env={**os.environ, **SNIPPET_ENVIRONMENT},
            start_new_session=True,  # its own process group, so that _kill_group reaches its children
        )
        try:
            await asyncio.wait_for(process.wait(), timeout)
        except TimeoutError:
            return None
        finally:
            _kill_group(process.pid)
            if process.returncode is None:
                await process.wait()
    return process.returncode


class Zygote:
    """The runner's side of bot/bank/zygote.py: one warm interpreter forking a child per snippet."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self._started: dict[int, asyncio.Future[int]] = {}
        self._ended: dict[int, asyncio.Future[int]] = {}
        self._next = 0
        self._reader = asyncio.create_task(self._read(), name="verify-zygote")

    @classmethod
    async def start(cls) -> Zygote | None:
        """A zygote with torch and numpy imported, or None (the snippets then start fresh interpreters)."""
        try:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.bank.zygote", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                env={**os.environ, **SNIPPET_ENVIRONMENT, "PYTHONPATH": _package_root()})
            assert process.stdout is not None
            line = await asyncio.wait_for(process.stdout.readline(), 120)
        except (OSError, TimeoutError):
            return None
        if line.strip() != b"ready":
            process.kill()
            await process.wait()
            return None
        return cls(process)

    @property
    def alive(self) -> bool:
        return self.process.returncode is None and not self._reader.done()

    async def _read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            message = json.loads(line)
            if "id" in message:
                self._started.pop(message["id"]).set_result(message["pid"])
            else:
                self._ended.setdefault(message["pid"], asyncio.get_running_loop().create_future()).set_result(
                    message["returncode"])
        for future in [*self._started.values(), *self._ended.values()]:
            if not future.done():
                future.set_exception(RuntimeError("the verify zygote ended"))

    async def run(self, path: str, args: list[str], workdir: str, out_path: str, err_path: str,
                  timeout: float) -> int | None:
        """Like _run_fresh, in a child forked from the zygote."""
        assert self.process.stdin is not None
        loop = asyncio.get_running_loop()
        self._next += 1
        started = self._started[self._next] = loop.create_future()
        request = {"id": self._next, "script": path, "args": args, "cwd": workdir, "out": out_path, "err": err_path}
        self.process.stdin.write((json.dumps(request) + "\n").encode())
        await self.process.stdin.drain()
        pid = await started
        ended = self._ended.setdefault(pid, loop.create_future())
        try:
            return await asyncio.wait_for(asyncio.shield(ended), timeout)
        except TimeoutError:
            return None
        finally:
            _kill_group(pid)
            if not ended.done():
                await ended
            self._ended.pop(pid, None)

    async def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 10)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
        self._reader.cancel()


def _package_root() -> str:
    """The folder holding the `bot` package, first on the zygote's path (a checkout or site-packages)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))


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


async def verify_all(questions: Sequence[Question], jobs: int | None = None, warm: bool = True) -> list[VerifyResult]:
    """Run every snippet, a few at a time, results in bank order; with `warm`, each in a child of one
    zygote that imported torch and numpy once."""
    limit = asyncio.Semaphore(jobs or max(1, os.cpu_count() or 1))
    zygote = await Zygote.start() if warm and any(q.verify is not None for q in questions) else None

    async def run(question: Question) -> VerifyResult:
        async with limit:
            return await verify_question(question, zygote=zygote)

    try:
        return list(await asyncio.gather(*(run(q) for q in questions if q.verify is not None)))
    finally:
        if zygote is not None:
            await zygote.close()


def summary(results: Sequence[VerifyResult]) -> str:
    counts = {outcome: sum(1 for r in results if r.outcome == outcome) for outcome in ("pass", "fail", "error", "skip")}
    line = (f"verify: {counts['pass']} passed, {counts['fail']} failed, {counts['error']} errors, "
            f"{counts['skip']} skipped")
    if counts["skip"]:
        needs = sorted({r.detail for r in results if r.outcome == "skip"})
        line += f" ({'; '.join(needs)}; install the `verify` extra to run them)"
    return line
