"""YAML loading that remembers line numbers, so every problem can name FILE:LINE.

PyYAML's composer knows where each node starts; we keep that on the mappings and lists we build
(plain dict and list subclasses) and report duplicate keys, which PyYAML would silently overwrite.
"""

from __future__ import annotations

from typing import Any

import yaml

from bot.bank.problems import Problem


class LineDict(dict):
    """A mapping with the line of each key (1-based) and of the mapping itself."""

    line: int = 0
    key_lines: dict[str, int]


class LineList(list):
    """A sequence with the line of each item (1-based) and of the sequence itself."""

    line: int = 0
    item_lines: list[int]


# libyaml's parser is about five times faster than PyYAML's pure-Python one and gives the same marks.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_SafeLoader):  # type: ignore[misc, valid-type]
    """A safe loader whose mappings and sequences carry their lines."""

    def __init__(self, stream: str, filename: str) -> None:
        super().__init__(stream)
        self.filename = filename
        self.duplicates: list[Problem] = []


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    mapping = LineDict()
    mapping.line = node.start_mark.line + 1
    mapping.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if not isinstance(key, str):
            key = str(key)
        if key in mapping:
            loader.duplicates.append(
                Problem(loader.filename, line, key, f"duplicate key (first at line {mapping.key_lines[key]})")
            )
        mapping[key] = loader.construct_object(value_node, deep=True)
        mapping.key_lines.setdefault(key, line)
    return mapping


def _construct_sequence(loader: _Loader, node: yaml.SequenceNode) -> LineList:
    sequence = LineList(loader.construct_object(child, deep=True) for child in node.value)
    sequence.line = node.start_mark.line + 1
    sequence.item_lines = [child.start_mark.line + 1 for child in node.value]
    return sequence


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def load_yaml(text: str, filename: str) -> tuple[Any, list[Problem]]:
    """Parse one YAML document; a syntax error becomes a Problem at its line, never an exception."""
    try:
        loader = _Loader(text, filename)
    except yaml.reader.ReaderError as error:  # a character YAML forbids, found before parsing starts
        return None, [_reader_problem(text, filename, error)]
    try:
        node = loader.get_single_node()
        shared = _alias(node) if node is not None else None
        if shared is not None:  # a "billion laughs" expands aliases; question files never need them
            return None, [Problem(filename, shared.start_mark.line + 1, "yaml",
                                  "anchors and aliases (&name, *name) are not allowed in question files")]
        data = loader.construct_document(node) if node is not None else None
    except yaml.reader.ReaderError as error:
        return None, [_reader_problem(text, filename, error)]
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        last_line = text.count("\n") + (0 if text.endswith("\n") else 1)
        line = min(mark.line + 1, max(last_line, 1)) if mark else 1  # libyaml may point past the end
        message = (error.problem or error.context or "invalid YAML").strip()
        return None, [Problem(filename, line, "yaml", f"syntax error: {message}")]
    except yaml.YAMLError as error:
        return None, [Problem(filename, 1, "yaml", f"syntax error: {error}")]
    finally:
        loader.dispose()
    return data, loader.duplicates


def _alias(root: yaml.Node) -> yaml.Node | None:
    """The first node reached twice (an alias to an anchor), without expanding anything."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            return node
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack += (key, value)
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
    return None


def _reader_problem(text: str, filename: str, error: yaml.reader.ReaderError) -> Problem:
    line = text.count("\n", 0, max(0, error.position)) + 1
    return Problem(filename, line, "yaml", f"character {error.character!r} is not allowed in YAML")
