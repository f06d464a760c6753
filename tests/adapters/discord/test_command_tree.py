"""The slash-command tree: names, options, contexts, Turkish and English localizations, the synced
payload, and `interview-bot discord --list-commands`."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.adapters.discord.harness import APP_ID

ROOT = Path(__file__).parents[3]
EXPECTED = {"interview", "stop", "forget", "daily", "subscribe", "unsubscribe", "settings", "leaderboard", "groups",
            "progress", "history", "review", "language", "help", "export", "quiz", "deck"}


async def synced(discord_, recorder) -> list[dict]:
    mark = len(recorder.requests)
    assert await discord_.client.sync_commands() == len(EXPECTED)
    [request] = recorder.since(mark)
    assert request.method == "PUT" and request.path == f"/applications/{APP_ID}/commands"
    return request.json


async def test_names_and_limits(discord_, recorder) -> None:
    payload = await synced(discord_, recorder)
    assert {command["name"] for command in payload} == EXPECTED
    for command in payload:
        assert 1 <= len(command["name"]) <= 32 and command["name"].islower()
        assert 1 <= len(command["description"]) <= 100
        for text in command["description_localizations"].values():
            assert 1 <= len(text) <= 100
        for option in command["options"]:
            assert 1 <= len(option["description"]) <= 100 and len(option.get("choices", ())) <= 25
            assert all(name.islower() and len(name) <= 32 for name in option["name_localizations"].values())
        assert command["integration_types"] == [0], "installed in servers only"


async def test_turkish_and_english_localizations(discord_, recorder) -> None:
    commands = {command["name"]: command for command in await synced(discord_, recorder)}
    interview = commands["interview"]
    assert interview["description"] == "Start a mock interview in this DM"
    assert interview["description_localizations"] == {
        "tr": "Bu özel mesajda bir deneme mülakatı başlat",
        "en-US": "Start a mock interview in this DM", "en-GB": "Start a mock interview in this DM"}
    options = {option["name"]: option for option in interview["options"]}
    assert options["topic"]["name_localizations"]["tr"] == "konu" and options["topic"]["autocomplete"]
    assert [c["name_localizations"]["tr"] for c in options["level"]["choices"]] == ["kolay", "orta", "zor"]
    assert options["count"]["min_value"] == 1 and options["count"]["max_value"] == 30, "the same as Telegram's"
    assert options["time_limit"]["min_value"] == 10 and options["time_limit"]["max_value"] == 600
    assert options["time_limit"]["name_localizations"]["tr"] == "süre-sınırı" and not options["time_limit"]["required"]
    subscribe = commands["subscribe"]
    assert subscribe["default_member_permissions"] == "32" or subscribe["default_member_permissions"] == 32
    assert subscribe["contexts"] == [0] and interview["contexts"] == [1] and sorted(commands["help"]["contexts"]) == [0, 1]
    assert [o["name_localizations"]["tr"] for o in subscribe["options"]] == ["saat", "saat-dilimi", "konu", "kanal"]
    assert [o["name"] for o in subscribe["options"]] == ["time", "timezone", "topic", "channel"]
    assert subscribe["options"][3]["channel_types"] == [0, 5], "text and announcement channels"
    periods = {o["name"]: o for o in commands["leaderboard"]["options"]}["period"]["choices"]
    assert [c["value"] for c in periods] == ["week", "month", "all"]


async def test_command_names_in_turkish(discord_, recorder) -> None:
    """Every command has a Turkish name Discord accepts (lowercase, at most 32, letters, digits, - and _),
    each different; English clients keep the default name, so no English localization is sent."""
    commands = {command["name"]: command for command in await synced(discord_, recorder)}
    turkish = {name: command["name_localizations"] for name, command in commands.items()}
    assert all(set(names) == {"tr"} for names in turkish.values()), turkish
    names = [names["tr"] for names in turkish.values()]
    assert len(set(names)) == len(names) == len(EXPECTED)
    assert all(re.fullmatch(r"[-_\w]{1,32}", name) and name == name.lower() for name in names)
    assert turkish["interview"] == {"tr": "mülakat"} and turkish["leaderboard"] == {"tr": "sıralama"}
    language = commands["language"]
    assert sorted(language["contexts"]) == [0, 1] and language.get("default_member_permissions") is None


async def test_sync_to_one_server(discord_, recorder) -> None:
    discord_.client.sync_guild = 1234
    mark = len(recorder.requests)
    await discord_.client.sync_commands()
    [request] = recorder.since(mark)
    assert request.path == f"/applications/{APP_ID}/guilds/1234/commands" and len(request.json) == len(EXPECTED)


def test_list_commands_prints_the_tree_without_connecting() -> None:
    result = subprocess.run([sys.executable, "-m", "bot", "discord", "--list-commands"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    for name in EXPECTED:
        assert f"/{name}" in result.stdout
    assert "tr: Bu özel mesajda bir deneme mülakatı başlat" in result.stdout
    assert "/subscribe [Manage Server] (tr: /abone-ol)" in result.stdout and "saat-dilimi" in result.stdout
