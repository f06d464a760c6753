"""What a person in a DM interview feels during a daily-minute broadcast, on the shipped process.

N groups are subscribed for one minute (10,000 in the full run: about six minutes of posting at the
limit); the real `interview-bot telegram` process runs against the fake Bot API enforcing 30 messages
in any sliding second. A few people are in DM interviews and keep answering (two seconds after each reply) while the broadcast runs:
each click is pushed as a callback query, and its reply is the next message the bot sends into that
private chat (the next question). Figures:

  interactive_p95_s / interactive_p50_s -- seconds from a DM click to its reply, over the clicks made
                                           while the broadcast was posting (goal p95 <= 1.5 s);
  broadcast_rate_over_limit             -- group posts accepted / (last post - the minute) / 30, with the
                                           replies sharing the limit (goal >= 0.95);
  http_429                              -- 429s the server gave (goal 0);
  posted, clicks, answered_clicks.

Before the send lanes (bot/lanes.py), replies waited in one first-come line with the broadcast's sends
(about 59 of them in flight at any moment): `baseline.*` is that tree measured the same way, when
`STORM_BASELINE_TREE` names a checkout of it (docs/benchmarks.md has the figures).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchmarks.broadcast import TELEGRAM_LIMIT, chat_ids, polling_from, ready_ahead, subscribe_all, the_minute, the_moment
from benchmarks.fake_telegram import ROOT, ServerProcess
from benchmarks.figures import Figure
from benchmarks.flood import first_reply_after
from benchmarks.sizes import percentile, scaled, stop_process, temporary_folder

NAME = "storm"
# 1,000 quick (33 s of posting, about 60 clicks during it): at load 7.5, p95 0.936 s against 0.941 s over the
# 112 clicks of 2,000 groups, the broadcast's share 0.849 against 0.844; the run is 35 s shorter
CHATS_QUICK, CHATS_FULL = 1_000, 10_000
PEOPLE = 4  # people in DM interviews during the broadcast
CLICK_GAP_S = 2.0  # each person answers two seconds after the last reply came (a quick reader)
INTERVIEWS_AHEAD_S = 8  # the interviews begin this long before the posts are due
LEAD_SECONDS = INTERVIEWS_AHEAD_S + 5  # from the process's start to the posts' instant (it polls within 2 s)
FIRST_PERSON = 6_100_001
TOPIC = "distributed-strategies-sync"
FIGURES = (
    Figure("interactive_p95_s", " s", at_most=1.5),
    Figure("interactive_p50_s", " s"),
    Figure("broadcast_rate_over_limit", "", at_least=0.95),
    Figure("http_429", "", at_most=0),
    Figure("baseline.interactive_p95_s", " s"),
    Figure("baseline.broadcast_rate_over_limit", ""),
)


def person(user_id: int) -> dict[str, Any]:
    return {"id": user_id, "is_bot": False, "first_name": f"Candidate {user_id}", "language_code": "en"}


def dm_command(user_id: int, text: str, number: int) -> dict[str, Any]:
    name = text.split()[0]
    return {"message": {"message_id": number, "date": int(time.time()), "from": person(user_id),
                        "chat": {"id": user_id, "type": "private", "first_name": f"Candidate {user_id}"},
                        "text": text, "entities": [{"type": "bot_command", "offset": 0, "length": len(name)}]}}


def click(user_id: int, message: dict[str, Any], data: str, number: int) -> dict[str, Any]:
    return {"callback_query": {"id": f"s{user_id}-{number}", "from": person(user_id), "chat_instance": f"ci{user_id}",
                               "data": data, "message": {"message_id": message["message_id"], "date": int(time.time()),
                                                         "chat": {"id": user_id, "type": "private"},
                                                         "text": "question"}}}


async def latest_question(server: ServerProcess, user_id: int) -> dict[str, Any] | None:
    """The newest message in the person's chat that still has answer buttons."""
    messages = await server.get("/messages", chat_id=user_id)
    with_buttons = [message for message in messages if message["data"]]
    return with_buttons[-1] if with_buttons else None


async def candidate(server: ServerProcess, user_id: int, until: float,
                    samples: list[tuple[float, float | None]]) -> None:
    """One person answering their interview until `until`: (pushed at, seconds to the reply) per click."""
    number = 0
    while time.monotonic() < until:
        question = await latest_question(server, user_id)
        if question is None:  # the interview ended (or has not begun): start another
            number += 1
            await server.post("/push", {"updates": [dm_command(user_id, f"/interview {TOPIC} 30", number)]})
            await asyncio.sleep(CLICK_GAP_S)
            continue
        number += 1
        pushed = (await server.post("/push", {"updates": [click(user_id, question, question["data"][0], number)]}))[
            "pushed_at"]
        latency = await first_reply_after(server, user_id, pushed, 30.0)
        samples.append((pushed, latency))
        await asyncio.sleep(CLICK_GAP_S)


async def storm(server: ServerProcess, folder: Path, count: int, tree: Path, catch_up: bool = False) -> dict[str, Any]:
    """The process of `tree` with `count` groups due at one minute and PEOPLE answering in DMs meanwhile.

    With `catch_up` (tiny smoke runs) the minute is the one just begun: the bot posts at start, as after a
    restart within the grace window, and nobody waits for the next minute."""
    shipped = tree == ROOT  # an older tree's store is written by its own code, which computes the instant at start
    if catch_up:
        minute = datetime.now(timezone.utc).replace(second=0, microsecond=0)
    else:
        minute = the_moment(LEAD_SECONDS) if shipped else the_minute()
    path = folder / f"storm-{tree.name}-{count}.sqlite3"
    if shipped:
        await subscribe_all(path, count, minute, scheduled=not catch_up)
    else:  # the baseline's own code writes its store, at its own schema version
        script = ("import asyncio, sys, datetime; from benchmarks.broadcast import subscribe_all; "
                  "asyncio.run(subscribe_all(sys.argv[1], int(sys.argv[2]), "
                  "datetime.datetime.fromisoformat(sys.argv[3])))")
        maker = await asyncio.create_subprocess_exec(sys.executable, "-c", script, str(path), str(count),
                                                     minute.isoformat(), cwd=tree, env={**os.environ,
                                                                                        "PYTHONPATH": str(tree)})
        await maker.wait()
    await server.post("/reset", {"limit": {"count": TELEGRAM_LIMIT, "window": 1.0, "model": "window"}})
    environment = {**os.environ, "TELEGRAM_BOT_TOKEN": server.token, "INTERVIEW_BOT_DB": str(path),
                   "INTERVIEW_BOT_LOG_LEVEL": "WARNING", "PYTHONPATH": str(tree)}
    people = [FIRST_PERSON + index for index in range(PEOPLE)]
    groups = set(chat_ids(count))
    log_path = folder / f"storm-{tree.name}-{count}.log"
    with open(log_path, "wb") as log_file:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "telegram", "--base-url", server.base_url, cwd=tree, env=environment,
            stdout=log_file, stderr=asyncio.subprocess.STDOUT)
        minute_mono = time.monotonic() + (minute.timestamp() - time.time())
        deadline = minute_mono + count / TELEGRAM_LIMIT * 2 + 60
        try:
            ready = await polling_from(server, process, minute_mono - INTERVIEWS_AHEAD_S)
            await asyncio.sleep(max(0.0, minute_mono - time.monotonic() - INTERVIEWS_AHEAD_S))
            samples: list[tuple[float, float | None]] = []
            clicking = [asyncio.create_task(candidate(server, user_id, deadline, samples)) for user_id in people]
            sends: dict[str, Any] = {"sent": [], "rejected": []}
            while time.monotonic() < deadline and process.returncode is None:
                await asyncio.sleep(1.0)
                sends = await server.get("/sends")
                if len({chat for _, chat in sends["sent"] if chat in groups}) >= count:
                    break
            for task in clicking:
                task.cancel()
            await asyncio.gather(*clicking, return_exceptions=True)
            sends = await server.get("/sends")
        finally:
            await stop_process(process, 15)
    group_times = sorted(at for at, chat in sends["sent"] if chat in groups)
    last = group_times[-1] if group_times else minute_mono
    during = [latency for pushed, latency in samples if minute_mono <= pushed <= last]
    answered = [latency for latency in during if latency is not None]
    unanswered = len(during) - len(answered)
    scored = answered + [30.0] * unanswered  # a click never answered counts as the wait's limit
    span = last - minute_mono
    return {
        "chats": count, "posted": len(set(chat for _, chat in sends["sent"] if chat in groups)),
        "clicks": len(during), "answered_clicks": len(answered),
        "interactive_p50_s": round(percentile(scored, 0.5), 3) if scored else None,
        "interactive_p95_s": round(percentile(scored, 0.95), 3) if scored else None,
        "interactive_max_s": round(max(scored), 3) if scored else None,
        "unanswered_clicks": unanswered,
        "slowest": [[round(pushed - minute_mono, 1), round(latency, 3) if latency is not None else None]
                    for pushed, latency in sorted(((p, l) for p, l in samples if minute_mono <= p <= last),
                                                  key=lambda pair: -(pair[1] if pair[1] is not None else 1e9))[:5]],
        "broadcast_rate_over_limit": round(len(group_times) / span / TELEGRAM_LIMIT, 3) if span > 0 else 0.0,
        "rate_over_limit_all_sends": round(len([1 for at, _ in sends["sent"] if minute_mono <= at <= last]) / span
                                           / TELEGRAM_LIMIT, 3) if span > 0 else 0.0,
        "http_429": len(sends["rejected"]), "seconds_from_minute": round(span, 2),
        "polling_s_before_posts_due": ready_ahead(ready, minute_mono),
        "tracebacks_in_log": log_path.read_text(encoding="utf-8", errors="replace").count("Traceback"),
    }


async def run(quick: bool) -> dict[str, Any]:
    count = scaled(CHATS_QUICK if quick else CHATS_FULL, minimum=60)
    baseline_tree = os.environ.get("STORM_BASELINE_TREE")
    with temporary_folder("storm") as folder:
        async with ServerProcess() as server:
            result = await storm(server, folder, count, ROOT, catch_up=count < 100)
            if baseline_tree:
                result["baseline"] = await storm(server, folder, count, Path(baseline_tree), catch_up=count < 100)
    notes = [
        f"the real `interview-bot telegram` process, {count} groups due at one minute, {PEOPLE} people answering DM "
        f"interview questions two seconds after each reply meanwhile: {result['clicks']} clicks during the broadcast, "
        f"p50 {result['interactive_p50_s']} s, p95 {result['interactive_p95_s']} s, max {result['interactive_max_s']} s "
        f"to the reply; the broadcast at {result['broadcast_rate_over_limit']} of the limit "
        f"({result['rate_over_limit_all_sends']} with the replies), {result['http_429']} x 429."]
    if "baseline" in result:
        b = result["baseline"]
        notes.append(f"baseline ({baseline_tree}): p95 {b['interactive_p95_s']} s, p50 {b['interactive_p50_s']} s, "
                     f"broadcast {b['broadcast_rate_over_limit']} of the limit, {b['http_429']} x 429.")
    result["notes"] = notes
    return result
