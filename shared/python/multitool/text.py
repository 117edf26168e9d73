"""One text policy for every field that leaves the system (mail, invitations, Jira, the model).

Two kinds of field:

- **single-line** (subjects, titles, summaries, names, project keys): no control
  character at all. Line and paragraph separators (``\\r``, ``\\n``, ``\\v``,
  ``\\f``, U+001C..U+001E, U+0085, U+2028, U+2029) and tabs, with the spaces
  around them, fold to one space; the result is trimmed.
- **multi-line** (email bodies, Jira descriptions, chat messages): ``\\r\\n``
  and a lone ``\\r`` become ``\\n``, as do U+0085, U+2028, U+2029, ``\\v`` and
  ``\\f``; ``\\n`` and ``\\t`` stay; every other control character goes.

Controls are the Unicode general category ``Cc`` (C0, DEL, C1), which Unicode's
stability policy fixes to U+0000..U+001F and U+007F..U+009F. An ANSI/ECMA-48
control sequence (``ESC [ ... m``, or its one-character C1 form U+009B) goes
whole, so ``"\\x1b[31mC"`` becomes ``"C"``, not ``"[31mC"``. Lone surrogates
(which JSON can carry but UTF-8 cannot encode, so SES and Jira would fail on
them) go too.

Format characters (Unicode general category ``Cf``) go from both kinds: bidi
controls (U+202E makes ``"Invoice \u202egpj.exe"`` display as "Invoice
exe.jpg"), zero-width spaces and word joiners (``"Pri\u200bya"`` is not
"Priya" to a reader or a lookup), the soft hyphen, tag characters (which
carry text no one sees). Only U+200C ZERO WIDTH NON-JOINER and U+200D ZERO
WIDTH JOINER stay: Persian and Indic spelling and emoji sequences need them.
The category is the running Python's Unicode data, so new format characters
are covered as Unicode adds them. What is left is composed (NFC): a
decomposed ``"Mu\u0308ller"`` is the ``"Müller"`` the user sees.

A field that is empty after cleaning is the same error as an empty field: the
pydantic types below clean *before* the field's own constraints
(``min_length``, ``max_length``) and whitespace stripping run.

Only the standard library is needed: the policy is a handful of fixed code
points, and a general "fix text" library (ftfy) would also rewrite text that
is not broken.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import Annotated

from pydantic import BeforeValidator

# Line boundaries as str.splitlines() knows them (\r\n is two of them, folded as one run).
LINE_SEPARATORS = frozenset("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029")
CONTROLS = frozenset(chr(c) for c in (*range(0x00, 0x20), *range(0x7F, 0xA0)))
# What a single-line field never contains; a multi-line field keeps "\n" and "\t" only.
FORBIDDEN_SINGLE_LINE = CONTROLS | LINE_SEPARATORS
FORBIDDEN_MULTI_LINE = FORBIDDEN_SINGLE_LINE - {"\n", "\t"}

# ECMA-48 CSI: ESC [ (or U+009B), parameter bytes 0x30-0x3F, intermediate bytes 0x20-0x2F, a final byte.
_CSI = re.compile("(?:\x1b\\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]")
_SURROGATES = re.compile("[\ud800-\udfff]")
_BREAK = "\n"
_INFORMATION_SEPARATORS = frozenset("\x1c\x1d\x1e")  # line breaks to splitlines(), not in plain text
# Every control that is not a separator or a tab goes; separators (and, on one line, tabs) mark breaks.
_DROPPED = CONTROLS - LINE_SEPARATORS - {"\t"}
_SINGLE = str.maketrans({**dict.fromkeys(_DROPPED), **dict.fromkeys(LINE_SEPARATORS | {"\t"}, _BREAK)})
_MULTI = str.maketrans(
    {
        **dict.fromkeys(_DROPPED | _INFORMATION_SEPARATORS),
        **dict.fromkeys(LINE_SEPARATORS - _INFORMATION_SEPARATORS, _BREAK),
    }
)
_FOLD = re.compile(r"[ ]*\n[\n ]*")


KEPT_FORMAT = frozenset("\u200c\u200d")
"""The format characters kept: the zero-width non-joiner and joiner, which words and emoji need."""


def is_format(char: str) -> bool:
    """Whether the policy removes ``char`` as a format character (category Cf, not a kept joiner)."""
    return unicodedata.category(char) == "Cf" and char not in KEPT_FORMAT


def _without_sequences(text: str) -> str:
    text = _CSI.sub("", text)
    text = _SURROGATES.sub("", text)
    # Format characters are not printable: only text that failed isprintable() gets here.
    return "".join(char for char in text if not is_format(char))


def _composed(text: str) -> str:
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def single_line(text: str) -> str:
    """``text`` as one clean line: separators and tabs fold to one space, controls go, trimmed."""
    if text.isprintable():  # the common case: nothing to do but compose and trim
        return _composed(text).strip()
    cleaned = _without_sequences(text).translate(_SINGLE)
    return _composed(_FOLD.sub(" ", cleaned)).strip()


def multi_line(text: str) -> str:
    """``text`` with ``\\n`` line breaks only (``\\r\\n``, U+2028... become one), tabs, no controls."""
    if text.isprintable():
        return _composed(text)
    return _composed(_without_sequences(text).replace("\r\n", "\n").translate(_MULTI))


def _cleaning(clean: Callable[[str], str]) -> BeforeValidator:
    def validate(value: object) -> object:
        # Anything but a string is left to the field's own type check (and its error).
        return clean(value) if isinstance(value, str) else value

    return BeforeValidator(validate)


# Metadata for ``Annotated[str, StringConstraints(...), CLEAN_SINGLE_LINE]``: placed after the
# constraints, the cleaning runs before them (a before-validator wraps what precedes it).
CLEAN_SINGLE_LINE = _cleaning(single_line)
CLEAN_MULTI_LINE = _cleaning(multi_line)

SingleLine = Annotated[str, CLEAN_SINGLE_LINE]
"""A ``str`` field cleaned by :func:`single_line` before its ``Field`` constraints run."""

MultiLine = Annotated[str, CLEAN_MULTI_LINE]
"""A ``str`` field cleaned by :func:`multi_line` before its ``Field`` constraints run."""
