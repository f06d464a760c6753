"""A TCP proxy that adds a fixed delay each way, to put a network between the workers and PostgreSQL.

On one machine the database answers in tens of microseconds, which hides how many round trips a
transaction takes while it holds a lock. A database in another rack or zone is a millisecond or two
away; this proxy plays that distance. Every chunk read from one side is written to the other `delay_s`
after it arrived: each chunk is stamped with its own deadline (the monotonic clock at arrival plus the
delay) and one writer per direction waits for each deadline in turn, so order is kept per direction and
a burst of chunks is delayed once, not once per chunk (no sleep drift adds up). The delay can be
changed while connections are open: it applies to chunks that arrive afterwards.

`python -m benchmarks.pg_proxy --upstream HOST:PORT --delay-ms 1` runs one in its own process (so the
harness's own work does not slow the forwarding down): it prints `{"port": N}` once listening, then
reads commands on stdin, one a line: `delay MS` answers `ok`, `chunks` the number of reads passed on
each way so far (as JSON: a flight of messages to the server is about one read); end of input stops
it. `ProxyProcess` starts and steers one from a benchmark.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from contextlib import suppress
from pathlib import Path

from benchmarks.sizes import close_server_process

CHUNK = 65_536
ROOT = Path(__file__).resolve().parents[1]


class LatencyProxy:
    """Listens on the loopback; each connection is piped to the upstream with `delay_s` each way."""

    def __init__(self, upstream_host: str, upstream_port: int, delay_s: float) -> None:
        self.upstream = (upstream_host, upstream_port)
        self.delay_s = delay_s
        self.server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self.chunks = {"to_server": 0, "to_client": 0}  # reads passed on: about one per message flight

    @property
    def port(self) -> int:
        assert self.server is not None, "start() first"
        return int(self.server.sockets[0].getsockname()[1])

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> LatencyProxy:
        self.server = await asyncio.start_server(self._accepted, host, port)
        return self

    async def close(self) -> None:
        """Stop listening and cut every open connection (both sides see the close)."""
        if self.server is not None:
            self.server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        if self.server is not None:
            await self.server.wait_closed()

    async def __aenter__(self) -> LatencyProxy:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _accepted(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        writers = [client_writer]
        pipes: list[asyncio.Task[None]] = []
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.upstream)
            writers.append(upstream_writer)
            pipes = [asyncio.ensure_future(self._pipe(client_reader, upstream_writer, "to_server")),
                     asyncio.ensure_future(self._pipe(upstream_reader, client_writer, "to_client"))]
            await asyncio.gather(*pipes)
        except (OSError, asyncio.CancelledError):
            pass  # a side went away (or the proxy closes): both sides are closed below
        finally:
            self._connections.discard(task)
            for pipe in pipes:
                pipe.cancel()
            await asyncio.gather(*pipes, return_exceptions=True)
            for writer in writers:
                writer.close()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, direction: str) -> None:
        """One direction: a reader stamping chunks with deadlines, a writer keeping each deadline in turn."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def read() -> None:
            try:
                while chunk := await reader.read(CHUNK):
                    queue.put_nowait((loop.time() + self.delay_s, chunk))
                    self.chunks[direction] += 1
            finally:  # end of stream (or a reset), passed on after the data that came before it
                queue.put_nowait((loop.time() + self.delay_s, b""))

        reading = asyncio.ensure_future(read())
        try:
            while True:
                deadline, chunk = await queue.get()
                wait = deadline - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not chunk:
                    if writer.can_write_eof() and not writer.is_closing():
                        writer.write_eof()
                    break
                writer.write(chunk)
                await writer.drain()
            await reading
        finally:
            reading.cancel()
            with suppress(asyncio.CancelledError, OSError):
                await reading


class ProxyProcess:
    """benchmarks/pg_proxy.py in its own process, so forwarding does not wait on the harness's own work."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.process: asyncio.subprocess.Process | None = None
        self.port = 0

    async def __aenter__(self) -> ProxyProcess:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "benchmarks.pg_proxy", "--upstream", f"127.0.0.1:{self.upstream_port}",
            "--delay-ms", "0", cwd=ROOT, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        assert self.process.stdout is not None
        self.port = int(json.loads(await asyncio.wait_for(self.process.stdout.readline(), 60))["port"])
        return self

    async def delay(self, milliseconds: float) -> None:
        """Each way, for every chunk from now on (open connections included)."""
        assert self.process is not None and self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"delay {milliseconds}\n".encode())
        await self.process.stdin.drain()
        if (await self.process.stdout.readline()).strip() != b"ok":
            raise RuntimeError("the latency proxy did not take the delay")

    async def chunks(self) -> dict[str, int]:
        """Reads passed on each way since the start (`to_server`, `to_client`)."""
        assert self.process is not None and self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(b"chunks\n")
        await self.process.stdin.drain()
        return dict(json.loads(await self.process.stdout.readline()))

    async def __aexit__(self, *exc: object) -> None:
        await close_server_process(self.process)


def parse_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host or "127.0.0.1", int(port)


async def serve(upstream: str, delay_ms: float) -> None:
    """The proxy in this process, controlled over stdin until it closes."""
    async with LatencyProxy(*parse_address(upstream), delay_ms / 1000) as proxy:
        print(json.dumps({"port": proxy.port}), flush=True)
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            command = line.split()
            if len(command) == 2 and command[0] == "delay":
                proxy.delay_s = float(command[1]) / 1000
                print("ok", flush=True)
            elif command == ["chunks"]:
                print(json.dumps(proxy.chunks), flush=True)
            else:
                print(f"unknown command: {line.strip()}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.pg_proxy", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--upstream", required=True, metavar="HOST:PORT")
    parser.add_argument("--delay-ms", type=float, default=1.0, help="added each way (default 1)")
    arguments = parser.parse_args(argv)
    asyncio.run(serve(arguments.upstream, arguments.delay_ms))


if __name__ == "__main__":
    main()
