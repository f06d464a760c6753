"""Start-up mistakes get one line and a non-zero exit, never a traceback, and never the token."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.adapters.telegram.fake_bot_api import FakeBotApi

REPO = Path(__file__).parents[3]
SECRET = "999999:WRONG-secret-token-xyz"


def run(args: list[str], **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "LANG": "C.UTF-8", **env}
    return subprocess.run([sys.executable, "-m", "bot", *args], input="", capture_output=True, text=True,
                          env=environment, cwd=REPO, timeout=60)


@pytest.mark.parametrize("level", ["WARNING", "DEBUG"])
async def test_a_rejected_token_is_one_line_and_never_logged(tmp_path, level) -> None:
    api = FakeBotApi()
    base_url = await api.start()
    try:
        done = await asyncio.to_thread(run, ["telegram", "--base-url", base_url], TELEGRAM_BOT_TOKEN=SECRET,
                                       INTERVIEW_BOT_DB=str(tmp_path / "db.sqlite3"), INTERVIEW_BOT_LOG_LEVEL=level)
    finally:
        await api.stop()
    output = done.stdout + done.stderr
    assert done.returncode == 1 and "rejected the bot token" in done.stderr
    assert SECRET not in output and SECRET.split(":")[1] not in output
    if level == "WARNING":
        assert "Traceback" not in output


@pytest.mark.parametrize("prepare, env, words", [
    (lambda p: (p / "db").write_bytes(b"\x00garbage" * 400), {"INTERVIEW_BOT_DB": "{tmp}/db"}, "not an interview-bot database"),
    (lambda p: (p / "db").write_text("just some text\n" * 40), {"INTERVIEW_BOT_DB": "{tmp}/db"}, "not an interview-bot database"),
    (lambda p: (p / "db").mkdir(), {"INTERVIEW_BOT_DB": "{tmp}/db"}, "is a folder"),
    (lambda p: None, {"INTERVIEW_BOT_LOG_LEVEL": "LOUD"}, "unknown log level 'LOUD'"),
    (lambda p: (p / "c.yaml").write_bytes(b"\xff\xfe\x00binary"), {"INTERVIEW_BOT_CONFIG": "{tmp}/c.yaml"}, "c.yaml"),
    (lambda p: (p / "c.yaml").write_text('telegram_token: "123456:SECRET-in-a-file\n'),
     {"INTERVIEW_BOT_CONFIG": "{tmp}/c.yaml"}, "c.yaml"),
])
def test_bad_files_and_settings_get_one_line(tmp_path, prepare, env, words) -> None:
    prepare(tmp_path)
    before = (tmp_path / "db").read_bytes() if (tmp_path / "db").is_file() else None
    env = {key: value.format(tmp=tmp_path) for key, value in env.items()}
    env.setdefault("INTERVIEW_BOT_DB", str(tmp_path / "fresh.sqlite3"))
    done = run(["console", "--count", "1"], **env)
    assert done.returncode != 0 and words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) <= 3
    assert "SECRET-in-a-file" not in done.stderr
    if before is not None:
        assert (tmp_path / "db").read_bytes() == before, "the file is left untouched"


async def test_the_store_folder_deleted_mid_run_stops_the_bot_with_one_line(tmp_path) -> None:
    """Nothing may be acknowledged into a deleted file: the process exits for its supervisor to restart."""
    import shutil

    from tests.adapters.telegram.fake_bot_api import TOKEN

    api = FakeBotApi()
    base_url = await api.start()
    folder = tmp_path / "data"
    environment = {**os.environ, "TELEGRAM_BOT_TOKEN": TOKEN, "INTERVIEW_BOT_DB": str(folder / "db.sqlite3")}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "telegram", "--base-url", base_url, cwd=REPO, env=environment,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        for _ in range(300):
            if any(call.method == "getUpdates" for call in api.calls):
                break
            await asyncio.sleep(0.05)
        shutil.rmtree(folder)
        api.push({"message": {"message_id": 1, "date": 0, "chat": {"id": 7, "type": "private"},
                              "from": {"id": 7, "is_bot": False, "first_name": "Ada"}, "text": "/start",
                              "entities": [{"type": "bot_command", "offset": 0, "length": 6}]}})
        _, err = await asyncio.wait_for(process.communicate(), 30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        await api.stop()
    text = err.decode()
    assert process.returncode == 1 and "deleted or replaced while running" in text, text[-2000:]


@pytest.mark.parametrize("args, words", [
    (["telegram", "--listen", "foo"], "--listen must be HOST:PORT"),
    (["telegram", "--listen", "127.0.0.1:99999"], "--listen must be HOST:PORT"),
    (["telegram", "--webhook", "not a url"], "--webhook must be a public https:// URL"),
    (["telegram", "--webhook", "http://bot.example.org/hook"], "--webhook must be a public https:// URL"),
])
def test_bad_webhook_options_get_one_line(tmp_path, args, words) -> None:
    done = run(args, TELEGRAM_BOT_TOKEN="123456:ABC", INTERVIEW_BOT_DB=str(tmp_path / "db.sqlite3"))
    assert done.returncode == 2 and words in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_an_unreachable_bot_api_at_start_up_is_one_line(tmp_path) -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = run(["telegram", "--base-url", f"http://127.0.0.1:{port}/bot"], TELEGRAM_BOT_TOKEN="123456:ABCDEF",
               INTERVIEW_BOT_DB=str(tmp_path / "db.sqlite3"))
    assert done.returncode == 1 and "cannot reach the Telegram Bot API" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
