"""Each reader on files written here: the questions it finds, and a table of bad input -> the line it names."""

from __future__ import annotations

import json

import pytest

from bot.formats import csv, gift, moodle, opentdb
from bot.formats.model import FormatError, ImportedQuestion

GIFT = """// a plain comment is skipped
$CATEGORY: $course$/ML basics

// interview-bot: difficulty=3 seniority=senior tags=sgd,momentum
::momentum:: What does momentum add to SGD \\{ a plain update \\}? {
  =A running average of past gradients #Right: it smooths the steps.
  ~A curvature estimate
  ~%0%A learning-rate schedule
  ####Momentum keeps an exponential average of gradients.\\nIt damps oscillation.
}

Adam is a first-order optimiser. {TRUE}

::per-answer feedback:: [html]<p>Which norm does <code>weight_decay</code> in SGD penalise?</p> {
  ~L1 #No: that would be a sign of the weight.
  =L2 #Yes: the gradient gains lambda times w.
}

Dropout is active at inference time. {F####Dropout is off in eval mode.}
"""


def test_gift_reads_choices_true_false_feedback_and_meta() -> None:
    momentum, adam, norm, dropout = gift.read(GIFT.encode(), "q.gift")
    assert momentum == ImportedQuestion(
        "What does momentum add to SGD { a plain update }?",
        ("A running average of past gradients", "A curvature estimate", "A learning-rate schedule"), 0,
        "Momentum keeps an exponential average of gradients.\nIt damps oscillation.", 3, ("sgd", "momentum"),
        "senior", "q.gift:5")
    assert (adam.options, adam.key, adam.explanation, adam.origin) == (("True", "False"), 0, "", "q.gift:12")
    assert norm.stem == "Which norm does `weight_decay` in SGD penalise?"
    assert norm.key == 1 and norm.explanation == "Yes: the gradient gains lambda times w."
    assert (dropout.key, dropout.explanation) == (1, "Dropout is off in eval mode.")


def test_gift_true_false_in_turkish() -> None:
    (question,) = gift.read(b"Adam birinci dereceden bir y\xc3\xb6ntemdir. {T}", "q.gift", "tr")
    assert question.options == ("Doğru", "Yanlış") and question.key == 0


@pytest.mark.parametrize(("text", "expected"), [
    ("First. {=a ~b}\n\nNo answers here.\n", "q.gift:3: no answers"),
    ("::x:: Short answer. {=yes =sure}\n", "q.gift:1: a short-answer question"),
    ("\n\nNumeric. {#3.14:0.01}\n", "q.gift:3: a numeric question"),
    ("Match. {=a -> 1 =b -> 2 =c -> 3}\n", "q.gift:1: a matching question"),
    ("One answer. {=only}\n", "q.gift:1: a short-answer question"),
    ("Essay. {}\n", "q.gift:1: an essay"),
    ("Two keys. {=a =b ~c}\n", "q.gift:1: 2 right answers"),
    ("Half credit. {~%50%a ~%50%b}\n", "q.gift:1: 0 right answers"),
    ("Two blocks. {=a ~b} and {=c ~d}\n", "q.gift:1: more than one answer block"),
    ("// interview-bot: level=9\nQ. {=a ~b}\n", "q.gift:2: // interview-bot: 'level=9'"),
    ("// only comments\n", "q.gift:1: no questions found"),
])
def test_gift_bad_input_names_its_line(text: str, expected: str) -> None:
    with pytest.raises(FormatError) as error:
        gift.read(text.encode(), "q.gift")
    assert str(error.value).startswith(expected), str(error.value)


def test_gift_refuses_binary_and_reports_every_problem() -> None:
    with pytest.raises(FormatError, match=r"q.gift:2: not UTF-8"):
        gift.read(b"Fine. {=a ~b}\n\xff\xfe", "q.gift")
    with pytest.raises(FormatError) as error:
        gift.read(b"One. {=a =b ~c}\n\nTwo. {}\n", "q.gift")
    assert error.value.problems[0].startswith("q.gift:1:") and error.value.problems[1].startswith("q.gift:3:")


OPENTDB = {"response_code": 0, "results": [
    {"type": "multiple", "difficulty": "hard", "category": "Science: Computers",
     "question": "Which activation is &quot;ReLU&quot; short for &amp; where&#039;s it zero?",
     "correct_answer": "Rectified linear unit; below 0", "incorrect_answers": ["Regularised &lt;linear&gt; unit",
                                                                                "Recurrent linear unit", "Ridge"]},
    {"type": "boolean", "difficulty": "easy", "category": "Science: Computers",
     "question": "A sigmoid&#039;s output lies in (0, 1).", "correct_answer": "True", "incorrect_answers": ["False"]},
    {"type": "boolean", "difficulty": "medium", "category": "",
     "question": "tanh is zero-centred only for positive inputs.", "correct_answer": "False",
     "incorrect_answers": ["True"]},
]}


def test_opentdb_decodes_entities_and_turns_booleans_into_two_options() -> None:
    relu, sigmoid, tanh = opentdb.read(json.dumps(OPENTDB).encode(), "t.json")
    assert relu.stem == "Which activation is \"ReLU\" short for & where's it zero?"
    assert sorted(relu.options) == sorted(["Rectified linear unit; below 0", "Regularised <linear> unit",
                                           "Recurrent linear unit", "Ridge"])
    assert relu.options[relu.key] == "Rectified linear unit; below 0"
    assert (relu.difficulty, relu.tags, relu.origin) == (3, ("science-computers",), "t.json: results[0]")
    assert (sigmoid.options, sigmoid.key, sigmoid.difficulty) == (("True", "False"), 0, 1)
    assert (tanh.key, tanh.tags) == (1, ())
    assert opentdb.read(json.dumps(OPENTDB).encode(), "t.json") == [relu, sigmoid, tanh]  # a stable order


@pytest.mark.parametrize(("document", "expected"), [
    ('{"results": [', "t.json:1: not valid JSON"),
    ("[" * 100_000 + "]" * 100_000, "t.json:1: not valid JSON: nested too deeply"),
    ('{"response_code": 1, "results": []}', "t.json:1: no questions found"),
    ('{"results": {}}', "t.json:1: expected an object with a results list"),
    ('{"results": [{"question": "Q", "correct_answer": "a", "incorrect_answers": ["b"]}, 7]}',
     "t.json: results[1]: must be an object"),
    ('{"results": [{"question": "Q", "correct_answer": "a", "incorrect_answers": []}]}',
     "t.json: results[0]: incorrect_answers"),
    ('{"results": [{"question": "Q", "correct_answer": "a", "incorrect_answers": ["b"], "difficulty": "x"}]}',
     "t.json: results[0]: difficulty"),
    ('{"results": [{"type": "boolean", "question": "Q", "correct_answer": "Yes", "incorrect_answers": ["No"]}]}',
     "t.json: results[0]: a boolean question's answers must be True and False"),
    ('{"results": [{"question": "Q", "correct_answer": "a", "incorrect_answers": ["a", "b"]}]}',
     "t.json: results[0]: correct_answer 'a' is also among"),
])
def test_opentdb_bad_input_names_the_question(document: str, expected: str) -> None:
    with pytest.raises(FormatError) as error:
        opentdb.read(document.encode(), "t.json")
    assert str(error.value).startswith(expected), str(error.value)


MOODLE = """<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="category"><category><text>$course$/ML</text></category></question>
  <question type="multichoice">
    <name><text>bn</text></name>
    <questiontext format="html"><text><![CDATA[<p>What does <b>batch norm</b> normalise over?</p>
<pre>y = (x - mean) / std</pre>]]></text></questiontext>
    <generalfeedback format="html"><text>&lt;p&gt;Per feature, over the batch.&lt;/p&gt;</text></generalfeedback>
    <single>true</single>
    <answer fraction="0" format="html"><text>Each sample's features</text></answer>
    <answer fraction="100" format="html"><text><![CDATA[The batch, per <code>feature</code>]]></text>
      <feedback><text>Right.</text></feedback></answer>
    <answer fraction="0" format="html"><text>The whole dataset</text></answer>
    <tags><tag><text>Batch Norm</text></tag></tags>
  </question>
  <question type="truefalse">
    <questiontext format="moodle_auto_format"><text>L2 regularisation shrinks weights.</text></questiontext>
    <answer fraction="0"><text>false</text></answer>
    <answer fraction="100"><text>true</text><feedback><text>Yes.</text></feedback></answer>
  </question>
</quiz>
"""


def test_moodle_reads_multichoice_and_truefalse_with_html() -> None:
    norm, l2 = moodle.read(MOODLE.encode(), "m.xml")
    assert norm.stem == "What does **batch norm** normalise over?\n\n```text\ny = (x - mean) / std\n```"
    assert norm.options == ("Each sample's features", "The batch, per `feature`", "The whole dataset")
    assert (norm.key, norm.explanation, norm.tags, norm.origin) == (1, "Per feature, over the batch.",
                                                                    ("batch-norm",), "m.xml:4")
    assert (l2.stem, l2.options, l2.key, l2.origin) == ("L2 regularisation shrinks weights.", ("True", "False"), 0,
                                                        "m.xml:16")


@pytest.mark.parametrize(("document", "expected"), [
    ("<quiz><question type='multichoice'>", "m.xml:1: not valid XML"),
    ("<root/>", "m.xml:1: expected a <quiz> element"),
    ('<!DOCTYPE quiz [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>\n<quiz>&b;</quiz>', "m.xml:1: refused"),
    ("<quiz>\n<question type='essay'><questiontext><text>Why?</text></questiontext></question></quiz>",
     "m.xml:2: a essay question"),
    ("<quiz>\n\n<question type='multichoice'><questiontext><text>Q</text></questiontext>"
     "<answer fraction='100'><text>a</text></answer><answer fraction='100'><text>b</text></answer></question></quiz>",
     "m.xml:3: 2 answers with fraction=100"),
    ("<quiz><question type='multichoice'><questiontext><text></text></questiontext></question></quiz>",
     "m.xml:1: <questiontext> is missing or empty"),
    ("<quiz>\n<question type='multichoice'><questiontext><text>Q</text></questiontext>\n"
     "<answer fraction='lots'><text>a</text></answer></question></quiz>", "m.xml:3: <answer fraction=...>"),
    ("<quiz>" + "<a>" * 100 + "</a>" * 100 + "</quiz>", "m.xml:1: not valid XML: elements nested deeper"),
])
def test_moodle_bad_input_names_its_line(document: str, expected: str) -> None:
    with pytest.raises(FormatError) as error:
        moodle.read(document.encode(), "m.xml")
    assert str(error.value).startswith(expected), str(error.value)


CSV = """stem,options,key,explanation,difficulty,tags
"Which loss suits
binary labels?",Hinge|Binary cross-entropy|MSE,b,Log-loss matches a Bernoulli likelihood.,easy,losses|classification
Which separator is a bar?,a \\| b|a / b,A,,3,
"""


def test_csv_reads_rows_with_multiline_fields_and_escaped_bars() -> None:
    loss, bar = csv.read(CSV.encode(), "q.csv")
    assert loss == ImportedQuestion("Which loss suits\nbinary labels?", ("Hinge", "Binary cross-entropy", "MSE"), 1,
                                    "Log-loss matches a Bernoulli likelihood.", 1, ("losses", "classification"),
                                    None, "q.csv:2")
    assert (bar.options, bar.key, bar.explanation, bar.difficulty, bar.origin) == (("a | b", "a / b"), 0, "", 3,
                                                                                   "q.csv:4")


@pytest.mark.parametrize(("text", "expected"), [
    ("question,options,key\nQ,a|b,a\n", "q.csv:1: header: missing column 'stem'"),
    ("stem,options,key,answer\nQ,a|b,a,x\n", "q.csv:1: header: unknown column 'answer'"),
    ("stem,options,key\nQ,a|b,a\nQ2,a|b,c\n", "q.csv:3: key: the letter of the right option (a to b)"),
    ("stem,options,key\nQ,a||b,a\n", "q.csv:2: options"),
    ("stem,options,key\n,a|b,a\n", "q.csv:2: stem: empty"),
    ("stem,options,key,difficulty\nQ,a|b,a,extreme\n", "q.csv:2: difficulty"),
    ("stem,options,key,seniority\nQ,a|b,a,intern\n", "q.csv:2: seniority"),
    ("stem,options,key\nQ,a|b,a,surplus\n", "q.csv:2: more fields than the header"),
    ("stem,options,key\n", "q.csv:1: no questions found"),
])
def test_csv_bad_input_names_its_line(text: str, expected: str) -> None:
    with pytest.raises(FormatError) as error:
        csv.read(text.encode(), "q.csv")
    assert str(error.value).startswith(expected), str(error.value)


def test_csv_list_escapes_round_trip() -> None:
    items = ["plain", "a | bar", "back\\slash", "both \\| of them"]
    assert csv.split_list(csv.join_list(items)) == items


def test_opentdb_base64_and_url3986_encodings_read_like_the_default() -> None:
    import base64
    import html
    import urllib.parse

    plain = opentdb.read(json.dumps(OPENTDB).encode(), "t.json")

    def encoded(encode) -> bytes:  # noqa: ANN001
        def each(value):  # noqa: ANN001, ANN202
            if isinstance(value, list):
                return [each(part) for part in value]
            return encode(html.unescape(value))
        return json.dumps({"response_code": 0, "results": [{key: each(value) for key, value in item.items()}
                                                            for item in OPENTDB["results"]]}).encode()

    as_base64 = opentdb.read(encoded(lambda text: base64.b64encode(text.encode()).decode()), "t.json")
    as_url = opentdb.read(encoded(lambda text: urllib.parse.quote(text, safe="")), "t.json")
    assert [q.stem for q in as_base64] == [q.stem for q in as_url] == [q.stem for q in plain]
    assert [sorted(q.options) for q in as_base64] == [sorted(q.options) for q in plain]
    assert [q.options[q.key] for q in as_url] == [q.options[q.key] for q in plain]
    with pytest.raises(FormatError, match=r"results\[0\]: looks base64-encoded but does not decode"):
        opentdb.read(b'{"results": [{"type": "bXVsdGlwbGU=", "question": "%%%"}]}', "t.json")


def test_the_right_answers_true_false_feedback_becomes_the_explanation() -> None:
    (tf,) = gift.read(b"Adam is first-order. {TRUE#No: it uses gradients only.#Right: gradients only.}", "q.gift")
    assert (tf.key, tf.explanation) == (0, "Right: gradients only.")
    (general,) = gift.read(b"Adam is first-order. {T#wrong#right####General.}", "q.gift")
    assert general.explanation == "General."
    _, l2 = moodle.read(MOODLE.encode(), "m.xml")
    assert l2.explanation == "Yes."


@pytest.mark.parametrize(("text", "line"), [
    ('stem,options,key\nFine?,a|b,a\n"Broken,a|b,a\nNext?,a|b,b\nLast?,c|d,a\n', 3),
    ('stem,options,key\nFine?,a|b,a\n\n\n"Next?" x,a|b,b\nLast?,c|d,a\n', 5),
])
def test_an_unbalanced_csv_quote_is_reported_at_its_rows_line(text: str, line: int) -> None:
    with pytest.raises(FormatError) as error:
        csv.read(text.encode(), "q.csv")
    assert str(error.value).startswith(f"q.csv:{line}: not valid CSV"), str(error.value)
