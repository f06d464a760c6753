"""Clicks per second through N real webhook workers (`interview-bot telegram --webhook ... --workers N`)
sharing one PostgreSQL database, with a network between the workers and the database, in one run.

Why: on one machine PostgreSQL answers in tens of microseconds, which hides how many round trips a
write holds its locks for. A database a network away is 1 ms or more each way; workers help there only
if their transactions overlap. For each worker count, on one fresh database, with the same kind of
clicks over the same HTTP transport, two sets of workers run side by side: one connected to PostgreSQL
directly (`no_latency`), one through a latency proxy (benchmarks/pg_proxy.py, in its own process)
adding nothing (`proxy_0ms`: what the proxy's own forwarding costs) or 1 ms each way (`latency_1ms`).
Each condition's clicks come in REPEATS rounds taken in turns, the order rotating, so a change in the
machine's load falls on every condition alike. `latency_1ms.ratio_to_no_latency` at 4 workers says
how much of the latency concurrency hides (goal >= 0.8). `select_1_ms` is the median `SELECT 1`
round trip each way, measured first, so the latency really added is on record, and
`flights_to_server_per_click` counts what the proxy passed on to PostgreSQL per click (about the
round trips a click costs).

A round: `clicks / REPEATS` new members click the condition's daily question (posted before, through
the core and the real adapter, into a group of its own), their updates posted to the workers in turn
(at most IN_FLIGHT at once, as a balancer would pass them on); the rate is clicks answered (pop-ups at
the fake Bot API, in its own process) per second, from the first update posted to the last pop-up.
Each set warms up (pool connections, first paths) on a few clicks of its own question first.

`WEBHOOK_BASELINE_TREE=<checkout>` runs the same rounds, interleaved with this tree's, on another tree
(its own database, its own code in the workers and for posting): `baseline.*` (docs/benchmarks.md).
benchmarks/scale.py uses `webhook_round` for its on-machine curve.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg

from adapters.telegram.app import build_application, webhook_secret_for
from adapters.telegram.delivery import Pacing
from adapters.telegram.services import SERVICES
from benchmarks.fake_telegram import ServerProcess
from benchmarks.pg_proxy import ProxyProcess
from benchmarks.figures import Figure
from benchmarks.sizes import percentile, scaled, stop_process, temporary_folder
from bot.bank import load_bank
from bot.core import Core
from bot.domain import ChatRef
from bot.schedule.clock import SystemClock
from bot.store import Database
from tests.postgres import PostgresServer, find_bin, free_port, listening

NAME = "webhook_workers"
ROOT = Path(__file__).resolve().parents[1]
PUBLIC_URL = "https://bot.example.org/telegram-hook"
IN_FLIGHT = 32
FAST = Pacing(overall=(1000, 1.0), group=(1000, 1.0), private=(1000, 1.0))
GOAL_RATIO = 0.8
DELAY_MS = 1.0
WORKER_COUNTS = (1, 2, 4)
CLICKS_FULL, CLICKS_QUICK = 1_500, 240
REPEATS = 3  # rounds per condition, taken in turns
WARM_UP = IN_FLIGHT
PINGS = 200
BASELINE_VARIABLE = "WEBHOOK_BASELINE_TREE"
CONDITIONS = ("no_latency", "proxy_0ms", "latency_1ms")
# How each set of workers reaches PostgreSQL, and its measured rounds with the proxy's delay each way (ms)
SETS = (("direct", (("no_latency", 0.0),)), ("proxied", (("proxy_0ms", 0.0), ("latency_1ms", DELAY_MS))))
FIGURES = (
    Figure("latency_1ms.ratio_to_no_latency", "", at_least=GOAL_RATIO),
    *(Figure(f"{condition}.clicks_per_s.workers_{count}", "/s")
      for count in WORKER_COUNTS for condition in ("no_latency", "latency_1ms")),
    Figure(f"proxy_0ms.clicks_per_s.workers_{WORKER_COUNTS[-1]}", "/s"),
    Figure("select_1_ms.direct", " ms"),
    Figure("select_1_ms.proxy_0ms", " ms"),
    Figure("select_1_ms.proxy_1ms", " ms"),
    Figure("baseline.latency_1ms.ratio_to_no_latency", ""),
    *(Figure(f"baseline.{condition}.clicks_per_s.workers_{count}", "/s")
      for count in WORKER_COUNTS for condition in ("no_latency", "latency_1ms")),
)
POST_IN_TREE = """
import asyncio, json, sys
import aiohttp
from benchmarks.fake_telegram import ServerProcess
from benchmarks.webhook_workers import post_question

async def main():
    server = ServerProcess()
    server.base_url, server.control = sys.argv[1], sys.argv[2]
    async with aiohttp.ClientSession() as server.session:
        print(json.dumps([await post_question(server, sys.argv[3], int(group)) for group in sys.argv[4:]]))

asyncio.run(main())
"""


async def post_question(server: ServerProcess, store: str, group_id: int) -> dict[str, Any]:
    """A daily question in the group through the core and the real adapter; the message as the server keeps it."""
    [message] = await post_questions(server, store, [group_id])
    return message


async def post_questions(server: ServerProcess, store: str, groups: list[int]) -> list[dict[str, Any]]:
    """A daily question in each group, posted by one core and adapter; the messages as the server keeps them."""
    core = Core(await Database.open(store), load_bank(None), SystemClock(), random.Random(groups[0]), scheduled=False)
    application = build_application(core, server.token, base_url=server.base_url, pacing=FAST, request_timeout=10)
    await application.initialize()
    try:
        for group_id in groups:
            assert await core.post_daily_now(ChatRef("telegram", str(group_id), "group", f"Group {group_id}"))
        await application.bot_data[SERVICES].queues.join()
    finally:
        await application.bot_data[SERVICES].counters.close()
        await application.shutdown()
        await core.close()
    messages = []
    for group_id in groups:
        [message] = await server.get("/messages", chat_id=group_id)
        messages.append(message)
    return messages


def tree_environment(tree: Path, extra: dict[str, str]) -> dict[str, str]:
    """This process's environment plus `extra`, with `tree` first on the import path when it is another tree."""
    return {**os.environ, **extra, **({"PYTHONPATH": str(tree)} if tree != ROOT else {})}


async def post_questions_in(tree: Path, server: ServerProcess, store: str, groups: list[int]) -> list[dict[str, Any]]:
    """post_question for each group by `tree`'s own code (its migrations write the database): in this
    process for this tree, in one process of its own for another."""
    if tree == ROOT:
        return await post_questions(server, store, groups)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", POST_IN_TREE, server.base_url, server.control, store, *map(str, groups), cwd=tree,
        env=tree_environment(tree, {}), stdout=asyncio.subprocess.PIPE)
    output, _ = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"posting the questions with {tree} failed ({process.returncode})")
    return list(json.loads(output.splitlines()[-1]))


def click_updates(message: dict[str, Any], group_id: int, first_user: int, count: int) -> list[dict[str, Any]]:
    chat = {"id": group_id, "type": "supergroup", "title": f"Group {group_id}"}
    posted = {"message_id": message["message_id"], "date": int(time.time()), "chat": chat, "text": "question",
              "from": {"id": 1, "is_bot": True, "first_name": "bot"}}
    return [{"update_id": number + 1,
             "callback_query": {"id": f"w{group_id}-{number}", "chat_instance": f"ci{group_id}",
                                "from": {"id": first_user + number, "is_bot": False, "first_name": f"M{number}"},
                                "data": message["data"][number % len(message["data"])], "message": posted}}
            for number in range(count)]


async def start_workers(server: ServerProcess, store: str, count: int, log: Path,
                        tree: Path = ROOT) -> list[tuple[asyncio.subprocess.Process, int]]:
    """`count` webhook workers of `tree` on `store`, each on a port of its own, once all of them listen."""
    environment = tree_environment(tree, {"TELEGRAM_BOT_TOKEN": server.token, "INTERVIEW_BOT_DB": store,
                                          "INTERVIEW_BOT_LOG_LEVEL": "WARNING"})
    environment.pop("INTERVIEW_BOT_CONFIG", None)
    workers = []
    with log.open("ab") as output:
        for _ in range(count):
            port = free_port()
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", "telegram", "--base-url", server.base_url, "--webhook", PUBLIC_URL,
                "--listen", f"127.0.0.1:{port}", "--workers", str(count), cwd=tree, env=environment,
                stdin=asyncio.subprocess.DEVNULL, stdout=output, stderr=output)
            workers.append((process, port))
    deadline = time.monotonic() + 120
    while not all(listening(port) for _, port in workers):
        if time.monotonic() > deadline or any(process.returncode is not None for process, _ in workers):
            for process, _ in workers:
                await stop_process(process, 5)
            raise RuntimeError(f"webhook workers did not start; see {log}")
        await asyncio.sleep(0.1)
    return workers


async def answered(server: ServerProcess) -> int:
    return int((await server.get("/calls", method="answerCallbackQuery"))["count"])


async def clicks_per_second(server: ServerProcess, running: list[tuple[asyncio.subprocess.Process, int]],
                            updates: list[dict[str, Any]]) -> float:
    """Post the updates round robin to the running workers; clicks answered per second."""
    headers = {"X-Telegram-Bot-Api-Secret-Token": webhook_secret_for(server.token)}
    limit = asyncio.Semaphore(IN_FLIGHT)
    before = await answered(server)
    async with aiohttp.ClientSession() as session:

        async def post(update: dict[str, Any]) -> None:
            _, port = running[update["update_id"] % len(running)]
            async with limit, session.post(f"http://127.0.0.1:{port}/telegram-hook", json=update,
                                           headers=headers) as response:
                response.raise_for_status()

        started = time.perf_counter()
        await asyncio.gather(*(post(update) for update in updates))
        deadline = time.monotonic() + 300
        while await answered(server) - before < len(updates):
            if time.monotonic() > deadline:
                raise RuntimeError(f"only {await answered(server) - before} of {len(updates)} clicks answered")
            await asyncio.sleep(0.02)
        return len(updates) / (time.perf_counter() - started)


async def webhook_round(server: ServerProcess, store: str, workers: int, clicks: int, group_id: int,
                        log: Path) -> float:
    """Clicks answered per second through `workers` webhook workers on `store` (workers started for it)."""
    message = await post_question(server, store, group_id)
    updates = click_updates(message, group_id, 5_000_000 + 10_000 * workers, clicks)
    running = await start_workers(server, store, workers, log)
    try:
        return await clicks_per_second(server, running, updates)
    finally:
        for process, _ in running:
            await stop_process(process, 15)


async def select_1_ms(url: str, count: int) -> dict[str, float]:
    """Median and p95 milliseconds of `SELECT 1` on one connection, one after another."""
    connection = await asyncpg.connect(url)
    try:
        for _ in range(10):  # the statement prepared, the connection warm
            await connection.fetchval("SELECT 1")
        times = []
        for _ in range(count):
            started = time.perf_counter()
            await connection.fetchval("SELECT 1")
            times.append((time.perf_counter() - started) * 1000)
    finally:
        await connection.close()
    return {"p50": round(percentile(times, 0.5), 3), "p95": round(percentile(times, 0.95), 3)}


class Trees:
    """The tree measured and, when WEBHOOK_BASELINE_TREE names one, the baseline beside it."""

    def __init__(self) -> None:
        baseline = os.environ.get(BASELINE_VARIABLE)
        self.labelled = [("current", ROOT)] + ([("baseline", Path(baseline).resolve())] if baseline else [])
        for _, tree in self.labelled:
            self.check_code(tree)

    @staticmethod
    def check_code(tree: Path) -> None:
        """Processes started for `tree` import its own bot and adapters (not the installed checkout's)."""
        found = subprocess.run([sys.executable, "-c", "import adapters, bot; print(bot.__file__, adapters.__file__)"],
                               cwd=tree, env=tree_environment(tree, {}), capture_output=True, text=True, check=True)
        if not all(Path(path).resolve().is_relative_to(tree) for path in found.stdout.split()):
            raise RuntimeError(f"processes started in {tree} import code from elsewhere: {found.stdout.strip()}")

    @staticmethod
    def commit(tree: Path) -> str:
        done = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        dirty = subprocess.run(["git", "-C", str(tree), "status", "--porcelain", "--", "bot", "adapters"],
                               capture_output=True, text=True).stdout.strip()
        return (done.stdout.strip() or "unknown") + ("+uncommitted" if dirty else "")


async def measure_workers(server: ServerProcess, pg: PostgresServer, proxy: ProxyProcess, tree: Path, label: str,
                          workers: int, clicks: int, groups: list[int],
                          folder: Path) -> tuple[dict[str, float], dict[str, float]]:
    """Clicks per second in each condition, through `workers` workers of `tree` on one fresh database: one
    set of workers connected directly, one through the proxy (both of its delays on the same workers);
    and, through the proxy, the reads it passed on to PostgreSQL per click (about its round trips).

    Both sets run side by side; each condition's `clicks` come in REPEATS rounds, taken in turns with a
    rotating order, so a change in the machine's load falls on every condition alike."""
    database, warm_up = f"hooks_{label}_{workers}", scaled(WARM_UP, minimum=10)
    admin = await asyncpg.connect(pg.url())
    try:
        await admin.execute(f"CREATE DATABASE {database}")
    finally:
        await admin.close()
    stores = {"direct": pg.url(database), "proxied": f"postgresql://postgres@127.0.0.1:{proxy.port}/{database}"}
    plan = [(link, name, delay) for link, rounds in SETS for name, delay in rounds]
    names = [f"warm_up_{link}" for link, _ in SETS] + [name for _, name, _ in plan]
    chats = {name: groups.pop() for name in names}
    messages = dict(zip(names, await post_questions_in(tree, server, stores["direct"], [chats[n] for n in names])))
    started = await asyncio.gather(*(start_workers(server, stores[link], workers,
                                                   folder / f"{label}-{workers}-{link}.log", tree)
                                     for link, _ in SETS), return_exceptions=True)
    running = {link: processes for (link, _), processes in zip(SETS, started)
               if not isinstance(processes, BaseException)}
    seconds = dict.fromkeys(names, 0.0)
    reads, clicked = dict.fromkeys(names, 0), dict.fromkeys(names, 0)
    per_round = max(1, clicks // REPEATS)
    try:
        for failed in started:
            if isinstance(failed, BaseException):
                raise failed
        warm_ups = [(link, f"warm_up_{link}", 0.0) for link, _ in SETS]
        rotations = [plan[turn % len(plan):] + plan[:turn % len(plan)] for turn in range(REPEATS)]
        for link, name, delay in [*warm_ups, *(step for order in rotations for step in order)]:
            count = warm_up if name.startswith("warm_up") else per_round
            first_user = 5_000_000 + 100_000 * names.index(name) + clicked[name]  # new people each round
            clicked[name] += count
            await proxy.delay(delay)
            before = await proxy.chunks()
            updates = click_updates(messages[name], chats[name], first_user, count)
            seconds[name] += count / await clicks_per_second(server, running[link], updates)
            reads[name] += (await proxy.chunks())["to_server"] - before["to_server"]
    finally:
        await proxy.delay(0)
        await asyncio.gather(*(stop_process(process, 15) for processes in running.values() for process, _ in processes))
    rates = {name: per_round * REPEATS / seconds[name] for _, name, _ in plan}
    flights = {name: reads[name] / (per_round * REPEATS) for link, name, _ in plan if link == "proxied"}
    return rates, flights


async def sample_load(loads: list[float]) -> None:
    """The 1-minute load average every 5 s: the machine is shared, and the figures mean little without it."""
    while True:
        await asyncio.sleep(5)
        loads.append(os.getloadavg()[0])


async def run(quick: bool) -> dict[str, Any]:
    bin_dir = find_bin()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL (initdb, pg_ctl) not found: install postgresql or set INTERVIEW_BOT_PG_BIN")
    clicks = scaled(CLICKS_QUICK if quick else CLICKS_FULL, minimum=10)
    load_at_start, loads = os.getloadavg()[0], [os.getloadavg()[0]]
    trees = Trees()
    results: dict[str, dict[str, Any]] = {label: {"tree": str(tree), "commit": Trees.commit(tree),
                                                  **{condition: {"clicks_per_s": {}} for condition in CONDITIONS}}
                                          for label, tree in trees.labelled}
    pg = PostgresServer(bin_dir)
    await asyncio.to_thread(pg.start, True)
    sampling = asyncio.ensure_future(sample_load(loads))
    try:
        async with ProxyProcess(pg.port) as proxy, ServerProcess() as server:
            pings = scaled(PINGS, minimum=20)
            select_1 = {"direct": await select_1_ms(pg.url(), pings)}
            for name, delay in (("proxy_0ms", 0.0), ("proxy_1ms", DELAY_MS)):
                await proxy.delay(delay)
                select_1[name] = await select_1_ms(f"postgresql://postgres@127.0.0.1:{proxy.port}/postgres", pings)
            await proxy.delay(0)
            groups = list(range(-1_010_000_000, -1_010_000_000 - 100, -1))
            with temporary_folder("webhook-workers") as folder:
                for workers in WORKER_COUNTS:
                    for label, tree in trees.labelled:
                        rates, flights = await measure_workers(server, pg, proxy, tree, label, workers, clicks,
                                                               groups, folder)
                        for condition, rate in rates.items():
                            results[label][condition]["clicks_per_s"][f"workers_{workers}"] = round(rate, 1)
                        for condition, flight in flights.items():
                            results[label][condition].setdefault("flights_to_server_per_click", {})[
                                f"workers_{workers}"] = round(flight, 2)
    finally:
        sampling.cancel()
        await asyncio.to_thread(pg.stop)
    for side in results.values():
        top = f"workers_{WORKER_COUNTS[-1]}"
        side["latency_1ms"]["ratio_to_no_latency"] = round(
            side["latency_1ms"]["clicks_per_s"][top] / side["no_latency"]["clicks_per_s"][top], 3)
        side["latency_1ms"]["ratios"] = {key: round(value / side["no_latency"]["clicks_per_s"][key], 3)
                                         for key, value in side["latency_1ms"]["clicks_per_s"].items()}
        side["latency_1ms"]["ratio_to_proxy_0ms"] = round(
            side["latency_1ms"]["clicks_per_s"][top] / side["proxy_0ms"]["clicks_per_s"][top], 3)
    result: dict[str, Any] = {
        "what": f"daily-question clicks answered per second through N `interview-bot telegram --webhook` workers "
                f"on one PostgreSQL database (fsync and synchronous commit on): connected directly (no_latency), "
                f"and through benchmarks/pg_proxy.py adding nothing (proxy_0ms) or {DELAY_MS:g} ms each way "
                f"(latency_1ms); same database, {clicks} clicks per condition in {REPEATS} rounds taken in turns, "
                f"over the same HTTP transport",
        "clicks": clicks, "repeats": REPEATS, "in_flight": IN_FLIGHT, "delay_ms_each_way": DELAY_MS,
        "select_1_ms": {name: timing["p50"] for name, timing in select_1.items()},
        "select_1_ms_p95": {name: timing["p95"] for name, timing in select_1.items()},
        "load_average": {"start": round(load_at_start, 2), "end": round(os.getloadavg()[0], 2),
                         "mean": round(sum(loads) / len(loads), 2), "max": round(max(loads), 2)},
        **results.pop("current"),
    }
    if "baseline" in results:
        result["baseline"] = results["baseline"]
    result["notes"] = notes(result)
    return result


def notes(result: dict[str, Any]) -> list[str]:
    """One line per tree: the curve at both latencies, and what the proxy adds to a round trip."""
    ping = result["select_1_ms"]
    lines = [f"SELECT 1 p50: {ping['direct']} ms direct, {ping['proxy_0ms']} ms through the proxy, "
             f"{ping['proxy_1ms']} ms through it at {DELAY_MS:g} ms each way; 1-minute load average "
             f"{result['load_average']['mean']:.1f} on average (at most {result['load_average']['max']:.1f})."]
    for label, side in (("this tree", result), ("baseline", result.get("baseline"))):
        if side is None:
            continue
        curve = "; ".join(f"{key.split('_')[1]}: {side['no_latency']['clicks_per_s'][key]} / "
                          f"{side['proxy_0ms']['clicks_per_s'][key]} / {value}"
                          for key, value in side["latency_1ms"]["clicks_per_s"].items())
        lines.append(f"{label} ({side['commit']}), clicks/s by workers, direct / proxy 0 ms / proxy {DELAY_MS:g} ms "
                     f"each way: {curve}; ratio at {WORKER_COUNTS[-1]} workers "
                     f"{side['latency_1ms']['ratio_to_no_latency']} (to proxy 0 ms: "
                     f"{side['latency_1ms']['ratio_to_proxy_0ms']}).")
    return lines
