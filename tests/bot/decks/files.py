"""Deck files of every format a group may upload: good ones (three questions each, one without an
explanation) and broken ones, each with the line its first problem is reported at."""

from __future__ import annotations

YAML = """role: ml-engineer
specialty: study-group
topic: week-one
title:
  en: Week one
questions:
  - id: w-1
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
  - id: w-2
    difficulty: 2
    seniority: mid
    text:
      en: What does dropout do at inference time?
    options:
      - en: Nothing; every unit is kept
        correct: true
      - en: It drops half the units
    explanation:
      en: Dropout is a training-time regulariser.
  - id: w-3
    difficulty: 3
    seniority: senior
    text:
      en: Which optimiser keeps per-parameter second moments?
    options:
      - en: SGD
      - en: Adam
        correct: true
    explanation:
      en: Adam keeps running means of gradients and of their squares.
"""

GIFT = """// interview-bot: difficulty=1
::g1::Which split is a scaler fitted on? {
  =The training split
  ~The whole data set
  ####Anything else leaks test statistics.
}

// interview-bot: difficulty=2
::g2::What does dropout do at inference time? {
  =Nothing; every unit is kept
  ~It drops half the units
  ####Dropout is a training-time regulariser.
}

// interview-bot: difficulty=3
::g3::Which optimiser keeps per-parameter second moments? {
  ~SGD
  =Adam
}
"""

MOODLE = """<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="multichoice">
    <questiontext format="html"><text>Which split is a scaler fitted on?</text></questiontext>
    <generalfeedback format="html"><text>Anything else leaks test statistics.</text></generalfeedback>
    <answer fraction="100"><text>The training split</text></answer>
    <answer fraction="0"><text>The whole data set</text></answer>
  </question>
  <question type="multichoice">
    <questiontext format="html"><text>What does dropout do at inference time?</text></questiontext>
    <generalfeedback format="html"><text>Dropout is a training-time regulariser.</text></generalfeedback>
    <answer fraction="100"><text>Nothing; every unit is kept</text></answer>
    <answer fraction="0"><text>It drops half the units</text></answer>
  </question>
  <question type="multichoice">
    <questiontext format="html"><text>Which optimiser keeps per-parameter second moments?</text></questiontext>
    <answer fraction="0"><text>SGD</text></answer>
    <answer fraction="100"><text>Adam</text></answer>
  </question>
</quiz>
"""

OPENTDB = """{"response_code": 0, "results": [
 {"type": "multiple", "difficulty": "easy", "category": "ML", "question": "Which split is a scaler fitted on?",
  "correct_answer": "The training split", "incorrect_answers": ["The whole data set"]},
 {"type": "multiple", "difficulty": "medium", "category": "ML", "question": "What does dropout do at inference time?",
  "correct_answer": "Nothing; every unit is kept", "incorrect_answers": ["It drops half the units"]},
 {"type": "multiple", "difficulty": "hard", "category": "ML",
  "question": "Which optimiser keeps per-parameter second moments?",
  "correct_answer": "Adam", "incorrect_answers": ["SGD"]}
]}
"""

CSV = """stem,options,key,explanation,difficulty,tags
Which split is a scaler fitted on?,The training split|The whole data set,A,Anything else leaks test statistics.,easy,
What does dropout do at inference time?,Nothing; every unit is kept|It drops half the units,A,Dropout is a training-time regulariser.,medium,
Which optimiser keeps per-parameter second moments?,SGD|Adam,B,,hard,
"""

GOOD = {"yaml": ("week.yaml", YAML), "gift": ("week.gift", GIFT), "moodle": ("week.xml", MOODLE),
        "opentdb": ("week.json", OPENTDB), "csv": ("week.csv", CSV)}

# (file name, content, a line of the reply): a broken file of each format, its problem at its line
BROKEN = {
    "yaml": ("bad.yaml", YAML.replace("      - en: The whole data set\n", "      - en: The training split\n", 1),
             "line 15:"),
    "gift": ("bad.gift", GIFT.replace("  ~It drops half the units\n", "  ~It drops half the units\n  =Also right\n"),
             "line 9:"),
    "moodle": ("bad.xml", MOODLE.replace('<answer fraction="0"><text>SGD</text></answer>',
                                         '<answer fraction="100"><text>SGD</text></answer>'), "line 15:"),
    "opentdb": ("bad.json", OPENTDB.replace('"correct_answer": "Adam", ', ''), "question 3:"),
    "csv": ("bad.csv", CSV.replace("SGD|Adam,B", "SGD|Adam,Z"), "line 4:"),
}
