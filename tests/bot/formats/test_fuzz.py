"""Strangers' files: whatever bytes come in, a reader returns questions or a FormatError, never a traceback;
and whatever it returns, the writer turns into a valid topic file or a FormatError."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.formats import csv, gift, moodle, opentdb
from bot.formats.bank_file import Target, build_topic_file
from bot.formats.model import FormatError

READERS = {"opentdb": opentdb.read, "gift": gift.read, "moodle": moodle.read, "csv": csv.read}
# Pieces of each format, so random text often gets past the first check and into the parsers' depths.
PIECES = ["{", "}", "=", "~", "#", "####", "::", "\\", "\n", "\n\n", "%100%", "%50%", "[html]", "<p>", "T", "//",
          "// interview-bot: difficulty=2 tags=a", "$CATEGORY: x", ",", "|", '"', "a", "stem,options,key\n",
          '{"results": [', '{"question": "q", "correct_answer": "a", "incorrect_answers": ["b"]}', "]}", "&amp;",
          '<quiz><question type="multichoice"><questiontext><text>', "</text></questiontext>",
          '<answer fraction="100"><text>', "</text></answer>", "</question></quiz>", "\x00", "é", "```"]
texts = st.lists(st.sampled_from(PIECES) | st.text(max_size=8), max_size=40).map("".join)


@pytest.mark.parametrize("source", sorted(READERS))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=texts, raw=st.binary(max_size=64))
def test_any_input_is_questions_or_one_clear_error(source: str, text: str, raw: bytes) -> None:
    for data in (text.encode("utf-8", "surrogatepass"), raw):
        try:
            questions = READERS[source](data, "f", "en")
        except FormatError as error:
            assert error.problems and all(problem.startswith(("f:", "f: ")) for problem in error.problems)
            continue
        assert questions
        try:
            build_topic_file(questions, Target("fuzz", source))
        except FormatError as error:
            assert all(problem.startswith(("f:", "f: ", "fuzz.yaml")) for problem in error.problems), error.problems
