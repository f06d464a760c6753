"""Group decks on Telegram end to end: files sent to the group (with `/deck add NAME` as the caption, or
a reply `/deck add NAME` to a file already there) go through the real Application, getFile and the file
URL of the fake Bot API; then the deck is played, replaced, exported and removed, and every refusal is
one line (a broken file's problems by line, an oversize file before any download, a member, a name)."""

from __future__ import annotations

import itertools
import re
import time

import pytest

from adapters.telegram.decks import DeckArgs, caption_args, deck_args
from adapters.telegram.files import file_url_for, files_base
from adapters.telegram.group import subscription_args
from tests.adapters.deck_files import FILES
from tests.adapters.telegram.conftest import ALICE, BOB, CAROL, GROUP, Harness, command, private
from tests.adapters.telegram.fake_bot_api import FakeBotApi, Stored, visible_text

GROUP_ID = GROUP["id"]
_ids = itertools.count(70_000)


def sent_file(user: dict, chat: dict, document: dict, caption: str | None = None) -> dict:
    """A message carrying a document, with a caption whose command is marked as Telegram marks it."""
    message = {"message_id": next(_ids), "date": int(time.time()), "chat": chat, "from": user, "document": document}
    if caption is not None:
        message["caption"] = caption
        if caption.startswith("/"):
            message["caption_entities"] = [{"type": "bot_command", "offset": 0, "length": len(caption.split()[0])}]
    return {"message": message}


def replying(body: dict, to: dict) -> dict:
    """A command message sent as a reply to another message (which carries its document along)."""
    return {"message": {**body["message"], "reply_to_message": to["message"]}}


async def upload(bot: Harness, user: dict, name: str, filename: str, data: bytes, **options: object) -> dict:
    document = bot.api.add_file(data, filename, **options)  # type: ignore[arg-type]
    body = sent_file(user, GROUP, document, f"/deck add {name}")
    await bot.process(body)
    return body


@pytest.fixture
async def group_bot(bot: Harness) -> Harness:
    bot.api.admins[GROUP_ID] = {ALICE["id"]}
    return bot


# --- the file URL ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("base_url", "file_url"), [
    ("https://api.telegram.org/bot", "https://api.telegram.org/file/bot"),
    ("http://127.0.0.1:8081/bot", "http://127.0.0.1:8081/file/bot"),
    ("http://bot.example:8081/bot{token}", "http://bot.example:8081/file/bot{token}"),
    ("http://bot.example/", None),
])
def test_the_file_url_follows_the_bot_api_url(base_url: str, file_url: str | None) -> None:
    assert file_url_for(base_url) == file_url


def test_an_explicit_file_url_wins_and_telegram_keeps_its_default() -> None:
    assert files_base("http://127.0.0.1:8081/bot", "http://files.example/file/bot") == "http://files.example/file/bot"
    assert files_base(None, None) is None


def test_the_file_url_option_and_variable_reach_the_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from adapters.platform_commands import _telegram_options, add_platform_parsers
    from bot.app.config import load_settings

    parser = argparse.ArgumentParser()
    add_platform_parsers(parser.add_subparsers())
    monkeypatch.delenv("INTERVIEW_BOT_CONFIG", raising=False)

    def file_url(*args: str) -> str | None:
        return _telegram_options(parser.parse_args(["telegram", *args]), load_settings())["base_file_url"]

    assert file_url("--base-file-url", "http://files.example/file/bot") == "http://files.example/file/bot"
    monkeypatch.setenv("TELEGRAM_BASE_FILE_URL", "http://env.example/file/bot")
    assert file_url() == "http://env.example/file/bot"
    monkeypatch.delenv("TELEGRAM_BASE_FILE_URL")
    assert file_url() is None


async def test_the_bot_downloads_from_the_fake_servers_file_url(group_bot: Harness, api: FakeBotApi) -> None:
    assert group_bot.application.bot.base_file_url == f"{api.file_url}{api.token}"
    await upload(group_bot, ALICE, "week-1", "losses.csv", FILES["csv"].data)
    assert [call["file_id"] for call in api.calls_of("getFile")] == ["BQACAgIAAx-file-1"]
    assert api.downloads == ["documents/file_1.csv"]


@pytest.mark.parametrize(("args", "parsed"), [
    (["add", "week-1"], DeckArgs("add", "week-1")),
    (["ADD", "deck:week-1"], DeckArgs("add", "week-1")),
    (["export", "week-1", "CSV"], DeckArgs("export", "week-1", "csv")),
    (["export", "week-1@-100123"], DeckArgs("export", "week-1@-100123")),
    (["list"], DeckArgs("list")),
    (["list", "x"], None), (["export", "a", "pdf"], None), (["remove"], None), ([], None),
])
def test_deck_arguments(args: list[str], parsed: DeckArgs | None) -> None:
    assert deck_args(args) == parsed


def test_a_caption_is_a_deck_command_only_for_this_bot() -> None:
    assert caption_args("/deck add week-1", "interview_test_bot") == ["add", "week-1"]
    assert caption_args("/deck@Interview_Test_Bot add x\n", "interview_test_bot") == ["add", "x"]
    assert caption_args("/deck@other_bot add x", "interview_test_bot") is None
    assert caption_args("/decks add x", "interview_test_bot") is None


def test_a_deck_topic_is_not_read_as_a_time_zone(core) -> None:
    assert subscription_args(core, ["09:00", "deck:week-1"]) == ("09:00", "UTC", "deck:week-1", None)
    assert subscription_args(core, ["09:00", "Europe/Istanbul", "deck:week-1", "poll"]) == \
        ("09:00", "Europe/Istanbul", "deck:week-1", True)


# --- refusals before any download ---------------------------------------------------------------------

async def test_an_oversize_file_is_refused_before_the_download(group_bot: Harness, api: FakeBotApi) -> None:
    await upload(group_bot, ALICE, "big", "big.csv", b"stem,options,key\n" + b"x" * 1_200_000)
    assert group_bot.api.last(GROUP_ID).html == \
        "That file is 1.2 MB; a deck file may be at most 1 MB. I did not download it."
    assert api.calls_of("getFile") == [] and api.downloads == []


async def test_a_file_whose_size_telegram_tells_only_at_getfile_is_not_downloaded(group_bot: Harness,
                                                                                   api: FakeBotApi) -> None:
    document = api.add_file(b"x" * 1_000_001, "big.gift")
    del document["file_size"]  # file_size is optional on a Document: getFile's is checked then
    await group_bot.process(sent_file(ALICE, GROUP, document, "/deck add big"))
    assert "1 MB; a deck file may be at most 1 MB" in group_bot.api.last(GROUP_ID).html
    assert len(api.calls_of("getFile")) == 1 and api.downloads == []


async def test_a_file_telegram_will_not_hand_out_gets_one_line(group_bot: Harness, api: FakeBotApi) -> None:
    huge = api.add_file(b"x" * (20 * 1024 * 1024 + 1), "huge.csv")
    del huge["file_size"]
    await group_bot.process(sent_file(ALICE, GROUP, huge, "/deck add huge"))
    assert "a deck file may be at most 1 MB. I did not download it." in api.last(GROUP_ID).html
    gone = {**api.add_file(b"stem,options,key\n", "gone.csv"), "file_id": "an-expired-id"}
    await group_bot.process(sent_file(ALICE, GROUP, gone, "/deck add gone"))
    assert api.last(GROUP_ID).html == "I could not get that file from the chat. Please send it again."
    assert api.downloads == [] and await group_bot.count("decks") == 0


async def test_a_bad_deck_name_is_refused_before_the_download(group_bot: Harness, api: FakeBotApi) -> None:
    await upload(group_bot, ALICE, "Week1!", "week-1.csv", FILES["csv"].data)
    assert "Week1! is not one" in api.last(GROUP_ID).html
    assert api.calls_of("getFile") == [] and api.downloads == [] and await group_bot.count("decks") == 0


async def test_a_member_may_not_add_a_deck(group_bot: Harness, api: FakeBotApi) -> None:
    await upload(group_bot, BOB, "week-1", "week-1.yaml", FILES["yaml"].data)
    assert group_bot.api.last(GROUP_ID).html == "Bunu yalnızca grubun yöneticileri yapabilir."
    assert api.downloads == [] and await group_bot.count("decks") == 0


async def test_usage_no_file_and_a_private_chat(group_bot: Harness) -> None:
    for text in ("/deck", "/deck add", "/deck add a b", "/deck export x pdf", "/deck frobnicate"):
        await group_bot.command(ALICE, GROUP, text)
        assert group_bot.api.last(GROUP_ID).html.startswith("Usage: /deck add NAME"), text
    await group_bot.command(ALICE, GROUP, "/deck add week-1")
    assert "as its caption, or reply to a file" in group_bot.api.last(GROUP_ID).html
    for text in ("/daily deck:week-1 sync-basics", "/daily now", "/daily poll poll"):
        await group_bot.command(ALICE, GROUP, text)
        assert group_bot.api.last(GROUP_ID).html.startswith("Usage: /daily [topic] [poll]"), text
    await group_bot.command(ALICE, private(ALICE), "/deck remove week-1")
    assert group_bot.api.last(ALICE["id"]).html.startswith("Decks belong to a group")
    document = group_bot.api.add_file(FILES["csv"].data, "losses.csv")
    await group_bot.process(sent_file(ALICE, private(ALICE), document, "/deck add losses"))
    assert group_bot.api.last(ALICE["id"]).html.startswith("Decks belong to a group") and group_bot.api.downloads == []


async def test_a_caption_for_another_bot_or_no_command_is_left_alone(group_bot: Harness) -> None:
    for caption in ("/deck@some_other_bot add x", "our questions for week 1", "/decks"):
        document = group_bot.api.add_file(FILES["csv"].data, "losses.csv")
        await group_bot.process(sent_file(ALICE, GROUP, document, caption))
    assert group_bot.api.sent_to(GROUP_ID) == [] and group_bot.api.calls_of("getFile") == []


# --- each format, both ways of sending it ------------------------------------------------------------

def shown(stored: Stored) -> str:
    return visible_text(stored.html)


@pytest.mark.parametrize("fmt", sorted(FILES))
async def test_each_format_is_read_from_a_caption_and_its_broken_twin_names_the_line(group_bot: Harness,
                                                                                     fmt: str) -> None:
    deck = FILES[fmt]
    await upload(group_bot, ALICE, f"bad-{fmt}", deck.filename, deck.broken)
    refused = shown(group_bot.api.last(GROUP_ID))
    assert f"Deck bad-{fmt} was not stored" in refused and f"\n{deck.broken_at}" in f"\n{refused}", refused
    assert await group_bot.count("decks") == 0, "nothing stored"
    await upload(group_bot, ALICE, fmt, deck.filename, deck.data)
    added = shown(group_bot.api.last(GROUP_ID))
    assert added.startswith(f"deck {fmt}: {deck.count} questions ("), added
    assert await group_bot.count("decks") == 1


async def test_a_reply_to_a_file_already_in_the_chat_adds_it(group_bot: Harness, api: FakeBotApi) -> None:
    """A member posts the file; an administrator answers it with /deck add NAME (privacy mode delivers that)."""
    posted = sent_file(BOB, GROUP, api.add_file(FILES["moodle"].data, "batch-norm.xml", "text/xml"), "for week 2")
    await group_bot.process(posted)
    assert api.sent_to(GROUP_ID) == [], "a file with an ordinary caption is not for the bot"
    await group_bot.process(replying(command(ALICE, GROUP, "/deck add week-2"), posted))
    assert shown(api.last(GROUP_ID)).startswith("deck week-2: 2 questions (")
    assert api.downloads == ["documents/file_1.xml"]
    await group_bot.process(replying(command(BOB, GROUP, "/deck add week-3"), posted))
    assert api.last(GROUP_ID).html == "Bunu yalnızca grubun yöneticileri yapabilir." and len(api.downloads) == 1


# --- a deck's life: played, replaced, exported, removed -------------------------------------------------

async def deck_question_ids(bot: Harness) -> list[str]:
    rows = await bot.core.db.fetch_all("SELECT question_id FROM asked_questions ORDER BY id")
    return [row["question_id"] for row in rows]


async def test_a_deck_is_played_in_a_daily_post_and_a_quiz_round(group_bot: Harness, api: FakeBotApi) -> None:
    await upload(group_bot, ALICE, "optimisers", "optimisers.gift", FILES["gift"].data)
    await group_bot.command(ALICE, GROUP, "/daily deck:optimisers poll")  # before any subscription
    assert api.calls_of("sendPoll"), "the deck's question as a quiz poll"
    await group_bot.command(ALICE, GROUP, "/subscribe 09:00 deck:optimisers")
    assert api.last(GROUP_ID).html.startswith("Done: a daily question at 09:00 (UTC)")
    await group_bot.command(ALICE, GROUP, "/daily")
    assert "Daily question" in api.last(GROUP_ID).html
    [first, second] = await deck_question_ids(group_bot)
    assert first.startswith("deck.") and second.startswith("deck."), "both from the deck, not the bank"

    await group_bot.command(CAROL, GROUP, "/quiz deck:optimisers 3 10")
    assert "3 questions" in shown(api.last(GROUP_ID))
    await group_bot.core.quiz.run_due()
    assert (await deck_question_ids(group_bot))[-1].startswith("deck.")


async def test_a_deck_is_replaced_exported_and_removed(group_bot: Harness, api: FakeBotApi) -> None:
    await upload(group_bot, ALICE, "week-1", "losses.csv", FILES["csv"].data)
    await upload(group_bot, ALICE, "week-1", "optimisers.gift", FILES["gift"].data)
    replaced = shown(api.last(GROUP_ID))
    assert replaced.startswith("deck week-1: 3 questions") and "replaces the earlier deck" in replaced
    await group_bot.command(BOB, GROUP, "/deck list")
    listing = shown(api.last(GROUP_ID))
    assert "week-1" in listing and "Alice" in listing

    await group_bot.command(CAROL, GROUP, "/deck export week-1 csv")
    [sent] = api.calls_of("sendDocument")
    assert sent["chat_id"] == GROUP_ID and sent["filenames"]["document"] == "week-1.csv"
    assert sent["document"].decode().startswith("stem,options,key") and sent["caption"] == "Deck week-1: 3 questions."
    exported = api.last(GROUP_ID)
    await group_bot.process(replying(command(ALICE, GROUP, "/deck add copy"), {"message": api._message(exported)}))
    assert shown(api.last(GROUP_ID)).startswith("deck copy: 3 questions"), "an exported file reads back as a deck"

    await group_bot.command(BOB, GROUP, "/deck remove week-1")
    assert api.last(GROUP_ID).html == "Bunu yalnızca grubun yöneticileri yapabilir."
    await group_bot.command(ALICE, GROUP, "/deck remove week-1")
    question = api.last(GROUP_ID)
    [token] = question.data
    await group_bot.click(BOB, question, token)
    assert group_bot.popups()[-1][1] is True and await group_bot.count("decks") == 2, "only the asker confirms"
    await group_bot.click(ALICE, question, token)
    assert shown(question) == "Deck week-1 is removed."
    assert (await group_bot.core.db.fetch_one("SELECT count(*) FROM decks WHERE removed_at IS NULL"))[0] == 1
    await group_bot.command(ALICE, GROUP, "/quiz deck:week-1")
    assert "Unknown topic deck:week-1" in shown(api.last(GROUP_ID))


async def test_unknown_and_forged_deck_names_get_a_polite_line(group_bot: Harness, api: FakeBotApi) -> None:
    for text, expected in (("/deck export nope", "There is no deck nope here."),
                           ("/deck remove nope", "There is no deck nope here."),
                           ("/deck export ../../etc/passwd", "There is no deck ../../etc/passwd here."),
                           ("/quiz deck:nope", "Unknown topic deck:nope."),
                           ("/quiz deck.1", "Unknown topic deck:1."),
                           ("/subscribe 09:00 deck:<b>x</b>", "Unknown topic deck:<b>x</b>.")):
        await group_bot.command(ALICE, GROUP, text)
        assert shown(api.last(GROUP_ID)).startswith(expected), (text, shown(api.last(GROUP_ID)))
    await upload(group_bot, ALICE, "Not-A-Name!", "losses.csv", FILES["csv"].data)
    assert "is 1 to 32 characters of a-z, 0-9, _ and -" in shown(api.last(GROUP_ID))
    assert await group_bot.count("decks") == 0 and await group_bot.count("subscriptions") == 0


async def test_the_dm_lists_the_decks_of_the_persons_groups(group_bot: Harness, api: FakeBotApi) -> None:
    await upload(group_bot, ALICE, "week-1", "week-1.yaml", FILES["yaml"].data)
    await group_bot.command(CAROL, private(CAROL), "/interview")
    assert "Decks of your groups" not in shown(api.last(CAROL["id"])), "Carol shares no group with the bot"
    await group_bot.command(ALICE, private(ALICE), "/interview")
    assert shown(api.last(ALICE["id"])) == \
        "Decks of your groups: deck:week-1 (ML study group). Start one with /interview deck:NAME."
    await group_bot.command(ALICE, private(ALICE), "/deck list")
    assert "week-1" in shown(api.last(ALICE["id"])) and "ML study group" in shown(api.last(ALICE["id"]))
    await group_bot.command(ALICE, private(ALICE), "/deck export week-1")
    [sent] = api.calls_of("sendDocument")
    assert sent["chat_id"] == ALICE["id"] and sent["filenames"]["document"] == "week-1.gift"
    await group_bot.command(CAROL, private(CAROL), "/deck export week-1")
    assert shown(api.last(CAROL["id"])).startswith("There is no deck week-1 here.")
    assert len(api.calls_of("sendDocument")) == 1, "not a deck of Carol's groups"
    await group_bot.command(ALICE, private(ALICE), "/interview deck:week-1 2")
    assert (await deck_question_ids(group_bot))[-1].startswith("deck.")


async def test_deck_is_in_the_group_menus_in_both_languages(group_bot: Harness) -> None:
    from adapters.telegram.app import register_commands

    await register_commands(group_bot.application.bot)
    menus = {(str(call["scope"]), call.get("language_code")): {c["command"]: c["description"] for c in call["commands"]}
             for call in group_bot.api.calls_of("setMyCommands")}
    groups = [menu for (scope, _), menu in menus.items() if "all_group_chats" in scope]
    assert len(groups) == 2 and all("deck" in menu for menu in groups)
    assert {menu["deck"].split(":")[0] for menu in groups} == {"Group decks", "Grup desteleri"}
    assert not any("deck" in menu for (scope, _), menu in menus.items() if "all_private_chats" in scope)


async def test_a_group_that_removes_the_bot_keeps_its_decks_30_days(group_bot: Harness, clock) -> None:
    await upload(group_bot, ALICE, "week-1", "week-1.yaml", FILES["yaml"].data)

    async def membership(old: str, new: str) -> None:
        bot_member = {"id": 4242, "is_bot": True, "first_name": "Interview Bot"}
        await group_bot.process({"my_chat_member": {
            "chat": GROUP, "from": ALICE, "date": int(time.time()),
            "old_chat_member": {"status": old, "user": bot_member, "until_date": 0},
            "new_chat_member": {"status": new, "user": bot_member, "until_date": 0}}})

    await membership("member", "left")
    clock.advance(29 * 86400)
    await membership("left", "member")  # back within 30 days: the decks stay
    clock.advance(2 * 86400)
    await group_bot.core.tick()
    assert await group_bot.count("decks") == 1
    await membership("member", "kicked")
    clock.advance(30 * 86400 + 60)
    await group_bot.core.tick()
    assert await group_bot.count("decks") == 0


async def test_the_open_daily_question_of_a_removed_deck_is_still_revealed(group_bot: Harness, api: FakeBotApi,
                                                                           clock) -> None:
    one = b"Which optimiser keeps per-parameter step sizes? {=Adam ~SGD ~Plain gradient descent " \
          b"####Adam scales by a running RMS.}\n"
    await upload(group_bot, ALICE, "week-1", "week.gift", one)
    await group_bot.command(ALICE, GROUP, "/daily deck:week-1")
    question = api.last(GROUP_ID)
    assert "Which optimiser" in question.html and question.data
    asked = await group_bot.core.db.fetch_one("SELECT option_order FROM asked_questions")
    right = "abc"[[int(c) for c in asked["option_order"]].index(0)]
    [tapped] = [data for data in question.data if data.endswith(f":{right}")]
    await group_bot.click(BOB, question, tapped)
    await group_bot.command(ALICE, GROUP, "/deck remove week-1")
    confirm = api.last(GROUP_ID)
    assert "still finishes" in shown(confirm)
    await group_bot.click(ALICE, confirm, confirm.data[0])
    assert shown(confirm).startswith("Deck week-1 is removed.") and "still revealed at" in shown(confirm)
    await group_bot.command(ALICE, GROUP, "/deck list")
    assert "no decks yet" in shown(api.last(GROUP_ID))
    await group_bot.click(CAROL, question, tapped)
    assert group_bot.popups()[-1][0].startswith("✅"), "the open question still takes answers"
    clock.advance(12 * 3600 + 1)
    await group_bot.core.tick()
    revealed = shown(question)
    assert question.markup is None and "Adam scales by a running RMS." in revealed, revealed
    assert "2 answered, 100% right" in revealed and "Bob" in revealed and "Carol" in revealed, revealed
    assert await group_bot.count("decks") == 0, "deleted once revealed"


async def test_a_private_interview_on_a_removed_deck_ends_with_a_line_and_the_report(group_bot: Harness,
                                                                                     api: FakeBotApi) -> None:
    await upload(group_bot, ALICE, "week-1", "optimisers.gift", FILES["gift"].data)
    await group_bot.command(ALICE, private(ALICE), "/interview deck:week-1 3")
    question = api.last(ALICE["id"])
    assert question.data, shown(question)
    await group_bot.click(ALICE, question, question.data[0])
    second = api.last(ALICE["id"])
    assert second is not question and second.data, "the second question"
    await group_bot.command(ALICE, GROUP, "/deck remove week-1")
    confirm = api.last(GROUP_ID)
    await group_bot.click(ALICE, confirm, confirm.data[0])
    assert "finish normally" in shown(confirm), shown(confirm)
    await group_bot.click(ALICE, second, second.data[0])
    assert not group_bot.popups()[-1][1], "the answer counts: no refusal alert"
    report = shown(api.last(ALICE["id"]))
    assert "The group removed this deck, so the interview ends here." in report, report
    assert re.search(r"Score: [0-2]/2 ", report), "the report of the two answers"
