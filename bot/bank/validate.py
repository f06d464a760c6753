"""The rules of a topic file, each with the message a question writer sees.

`validate_file` turns one file's text into a Topic and Questions plus every Problem found, so that a
writer fixes all of them in one pass. Rules that span files (duplicate ids) live in loader.py.
"""

from __future__ import annotations

import re
from typing import Any

from bot.bank.packed import PackedTexts
from bot.bank.problems import Problem
from bot.bank.yaml_lines import LineDict, LineList, load_yaml
from bot.domain import LANGUAGES, SENIORITIES, Option, Question, Topic, Verify
from bot.limits import EXPLANATION_MAX, ID_MAX, MESSAGE_MAX, OPTION_MAX, OPTIONS_MAX, OPTIONS_MIN, STEM_MAX
from bot.text.control import first_control
from bot.text.markup import MarkupError, parse_markup

ROLES = ("ml-engineer",)
FILE_KEYS = {"role", "specialty", "topic", "title", "questions", "imported_from"}
IMPORT_FORMATS = ("opentdb", "gift", "moodle", "csv")  # `imported_from`: its questions may lack an explanation
QUESTION_KEYS = {"id", "difficulty", "seniority", "tags", "text", "options", "explanation", "verify"}
OPTION_KEYS = {"en", "tr", "correct"}
VERIFY_KEYS = {"code", "requires", "timeout"}
KNOWN_REQUIREMENTS = {"torch", "numpy"}
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
QUESTION_ID = re.compile(rf"^[A-Za-z0-9_-]{{1,{ID_MAX}}}$")


class _Checker:
    """Collects problems for one file; every rule reports through `problem`."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.problems: list[Problem] = []

    def problem(self, line: int, field: str, message: str) -> None:
        self.problems.append(Problem(self.filename, line, field, message))

    def unknown_keys(self, mapping: LineDict, allowed: set[str], prefix: str) -> None:
        for key in mapping:
            if key not in allowed:
                expected = ", ".join(sorted(allowed))
                self.problem(mapping.key_lines[key], f"{prefix}{key}", f"unknown key (expected one of: {expected})")

    def mapping(self, value: Any, line: int, field: str) -> LineDict | None:
        if isinstance(value, LineDict):
            return value
        self.problem(line, field, f"must be a mapping, not {_kind(value)}")
        return None

    def texts(self, mapping: LineDict, key: str, field: str, limit: int, *, markup: bool) -> dict[str, str]:
        """A {tr, en} text: at least one language, known languages only, within `limit`."""
        line = mapping.key_lines.get(key, mapping.line)
        if key not in mapping or mapping[key] is None:
            self.problem(line, field, "missing (give tr and/or en)")
            return {}
        value = self.mapping(mapping[key], line, field)
        if value is None:
            return {}
        self.unknown_keys(value, set(LANGUAGES), f"{field}.")
        texts: dict[str, str] = {}
        for language in LANGUAGES:
            if language in value:
                texts[language] = self.text(value[language], value.key_lines[language], f"{field}.{language}", limit, markup=markup)
        if not value:
            self.problem(line, field, "empty: give tr and/or en")
        return {language: text for language, text in texts.items() if text}

    def text(self, value: Any, line: int, field: str, limit: int, *, markup: bool) -> str:
        if not isinstance(value, str) or not value.strip():
            self.problem(line, field, f"must be non-empty text, not {_kind(value)}")
            return ""
        if len(value) > limit:
            self.problem(line, field, f"{len(value)} characters, over the limit of {limit}")
        control = first_control(value)
        if control is not None:
            self.problem(line, field, f"holds the control character {control}: remove it (only newlines and tabs "
                                      "are allowed; control characters can drive a terminal)")
        if markup:
            try:
                parse_markup(value)
            except MarkupError as error:
                # A block scalar's text starts on the line after its key.
                self.problem(line + error.line, field, str(error))
        elif "\n" in value.strip() or "```" in value:
            self.problem(line, field, "must be a single line without code blocks")
        return value.strip()


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true/false"
    for kind, name in ((dict, "a mapping"), (list, "a list"), (str, "text"), ((int, float), "a number")):
        if isinstance(value, kind):
            return name
    return type(value).__name__


def validate_file(text: str, filename: str) -> tuple[Topic | None, list[Question], list[Problem]]:
    """Parse and check one topic file; never raises for bad input."""
    data, problems = load_yaml(text, filename)
    checker = _Checker(filename)
    checker.problems.extend(problems)
    if data is None and not problems:
        checker.problem(1, "file", "is empty")
    if data is None:
        return None, [], checker.problems
    root = checker.mapping(data, 1, "file")
    if root is None:
        return None, [], checker.problems
    topic = _topic(checker, root)
    imported = _imported_from(checker, root)
    questions: list[Question] = []
    items = root.get("questions")
    if not isinstance(items, LineList) or not items:
        checker.problem(root.key_lines.get("questions", root.line), "questions", "must be a non-empty list")
    elif topic is not None:
        for index, item in enumerate(items):
            question = _question(checker, item, items.item_lines[index], index, topic, imported=imported)
            if question is not None:
                questions.append(question)
    return topic, questions, checker.problems


def _topic(checker: _Checker, root: LineDict) -> Topic | None:
    checker.unknown_keys(root, FILE_KEYS, "")
    values: dict[str, str] = {}
    for key in ("role", "specialty", "topic"):
        value = root.get(key)
        line = root.key_lines.get(key, root.line)
        if not isinstance(value, str) or not SLUG.match(value):
            checker.problem(line, key, "required, lowercase-with-dashes (e.g. training-infrastructure)")
        else:
            values[key] = value
    if "role" in values and values["role"] not in ROLES:
        checker.problem(root.key_lines["role"], "role", f"unknown role {values['role']!r} (known: {', '.join(ROLES)})")
    title = checker.texts(root, "title", "title", 80, markup=False) if "title" in root else {}
    if len(values) < 3:
        return None
    return Topic(values["role"], values["specialty"], values["topic"], title)


def _imported_from(checker: _Checker, root: LineDict) -> bool:
    """A file written by `questions import` says from what; only there may a question lack an explanation."""
    if "imported_from" not in root:
        return False
    if root["imported_from"] not in IMPORT_FORMATS:
        checker.problem(root.key_lines["imported_from"], "imported_from",
                        f"must be one of {', '.join(IMPORT_FORMATS)}, not {root['imported_from']!r}")
        return False
    return True


def _question(checker: _Checker, item: Any, line: int, index: int, topic: Topic, *,
              imported: bool = False) -> Question | None:
    mapping = checker.mapping(item, line, f"questions[{index}]")
    if mapping is None:
        return None
    qid = mapping.get("id")
    if not isinstance(qid, str) or not QUESTION_ID.match(qid):
        checker.problem(mapping.key_lines.get("id", line), f"questions[{index}].id",
                        f"required: letters, digits, - and _, at most {ID_MAX} characters")
        qid = None
    name = qid or f"questions[{index}]"
    checker.unknown_keys(mapping, QUESTION_KEYS, f"{name}.")
    before = len(checker.problems)

    difficulty = mapping.get("difficulty")
    if isinstance(difficulty, bool) or not isinstance(difficulty, int) or not 1 <= difficulty <= 3:
        checker.problem(mapping.key_lines.get("difficulty", line), f"{name}.difficulty",
                        f"must be 1, 2 or 3, not {difficulty!r}")
    seniority = mapping.get("seniority")
    if seniority not in SENIORITIES:
        checker.problem(mapping.key_lines.get("seniority", line), f"{name}.seniority",
                        f"must be one of {', '.join(SENIORITIES)}, not {seniority!r}")
    tags = _tags(checker, mapping, name)
    stem = checker.texts(mapping, "text", f"{name}.text", STEM_MAX, markup=True)
    explanation = ({} if imported and "explanation" not in mapping else
                   checker.texts(mapping, "explanation", f"{name}.explanation", EXPLANATION_MAX, markup=True))
    options = _options(checker, mapping, name, line)
    verify = _verify(checker, mapping, name)
    _languages_agree(checker, mapping, name, line, stem, explanation, options)
    _message_fits(checker, line, name, stem, explanation, options)

    if qid is None or len(checker.problems) > before:
        return None
    return Question(
        id=qid, role=topic.role, specialty=topic.specialty, topic=topic.name,
        difficulty=difficulty, seniority=seniority, text=PackedTexts(stem), options=tuple(options),
        explanation=PackedTexts(explanation), tags=tags, verify=verify, source=f"{checker.filename}:{line}",
    )


def _tags(checker: _Checker, mapping: LineDict, name: str) -> tuple[str, ...]:
    tags = mapping.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(tag, str) and SLUG.match(tag) for tag in tags):
        checker.problem(mapping.key_lines.get("tags", mapping.line), f"{name}.tags",
                        "must be a list of lowercase-with-dashes words")
        return ()
    return tuple(tags)


def _options(checker: _Checker, mapping: LineDict, name: str, line: int) -> list[Option]:
    items = mapping.get("options")
    field = f"{name}.options"
    options_line = mapping.key_lines.get("options", line)
    if not isinstance(items, LineList) or not OPTIONS_MIN <= len(items) <= OPTIONS_MAX:
        count = len(items) if isinstance(items, list) else 0
        checker.problem(options_line, field, f"needs {OPTIONS_MIN} to {OPTIONS_MAX} options, found {count}")
        return []
    options: list[Option] = []
    for index, item in enumerate(items):
        option_field = f"{field}[{index}]"
        option = checker.mapping(item, items.item_lines[index], option_field)
        if option is None:
            continue
        checker.unknown_keys(option, OPTION_KEYS, f"{option_field}.")
        correct = option.get("correct", False)
        if not isinstance(correct, bool):
            checker.problem(option.key_lines["correct"], f"{option_field}.correct", "must be true or false")
            correct = False
        texts = {
            language: checker.text(option[language], option.key_lines[language], f"{option_field}.{language}",
                                   OPTION_MAX, markup=False)
            for language in LANGUAGES if language in option
        }
        if not texts:
            checker.problem(option.line, option_field, "needs text in tr and/or en")
        options.append(Option({k: v for k, v in texts.items() if v}, correct))
    _distinct(checker, options, items, field)
    keyed = sum(1 for option in options if option.correct)
    if keyed != 1:
        message = "no option is marked correct: true" if keyed == 0 else f"{keyed} options are marked correct; exactly one must be"
        checker.problem(options_line, field, message)
    return options


def _distinct(checker: _Checker, options: list[Option], items: LineList, field: str) -> None:
    """Two options that read the same (letter case and spacing aside) make a question no one can answer."""
    if len(options) != len(items):  # an item that is not an option is reported already
        return
    for language in LANGUAGES:
        seen: dict[str, int] = {}
        for index, option in enumerate(options):
            text = option.texts.get(language)
            if not text:
                continue
            same = seen.setdefault(" ".join(text.split()).casefold(), index)
            if same != index:
                checker.problem(items.item_lines[index], f"{field}[{index}].{language}",
                                f"the same text as options[{same}]: every option must differ")


def _verify(checker: _Checker, mapping: LineDict, name: str) -> Verify | None:
    if "verify" not in mapping:
        return None
    field = f"{name}.verify"
    block = checker.mapping(mapping["verify"], mapping.key_lines["verify"], field)
    if block is None:
        return None
    checker.unknown_keys(block, VERIFY_KEYS, f"{field}.")
    code = block.get("code")
    code_line = block.key_lines.get("code", block.line)
    if not isinstance(code, str) or not code.strip():
        checker.problem(code_line, f"{field}.code", "required: a Python snippet that assigns `answer`")
        return None
    try:
        compile(code, f"{name}.verify", "exec")
    except SyntaxError as error:
        checker.problem(code_line + (error.lineno or 0), f"{field}.code", f"Python syntax error: {error.msg}")
    if not re.search(r"\banswer\s*=", code):
        checker.problem(code_line, f"{field}.code", "never assigns `answer`")
    requires = block.get("requires", [])
    if not isinstance(requires, list) or not set(requires) <= KNOWN_REQUIREMENTS:
        checker.problem(block.key_lines.get("requires", block.line), f"{field}.requires",
                        f"must be a list drawn from: {', '.join(sorted(KNOWN_REQUIREMENTS))}")
        requires = []
    timeout = block.get("timeout", 60)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 600:
        checker.problem(block.key_lines.get("timeout", block.line), f"{field}.timeout", "must be 1 to 600 seconds")
        timeout = 60
    return Verify(code, tuple(requires), float(timeout))


def _languages_agree(checker: _Checker, mapping: LineDict, name: str, line: int,
                     stem: dict[str, str], explanation: dict[str, str], options: list[Option]) -> None:
    """A language used anywhere in a question is used everywhere in it, so no user sees half a question.
    (An imported question may have no explanation at all: that is not half of one.)"""
    used = set(stem) | set(explanation) | {lang for option in options for lang in option.texts}
    parts = (("text", stem), ("explanation", explanation)) if "explanation" in mapping else (("text", stem),)
    for language in sorted(used):
        missing = [part for part, texts in parts if language not in texts]
        missing += [f"options[{i}]" for i, option in enumerate(options) if language not in option.texts]
        if missing:
            checker.problem(line, f"{name}.{language}", f"missing in: {', '.join(missing)}")


def _message_fits(checker: _Checker, line: int, name: str,
                  stem: dict[str, str], explanation: dict[str, str], options: list[Option]) -> None:
    """Stem, listed options and explanation together must fit one Telegram message."""
    for language in stem:
        size = len(stem[language]) + len(explanation.get(language, ""))
        size += sum(len(option.texts.get(language, "")) + 8 for option in options) + 120
        if size > MESSAGE_MAX:
            checker.problem(line, f"{name}.{language}",
                            f"stem, options and explanation come to about {size} characters, over one "
                            f"Telegram message ({MESSAGE_MAX})")
