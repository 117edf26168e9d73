"""Who a card names: never the signed-in user as a candidate for someone else, and an address that may
imitate another is marked."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.people import Person
from multitool.toolkit.common import lookalike_words
from multitool.toolkit.context import ToolContext
from multitool.tools import ToolPorts, run_calls

NOW = datetime(2026, 12, 1, 14, 0, tzinfo=UTC)
ALEX_CHEN = Person(
    id="alex-chen", display_name="Alex Chen", email="alex.chen@example.com", timezone="America/Los_Angeles"
)
ALEX_MULLER = Person(
    id="alex-muller", display_name="Alex Müller", email="alex.mueller@example.com", timezone="Europe/Berlin"
)
ALEX_KIM = Person(id="alex-kim", display_name="Alex Kim", email="alex.kim@example.com", timezone="Asia/Seoul")


def email_to(to: list[str], people: list[Person], requester: str | None) -> dict[str, Any]:
    ctx = ToolContext(owner="u-1", session_id="s-1", now=NOW, timezone="UTC", requester_email=requester)
    ports = ToolPorts(MemoryDirectory(people), MemoryCalendar([]), MemoryDraftStore())
    call = ("create_email_draft", {"to": to, "subject": "Trip", "body": "Hello"})
    (outcome,) = run_calls([call], ctx, ports)
    assert outcome.ok, outcome.body
    body: dict[str, Any] = outcome.body
    return body


def test_the_signed_in_user_is_not_a_candidate_for_a_name_they_share() -> None:
    # Alex Chen emails "Alex": the other Alex, not a choice between them and themself
    (to,) = email_to(["Alex"], [ALEX_CHEN, ALEX_MULLER], ALEX_CHEN.email)["to"]
    assert (to["status"], to["person"]["email"]) == ("resolved", ALEX_MULLER.email)
    # Two others: still a choice, without them
    (to,) = email_to(["alex"], [ALEX_CHEN, ALEX_MULLER, ALEX_KIM], "ALEX.CHEN@example.com")["to"]
    assert to["status"] == "ambiguous"
    assert {c["email"] for c in to["candidates"]} == {ALEX_MULLER.email, ALEX_KIM.email}
    # Anyone else asking still chooses between both
    (to,) = email_to(["Alex"], [ALEX_CHEN, ALEX_MULLER], "jordan@example.com")["to"]
    assert to["status"] == "ambiguous"


LOOKALIKE = "priya.patel@ex\u0430mple.com"  # a Cyrillic a (U+0430) in the domain


def test_a_lookalike_address_is_marked_on_the_card() -> None:
    payload = email_to([LOOKALIKE], [], None)
    assert payload["to"][0]["person"]["email"] == LOOKALIKE
    assert (
        f"{LOOKALIKE} mixes Cyrillic and Latin letters in its domain: it may imitate another address."
        in payload["notes"]
    )


@pytest.mark.parametrize(
    ("address", "words"),
    [
        ("priya.patel@example.com", None),
        ("zo\u00eb@ex\u00e4mple.de", None),  # accented Latin is one script
        ("info@\u4f8b\u3048.jp", None),  # Han and Hiragana in one label: not lookalikes of Latin letters
        ("p\u0430ypal@example.com", "mixes Cyrillic and Latin letters before the @"),
        ("billing@\u0440\u0430\u0443\u0440\u0430l.com", "mixes Cyrillic and Latin letters in its domain"),
        (
            "billing@\u0440\u0430\u0443\u0440\u0430\u04cf.com",
            "is written in Cyrillic letters that look Latin in its domain",
        ),
        ("\u03bf\u03ba@example.com", "is written in Greek letters that look Latin before the @"),
        ("a@xn--mnchen-3ya.de", None),  # münchen
        (
            "priya@xn--exmple-4nf.com",
            "priya@xn--exmple-4nf.com (priya@ex\u0430mple.com) mixes Cyrillic and Latin",
        ),
    ],
)
def test_mixed_script_and_confusable_addresses(address: str, words: str | None) -> None:
    found = lookalike_words(address)
    assert (found is None) if words is None else (found is not None and words in found)
