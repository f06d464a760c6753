"""A warm interpreter for the bank's proofs: torch and numpy are imported once, then each snippet runs in
a child forked from here, so that it starts in milliseconds instead of importing torch again (1-2 s of
CPU each, most of a proof run's time).

Run as `python -m bot.bank.zygote`; it speaks JSON lines. On stdin, one request per snippet:
`{"id": N, "script": PATH, "args": [...], "cwd": DIR, "out": FILE, "err": FILE}`. On stdout: `ready`
once the imports are done, then `{"id": N, "pid": PID}` when a snippet's child starts and
`{"pid": PID, "returncode": RC}` when it ends. Each child is the leader of its own process group (as a
fresh interpreter started with start_new_session was), so a time-out can kill it with what it forked.
Nothing here runs a thread: forking a process that has threads is what would be unsafe.
"""

from __future__ import annotations

import importlib
import json
import os
import runpy
import selectors
import signal
import sys
import traceback

PRELOADED = ("numpy", "torch")


def _preload() -> list[str]:
    loaded = []
    for name in PRELOADED:
        try:
            importlib.import_module(name)
            loaded.append(name)
        except Exception:  # noqa: BLE001 - a missing or broken module is the snippet's business
            pass
    return loaded


def _child(request: dict, keep: tuple[int, ...]) -> None:
    """In the forked child: become a fresh-looking interpreter running the snippet, then exit."""
    code = 1
    try:
        os.setsid()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in keep:
            os.close(fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd, path in ((1, request["out"]), (2, request["err"])):
            target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(target, fd)
            os.close(target)
        os.chdir(request["cwd"])
        sys.argv = [request["script"], *request["args"]]
        sys.path[0] = os.path.dirname(request["script"])
        try:
            runpy.run_path(request["script"], run_name="__main__")
            code = 0
        except SystemExit as exit_:
            if exit_.code is None or isinstance(exit_.code, int):
                code = exit_.code or 0
            else:
                print(exit_.code, file=sys.stderr)
                code = 1
        except BaseException:  # noqa: BLE001 - reported as the interpreter would, on stderr
            traceback.print_exc()
            code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _say(message: object) -> None:
    sys.stdout.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
    sys.stdout.flush()


def _reap() -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _say({"pid": pid, "returncode": os.waitstatus_to_exitcode(status)})


def serve() -> None:
    _preload()
    sys.stdout.flush()
    sys.stderr.flush()
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    selector = selectors.DefaultSelector()
    selector.register(sys.stdin, selectors.EVENT_READ)
    selector.register(wake_read, selectors.EVENT_READ)
    _say("ready")
    pending = ""
    while True:
        for key, _ in selector.select():
            if key.fileobj == wake_read:
                os.read(wake_read, 512)
                _reap()
                continue
            chunk = os.read(sys.stdin.fileno(), 65536).decode()
            if not chunk:
                return  # the runner went away: so do we (children already started finish on their own)
            pending += chunk
            while "\n" in pending:
                line, pending = pending.split("\n", 1)
                if line.strip():
                    request = json.loads(line)
                    sys.stdout.flush()
                    pid = os.fork()
                    if pid == 0:
                        _child(request, (wake_read, wake_write))
                    _say({"id": request["id"], "pid": pid})
        _reap()


if __name__ == "__main__":
    serve()
