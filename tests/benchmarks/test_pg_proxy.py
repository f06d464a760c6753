"""The latency proxy of the webhook-workers benchmark really puts its delay on the wire, both ways, and
passes every byte on in order: the benchmark's 1 ms figures mean what they say only if it does."""

from __future__ import annotations

import asyncio
import statistics
import time

from benchmarks.pg_proxy import LatencyProxy, ProxyProcess


async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while data := await reader.read(65_536):
        writer.write(data)
        await writer.drain()
    writer.close()


async def round_trips(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, count: int) -> list[float]:
    """Seconds for each of `count` one-byte pings to come back through the proxy, one after another."""
    times = []
    for number in range(count):
        started = time.perf_counter()
        writer.write(bytes([number]))
        assert await reader.readexactly(1) == bytes([number])
        times.append(time.perf_counter() - started)
    return times


async def test_a_round_trip_takes_the_delay_each_way_and_no_more_than_a_little() -> None:
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    try:
        async with LatencyProxy("127.0.0.1", server.sockets[0].getsockname()[1], 0.001) as proxy:
            reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
            times = await round_trips(reader, writer, 30)
            proxy.delay_s = 0.0
            undelayed = await round_trips(reader, writer, 30)
            writer.close()
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


async def test_the_proxy_process_takes_a_new_delay_on_open_connections_and_counts_reads() -> None:
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    try:
        async with ProxyProcess(server.sockets[0].getsockname()[1]) as proxy:  # starts at 0 ms
            reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
            undelayed = await round_trips(reader, writer, 5)
            await proxy.delay(5)
            delayed = await round_trips(reader, writer, 5)
            chunks = await proxy.chunks()
            writer.close()
            process = proxy.process
    finally:
        server.close()
    assert min(delayed) >= 0.010 and min(undelayed) < 0.010
    assert chunks == {"to_server": 10, "to_client": 10}, "one read each way per ping"
    assert process is not None and process.returncode == 0, "it stops when its input ends"
