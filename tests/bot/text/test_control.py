"""Control characters: found, stripped for a terminal, escaped in error lines; newlines and tabs are text."""

from __future__ import annotations

from bot.text.control import first_control, strip_control, visible


def test_c0_del_and_c1_are_control_but_newline_and_tab_are_text() -> None:
    assert first_control("a\nb\tc ş ğ ı") is None
    for char, name in (("\x1b", "U+001B"), ("\x00", "U+0000"), ("\x7f", "U+007F"), ("\x9b", "U+009B"), ("\r", "U+000D")):
        assert first_control(f"ok{char}") == name
    assert strip_control("\x1b[31mred\x1b]0;title\x07\n\tx\x00") == "[31mred]0;title\n\tx"
    assert visible("a\x1b[2J\nb") == "a\\x1b[2J\\nb"
