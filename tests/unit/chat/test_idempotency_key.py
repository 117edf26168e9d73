"""The Idempotency-Key header value and the body digest a stored response is checked against."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from multitool.chat.service import ChatInputError, ChatRequest, body_hash, idempotency_key

VISIBLE_ASCII = st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters='"')


def test_an_absent_header_is_no_key() -> None:
    assert idempotency_key(None) is None


@pytest.mark.parametrize(
    ("header", "key"),
    [
        ("8e03978e-40d5-43e8-bc93-6894a57f9324", "8e03978e-40d5-43e8-bc93-6894a57f9324"),
        ('"8e03978e-40d5-43e8-bc93-6894a57f9324"', "8e03978e-40d5-43e8-bc93-6894a57f9324"),
        ("  padded  ", "padded"),
        ("k", "k"),
        ("x" * 128, "x" * 128),
        ("a:b/c+d=e~!", "a:b/c+d=e~!"),
    ],
)
def test_valid_keys_are_taken_as_sent(header: str, key: str) -> None:
    assert idempotency_key(header) == key


@pytest.mark.parametrize(
    "header",
    ["", " ", '""', "x" * 129, "two words", "tab\tinside", "naïve", "line\nbreak", '"open', 'a"b', "\x7f"],
)
def test_invalid_keys_are_refused_without_echoing_them(header: str) -> None:
    with pytest.raises(ChatInputError) as caught:
        idempotency_key(header)

    assert "1-128 visible ASCII characters" in str(caught.value)
    if header.strip():
        assert header.strip() not in str(caught.value)


@given(st.text(VISIBLE_ASCII, min_size=1, max_size=128))
def test_every_visible_ascii_key_up_to_128_characters_is_accepted(key: str) -> None:
    assert idempotency_key(key) == key
    assert idempotency_key(f'"{key}"') == key


def test_the_body_digest_ignores_formatting_but_not_content() -> None:
    compact = ChatRequest.model_validate_json('{"message":"Email Priya","timezone":"UTC"}')
    spaced = ChatRequest.model_validate_json('{ "timezone": "UTC",  "message": "  Email Priya " }')
    other = ChatRequest.model_validate_json('{"message":"Email Kinshuok","timezone":"UTC"}')

    assert body_hash(compact) == body_hash(spaced)
    assert body_hash(compact) != body_hash(other)
    assert len(body_hash(compact)) == 64
