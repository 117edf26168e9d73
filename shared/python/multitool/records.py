"""Value records: every value the layer passes around is a ``msgspec.Struct`` (frozen unless it is
built up in place), and every boundary is pydantic (``multitool.wire``).

Why msgspec, not the standard library's ``dataclasses``: a Struct class is made in C (about 0.01
ms on Python 3.13), where ``@dataclass(frozen=True, slots=True)`` writes the source of its
``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and ``__setattr__`` and compiles it (about 0.5
ms a class). A cold start makes every class its handler imports, 40 to 60 of them, so that was 20 to
30 ms of each function's init; msgspec costs about 4 ms to import (docs/benchmarks.md). A Struct has
what the dataclass gave: keyword or positional ``__init__``, ``__post_init__``, equality, a hash
when frozen, ``msgspec.structs.replace`` (which runs ``__post_init__`` again), ``__match_args__``.
"""

from __future__ import annotations

from typing import ClassVar

__all__ = ["Redacted"]


class Redacted:
    """Mixed into a Struct whose repr must leave out some fields (tokens, keys), named in
    ``redacted``; the value is still there to use, only never written to a log by ``repr``."""

    __slots__ = ()
    redacted: ClassVar[frozenset[str]] = frozenset()
    __struct_fields__: ClassVar[tuple[str, ...]]

    def __repr__(self) -> str:
        shown = (
            f"{name}={getattr(self, name)!r}" for name in self.__struct_fields__ if name not in self.redacted
        )
        return f"{type(self).__name__}({', '.join(shown)})"
