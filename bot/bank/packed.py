"""A question's stem and explanation, kept compressed in memory and unpacked when a message needs them.

Why: with 10,000 questions the stems and explanations were 23 MB of str (Turkish at two bytes a
character: ş, ğ and ı are beyond Latin-1), the largest part of the bot's memory. zlib-compressed UTF-8
holds the same in about 10 MB. A text is needed a few times a day per question (posted, revealed,
explained), and unpacking one takes microseconds. The bank cache keeps the packed form (bot/bank/plain.py),
so a restart never builds the strings at all.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping
from typing import Any


WINDOW_BITS = 12  # a 4 KB window: a text fits; zlib's default 32 KB window and 128 KB of state cost 70 us
MEMORY_LEVEL = 4  # to set up per text, ten times the compressing itself (same size out, measured)


def _pack(text: str) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, -WINDOW_BITS, MEMORY_LEVEL)  # raw deflate: no header
    return packer.compress(text.encode("utf-8")) + packer.flush()


def _unpack(data: bytes) -> str:
    return zlib.decompress(data, -15).decode("utf-8")  # -15 reads raw deflate of any window


class PackedTexts(Mapping[str, str]):
    """A language -> text mapping that stores each text as zlib-compressed UTF-8."""

    __slots__ = ("_packed",)

    def __init__(self, texts: Mapping[str, str]) -> None:
        self._packed = tuple((language, _pack(text)) for language, text in texts.items())

    def __getitem__(self, language: str) -> str:
        for known, data in self._packed:
            if known == language:
                return _unpack(data)
        raise KeyError(language)

    def __contains__(self, language: object) -> bool:  # without unpacking
        return any(known == language for known, _ in self._packed)

    def __iter__(self) -> Iterator[str]:
        return (language for language, _ in self._packed)

    def __len__(self) -> int:
        return len(self._packed)

    def __repr__(self) -> str:
        return f"PackedTexts({dict(self)!r})"

    def packed(self) -> tuple[tuple[str, bytes], ...]:
        """(language, compressed text) pairs, as kept: what the bank cache writes."""
        return self._packed

    @classmethod
    def from_packed(cls, packed: tuple[tuple[str, bytes], ...]) -> PackedTexts:
        """The mapping back from `packed()`, without compressing again."""
        texts = cls.__new__(cls)
        texts._packed = packed
        return texts

    def __reduce__(self) -> tuple[Any, ...]:  # pickled packed (multiprocessing): never the strings
        return (PackedTexts.from_packed, (self._packed,))
