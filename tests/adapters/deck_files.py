"""Deck files as a study group would upload them, one per format `questions import` reads, each with a
broken twin whose problem sits on a known line (the adapters' deck tests send both through the platforms)."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class DeckFile:
    """A file to upload: its name, its bytes, how many questions it holds, and a broken twin with the
    line (or question number) its first problem names."""

    filename: str
    data: bytes
    count: int
    broken: bytes
    broken_at: str  # the start of the first problem line the uploader must see, e.g. "line 4:"


YAML = """role: ml-engineer
specialty: study-group
topic: week-1
title:
  en: Week 1
questions:
  - id: w1-001
    difficulty: 1
    seniority: junior
    text:
      en: Which split is a scaler fitted on?
    options:
      - en: The training split
        correct: true
      - en: The whole data set
    explanation:
      en: Anything else leaks test statistics.
  - id: w1-002
    difficulty: 2
    seniority: mid
    text:
      en: What does an all-reduce with sum leave on every rank?
    options:
      - en: The sum over all ranks
        correct: true
      - en: Its own value
      - en: Rank 0's value
    explanation:
      en: Every rank ends with the same total.
"""
YAML_BROKEN = YAML.replace("      - en: Its own value\n", "      - en: The sum over all ranks\n")  # line 26

GIFT = """// interview-bot: difficulty=1
Which optimiser keeps per-parameter step sizes? {=Adam ~SGD ~Plain gradient descent ####Adam scales by a running RMS.}

Weight decay adds a penalty on the weights. {T}

// interview-bot: difficulty=3
Which collective ends with every rank holding the full sum? {=All-reduce ~Reduce ~Scatter}
"""
GIFT_BROKEN = GIFT + "\nShort answer? {=yes =sure}\n"  # line 9: two right answers, no wrong one

MOODLE = """<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="multichoice">
    <questiontext format="html"><text>What does batch norm normalise over?</text></questiontext>
    <generalfeedback format="html"><text>Per feature, over the batch.</text></generalfeedback>
    <single>true</single>
    <answer fraction="0"><text>Each sample's features</text></answer>
    <answer fraction="100"><text>The batch, per feature</text></answer>
    <answer fraction="0"><text>The whole dataset</text></answer>
  </question>
  <question type="truefalse">
    <questiontext format="moodle_auto_format"><text>L2 regularisation shrinks weights.</text></questiontext>
    <answer fraction="0"><text>false</text></answer>
    <answer fraction="100"><text>true</text></answer>
  </question>
</quiz>
"""
MOODLE_BROKEN = MOODLE.replace('<question type="truefalse">', '<question type="essay">')  # line 11

OPENTDB = json.dumps({"response_code": 0, "results": [
    {"type": "multiple", "difficulty": "hard", "category": "Science: Computers",
     "question": "What is &quot;ReLU&quot; short for?", "correct_answer": "Rectified linear unit",
     "incorrect_answers": ["Regularised linear unit", "Recurrent linear unit", "Ridge"]},
    {"type": "boolean", "difficulty": "easy", "category": "Science: Computers",
     "question": "A sigmoid&#039;s output lies in (0, 1).", "correct_answer": "True", "incorrect_answers": ["False"]},
]})
OPENTDB_BROKEN = json.dumps({"response_code": 0, "results": [
    {"type": "multiple", "difficulty": "easy", "question": "Fine?", "correct_answer": "a", "incorrect_answers": ["b"]},
    {"type": "multiple", "difficulty": "easy", "question": "Q", "correct_answer": "a", "incorrect_answers": []},
]})  # question 2: no incorrect answers

CSV = """stem,options,key,explanation,difficulty,tags
Which loss suits binary labels?,Hinge|Binary cross-entropy|MSE,b,Log-loss matches a Bernoulli likelihood.,easy,losses
Which separator is a bar?,a \\| b|a / b,A,,3,
"""
CSV_BROKEN = CSV + "Which key is out of range?,a|b,c,,1,\n"  # line 4

FILES = {
    "yaml": DeckFile("week-1.yaml", YAML.encode(), 2, YAML_BROKEN.encode(), "line 26:"),
    "gift": DeckFile("optimisers.gift", GIFT.encode(), 3, GIFT_BROKEN.encode(), "line 9:"),
    "moodle": DeckFile("batch-norm.xml", MOODLE.encode(), 2, MOODLE_BROKEN.encode(), "line 11:"),
    "opentdb": DeckFile("trivia.json", OPENTDB.encode(), 2, OPENTDB_BROKEN.encode(), "question 2:"),
    "csv": DeckFile("losses.csv", CSV.encode(), 2, CSV_BROKEN.encode(), "line 4:"),
}
