"""The latency proxy of the webhook-workers benchmark really puts its delay on the wire, both ways, and
passes every byte on in order: the benchmark's 1 ms figures mean what they say only if it does."""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

from benchmarks.pg_proxy import LatencyProxy

ROOT = Path(__file__).resolve().parents[2]


async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while data := await reader.read(65_536):
        writer.write(data)
        await writer.drain()
    writer.close()


async def round_trips(port: int, count: int) -> list[float]:
    """Seconds for each of `count` one-byte pings to come back through the proxy, one after another."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    times = []
    for number in range(count):
        started = time.perf_counter()
        writer.write(bytes([number]))
        assert await reader.readexactly(1) == bytes([number])
        times.append(time.perf_counter() - started)
    writer.close()
    return times


async def test_a_round_trip_takes_the_delay_each_way_and_no_more_than_a_little() -> None:
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    try:
        async with LatencyProxy("127.0.0.1", server.sockets[0].getsockname()[1], 0.001) as proxy:
            times = await round_trips(proxy.port, 30)
            proxy.delay_s = 0.0
            undelayed = await round_trips(proxy.port, 30)
    finally:
        server.close()
    assert min(times) >= 0.002, "1 ms out and 1 ms back, on every round trip"
    assert statistics.median(times) < 0.05
    assert statistics.median(undelayed) < statistics.median(times) - 0.001, "a changed delay applies at once"


async def test_every_byte_arrives_in_order_both_ways() -> None:
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    sent = bytes(range(256)) * 4096  # 1 MiB, so any reordering or loss of a chunk shows
    try:
        async with LatencyProxy("127.0.0.1", server.sockets[0].getsockname()[1], 0.001) as proxy:
            reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)

            async def send() -> None:
                for at in range(0, len(sent), 3000):  # many writes of an odd size, no waiting between them
                    writer.write(sent[at:at + 3000])
                    await writer.drain()
                writer.write_eof()

            sending = asyncio.ensure_future(send())
            received = await asyncio.wait_for(reader.read(-1), 30)  # to the end: the close came through
            await sending
            writer.close()
    finally:
        server.close()
    assert received == sent


async def test_the_proxy_process_reports_its_port_and_takes_a_new_delay() -> None:
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    upstream = f"127.0.0.1:{server.sockets[0].getsockname()[1]}"
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "benchmarks.pg_proxy", "--upstream", upstream, "--delay-ms", "5", cwd=ROOT,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    try:
        port = json.loads(await asyncio.wait_for(process.stdout.readline(), 30))["port"]
        assert min(await round_trips(port, 5)) >= 0.010
        process.stdin.write(b"delay 0\n")
        assert (await process.stdout.readline()).strip() == b"ok"
        assert min(await round_trips(port, 5)) < 0.010
    finally:
        process.stdin.close()
        await asyncio.wait_for(process.wait(), 30)
        server.close()
    assert process.returncode == 0
