"""Neutral messages as Telegram HTML: escaped, balanced, within the limits, buttons within 64 bytes."""

from __future__ import annotations

import pytest

from adapters.telegram.menus import count_menu, level_menu, parse_menu, topic_menu
from adapters.telegram.render import CAPTION_LIMIT, MESSAGE_LIMIT, render, table_text, telegram_length
from bot.bank import load_bank
from bot.daily.view import reveal_message
from bot.domain import AskedQuestion
from bot.asking.delivery import Delivery
from bot.interview.engine import AnswerResult
from bot.text.messages import Button, CodeBlock, Message, OptionLine, OptionList, Paragraph, Table
from bot.asking.view import question_message
from bot.interview.view import result_message
from bot.store.daily import PostStats
from tests.adapters.telegram.fake_bot_api import BadHtml, visible_text

HUGE_ASKED_ID = 999_999_999_999  # the largest id a token may carry


def parts(message: Message) -> list[str]:
    rendered = render(message)
    return [*([rendered.caption] if rendered.caption else []), *rendered.texts]


def test_everything_is_escaped_and_styled() -> None:
    message = Message((Paragraph("Title with `a<b>` & **bold**", "title"),
                       Paragraph("x < y && `z>0` **<i>**"), Paragraph("note", "muted"),
                       CodeBlock("if a < b and c > d:\n    print('&')", "python"), CodeBlock("plain <pre>"),
                       OptionList((OptionLine("a", "`1 < 2`", "correct"), OptionLine("b", "<b>", "wrong")))))
    [text] = parts(message)
    assert "<b>Title with <code>a&lt;b&gt;</code> &amp; bold</b>" in text
    assert "x &lt; y &amp;&amp; <code>z&gt;0</code> <b>&lt;i&gt;</b>" in text and "<i>note</i>" in text
    assert '<pre><code class="language-python">if a &lt; b and c &gt; d:\n    print(\'&amp;\')</code></pre>' in text
    assert "<pre>plain &lt;pre&gt;</pre>" in text
    assert "✅ <b>A.</b> <code>1 &lt; 2</code>\n❌ <b>B.</b> &lt;b&gt;" in text
    visible_text(text)


def test_tables_are_aligned_in_pre() -> None:
    table = Table(("phase", "ms"), (("input `wait`", "40"), ("compute", "160")))
    assert table_text(table).split("\n") == ["phase       ms", "──────────  ───", "input wait  40", "compute     160"]
    assert parts(Message((table,))) == ["<pre>" + table_text(table) + "</pre>"]


def test_long_messages_are_split_into_valid_parts() -> None:
    code = "\n".join(f"x_{i} = {i} < {i + 1}  # & more" for i in range(600))
    message = Message((Paragraph("intro " * 900), CodeBlock(code, "python"), Paragraph("word " * 2000),
                       Table(("a", "b"), tuple((str(i), "<" * 40) for i in range(300)))),
                      ((Button("A", "a:1:a"),),))
    rendered = render(message)
    assert len(rendered.texts) > 4
    for text in rendered.texts:
        assert telegram_length(text) <= MESSAGE_LIMIT
        visible_text(text)
    assert rendered.keyboard is not None


def test_an_image_takes_a_short_caption_or_comes_before_the_text() -> None:
    short = render(Message((Paragraph("chart"),), image=b"\x89PNG"))
    assert short.caption == "chart" and short.texts == ()
    long = render(Message((Paragraph("x" * (CAPTION_LIMIT + 10)),), image=b"\x89PNG"))
    assert long.caption is None and len(long.texts) == 1


def test_the_fake_refuses_what_telegram_refuses() -> None:
    for bad in ("<b>open", "<b><i>crossed</b></i>", "<script>x</script>", "a < b", "fish & chips", "</b>"):
        with pytest.raises(BadHtml):
            visible_text(bad)
    assert visible_text("<b>a &lt; b</b> &amp; <code>c</code>") == "a < b & c"


@pytest.fixture(scope="module")
def shipped():
    return load_bank()


@pytest.mark.parametrize("language", ["en", "tr"])
def test_every_shipped_question_renders_within_the_limits(shipped, language: str) -> None:
    for question in shipped.questions.values():
        order = tuple(range(len(question.options)))
        asked = AskedQuestion(HUGE_ASKED_ID, question.id, 1, 1, 0, order, 0.0, 60.0, None)
        delivery = Delivery(asked, question, 10, 10, language, 1)
        wrong = next(i for i in order if i != question.correct_index)
        messages = [question_message(shipped, delivery),
                    result_message(shipped, AnswerResult(delivery, wrong, False, None, None)),
                    reveal_message(shipped, Delivery(asked, question, 1, 1, language, None),
                                   PostStats(12, 7, (("Ayşe Yılmaz", 2300),)))]
        for message in messages:
            for text in parts(message):
                assert telegram_length(text) <= MESSAGE_LIMIT, question.id
                visible_text(text)
            for row in message.buttons:
                for button in row:
                    assert len(button.token.encode()) <= 64


@pytest.mark.parametrize("language", ["en", "tr"])
def test_menu_buttons_carry_ids_within_64_bytes(shipped, language: str) -> None:
    last_topic = str(len(shipped.topics) - 1)
    menus = [topic_menu(shipped, language), level_menu(language, last_topic), count_menu(language, "*", 3)]
    for menu in menus:
        visible_text(parts(menu)[0])
        tokens = [button.token for row in menu.buttons for button in row]
        assert all(len(token.encode()) <= 64 and parse_menu(shipped, token) is not None for token in tokens)


def test_inline_values_a_time_in_the_chats_zone_and_commands_to_tap_or_copy() -> None:
    from bot.text.messages import CommandHint, Moment

    message = Message((Paragraph("Answer revealed: {slot}.", "muted", Moment(1_800_000_000, "21:00, Europe/Istanbul")),
                       Paragraph("Due <now>: {slot}", inline=CommandHint("review")),
                       Paragraph("Weakest: {slot}", inline=CommandHint("interview", "sync-basics"))))
    [text] = parts(message)
    assert text == ("<i>Answer revealed: 21:00, Europe/Istanbul.</i>\n\nDue &lt;now&gt;: /review\n\n"
                    "Weakest: <code>/interview sync-basics</code>")
