"""A request target read as the local servers read it: a path and a query, never an authority."""

from __future__ import annotations

import pytest
from multitool.local.sandbox.request_target import origin_form


@pytest.mark.parametrize(
    ("target", "read"),
    [
        ("/chat", ("/chat", "")),
        ("/turns/t-1?after=3", ("/turns/t-1", "after=3")),
        ("/a?b=c?d", ("/a", "b=c?d")),
        ("//[", ("//[", "")),
        ("//example.com/chat?x=1", ("//example.com/chat", "x=1")),
        ("/chat#part", ("/chat", "")),
        ("", ("/", "")),
        ("?q=1", ("/", "q=1")),
    ],
)
def test_a_target_is_its_path_then_its_query(target: str, read: tuple[str, str]) -> None:
    assert origin_form(target) == read
