"""Neutral messages as embeds and buttons within Discord's limits."""

from __future__ import annotations

from adapters.discord.render import render
from bot.text.messages import Button, CodeBlock, Message, OptionLine, OptionList, Paragraph, Table


def embed_dicts(message: Message) -> list[list[dict]]:
    return [[embed.to_dict() for embed in part.embeds] for part in render(message)]


def test_markdown_is_kept_for_code_and_bold_and_escaped_elsewhere() -> None:
    [[embed]] = embed_dicts(Message((Paragraph("Scale `x_train` with **care**: a_b * c"),)))
    assert embed["description"] == "Scale `x_train` with **care**: a\\_b \\* c"


def test_a_question_has_its_header_in_the_footer_and_code_in_python_fences() -> None:
    message = Message((Paragraph("Question 1/5 · Profiling · hard", "title"), Paragraph("What prints?"),
                       CodeBlock("print(1)"), Paragraph("You have 30 s.", "muted")),
                      ((Button("A. 1", "a:7:a"), Button("B. 2", "a:7:b")),))
    [part] = render(message)
    embed = part.embeds[0].to_dict()
    assert "title" not in embed and embed["footer"]["text"] == "Question 1/5 · Profiling · hard\nYou have 30 s."
    assert embed["description"] == "What prints?\n\n```python\nprint(1)\n```"
    components = part.view().to_components()
    assert [c["custom_id"] for c in components[0]["components"]] == ["a:7:a", "a:7:b"]


def test_options_tables_and_titles() -> None:
    message = Message((Paragraph("Report", "title"), OptionList((OptionLine("a", "one", "correct"),
                                                                 OptionLine("b", "two", "wrong"))),
                       Table(("#", "Name"), (("1", "Ada"),))))
    [[embed]] = embed_dicts(message)
    assert embed["title"] == "Report"
    assert "**A.** one ✅\n**B.** two ❌" in embed["description"]
    assert "```\n#  Name\n-  ----\n1  Ada\n```" in embed["description"]


def test_long_content_is_split_within_the_limits() -> None:
    paragraphs = tuple(Paragraph(f"{n} " + "word " * 300) for n in range(30))
    parts = embed_dicts(Message((Paragraph("T" * 300, "title"), *paragraphs)))
    assert parts[0][0]["title"] == "T" * 256
    for embeds in parts:
        assert len(embeds) <= 10
        assert sum(len(e.get("description", "")) + len(e.get("title", "")) for e in embeds) <= 6000
        assert all(len(e["description"]) <= 4096 for e in embeds)
    text = "".join(e["description"] for embeds in parts for e in embeds)
    assert all(f"{n} word" in text for n in range(30))


def test_a_long_code_block_is_fenced_in_every_piece() -> None:
    code = "\n".join(f"x_{n} = {n}  # " + "pad " * 20 for n in range(200))
    pieces = [e["description"] for embeds in embed_dicts(Message((CodeBlock(code),))) for e in embeds]
    assert len(pieces) > 1
    assert all(p.startswith("```python\n") and p.endswith("\n```") and len(p) <= 4096 for p in pieces)
    assert "\n".join(p[len("```python\n"):-4] for p in pieces) == code


def test_buttons_respect_discords_limits() -> None:
    rows = (tuple(Button("L" * 100, f"a:{n}:a") for n in range(1, 31)),)
    view = render(Message((Paragraph("q"),), rows))[0].view()
    components = view.to_components()
    assert len(components) == 5 and all(len(row["components"]) == 5 for row in components)
    assert all(len(button["label"]) == 80 for row in components for button in row["components"])


def test_an_image_is_attached_and_shown() -> None:
    [part] = render(Message((Paragraph("Progress", "title"),), image=b"\x89PNG"))
    assert part.embeds[-1].image.url == "attachment://chart.png"
    [file] = part.files()
    assert file.filename == "chart.png"
