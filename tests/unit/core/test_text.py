"""The text policy: what single-line and multi-line fields may contain once cleaned."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from multitool.text import (
    FORBIDDEN_MULTI_LINE,
    FORBIDDEN_SINGLE_LINE,
    MultiLine,
    SingleLine,
    is_format,
    multi_line,
    single_line,
)
from multitool.tools.email.confirm import EmailEdits
from multitool.tools.email.email_draft import EmailDraftArgs
from multitool.tools.jira.confirm import JiraEdits
from multitool.tools.jira.jira_draft import JiraTicketArgs
from multitool.tools.meeting.booking import MeetingEdits
from multitool.tools.meeting.meeting_scheduler import MeetingArgs
from pydantic import BaseModel, Field, ValidationError

# Any code point at all, weighted towards the ones the policy is about.
NASTY = st.sampled_from(
    [
        "\x00",
        "\x07",
        "\x1b",
        "\x1b[31m",
        "\x9b1;2m",
        "\r",
        "\n",
        "\r\n",
        "\t",
        "\v",
        "\f",
        "\x1c",
        "\x85",
        "\u2028",
        "\u2029",
        "\x7f",
        "\x9f",
        "\ud800",
        "\udfff",
        " ",
        "  ",
        "é",
        "漢",
        "\u00a0",
        "a",
        "B",
    ]
)
TEXT = st.lists(st.one_of(NASTY, st.characters(codec=None), st.text(max_size=5)), max_size=30).map("".join)


def _surrogate(c: str) -> bool:
    return unicodedata.category(c) == "Cs"


@given(TEXT)
@example("A\x00B\x1b[31mC\x07")
@example("\u2028x\u0085y\u2029")
def test_single_line_output_has_no_control_separator_or_surrogate(text: str) -> None:
    cleaned = single_line(text)

    assert not any(c in FORBIDDEN_SINGLE_LINE or _surrogate(c) for c in cleaned)
    assert cleaned == cleaned.strip()
    assert single_line(cleaned) == cleaned


@given(TEXT)
@example("line 1\r\nline 2\u2028line 3\x00\x1b[1m")
def test_multi_line_output_keeps_only_newline_and_tab(text: str) -> None:
    cleaned = multi_line(text)

    assert not any(c in FORBIDDEN_MULTI_LINE or _surrogate(c) for c in cleaned)
    assert "\r" not in cleaned
    assert multi_line(cleaned) == cleaned


@given(st.text(alphabet=st.characters(categories=["L", "N", "P", "S"]), max_size=40))
@example("\u212b")  # ANGSTROM SIGN: printable, and its composed form is U+00C5
def test_printable_text_is_left_alone_but_composed(text: str) -> None:
    composed = unicodedata.normalize("NFC", text)
    assert multi_line(text) == composed
    assert single_line(text) == composed.strip()


@given(TEXT.filter(lambda t: "\x1b" not in t and "\x9b" not in t))
def test_only_controls_separators_and_surrogates_are_removed(text: str) -> None:
    # Without escape sequences, every other non-space character survives, in order.
    def kept(t: str) -> str:
        visible = (c for c in t if not (c in FORBIDDEN_SINGLE_LINE or _surrogate(c) or is_format(c)))
        return unicodedata.normalize("NFC", "".join(c for c in visible if not c.isspace()))

    assert kept(single_line(text)) == kept(text)
    assert kept(multi_line(text)) == kept(text)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("A\x00B\x1b[31mC\x07", "ABC"),
        ("Plan\r\nfor Q3", "Plan for Q3"),
        ("Plan \u2028\u2028 for\u0085Q3", "Plan for Q3"),
        ("\tIndented\ttitle\n", "Indented title"),
        ("Déjà vu 漢字", "Déjà vu 漢字"),
        ("\u2029\x00\n", ""),
    ],
)
def test_single_line_examples(raw: str, clean: str) -> None:
    assert single_line(raw) == clean


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Hi,\r\n\r\nsee below.\r\n", "Hi,\n\nsee below.\n"),
        ("one\u2028two\u2029three\u0085four\rfive", "one\ntwo\nthree\nfour\nfive"),
        ("col\tcol\x00\x1b[0m\x07", "col\tcol"),
    ],
)
def test_multi_line_examples(raw: str, clean: str) -> None:
    assert multi_line(raw) == clean


class _Fields(BaseModel):
    subject: SingleLine = Field(min_length=1, max_length=5)
    body: MultiLine = Field(default="x", min_length=1)


def test_a_field_empty_after_cleaning_is_the_empty_field_error() -> None:
    with pytest.raises(ValidationError) as cleaned:
        _Fields(subject="\x00\r\n\u2028")
    with pytest.raises(ValidationError) as empty:
        _Fields(subject="")

    assert cleaned.value.errors()[0]["type"] == empty.value.errors()[0]["type"] == "string_too_short"


def test_length_limits_apply_to_the_cleaned_text() -> None:
    assert _Fields(subject="ab\x00\x00\x00\x00cd").subject == "abcd"
    assert _Fields(subject="a", body="x\r\ny").body == "x\ny"


def test_a_non_string_is_still_a_type_error() -> None:
    with pytest.raises(ValidationError) as error:
        _Fields.model_validate({"subject": 5})
    assert error.value.errors()[0]["type"] == "string_type"


def test_tool_arguments_are_cleaned_at_the_boundary() -> None:
    email = EmailDraftArgs.model_validate(
        {"to": ["Kin\x00shuok\r\n"], "subject": "A\x00B\x1b[31mC\x07", "body": "Hi\r\nthere\x00\u2028bye"}
    )
    jira = JiraTicketArgs.model_validate(
        {"project": "WEB", "issueType": "Bug\t", "summary": "Crash\r\non login", "assignee": "Pri\u0085ya"}
    )
    meeting = MeetingArgs.model_validate(
        {"attendees": ["Priya"], "title": "Sync\u2029B", "when": "Thu\x00rsday"}
    )

    assert (email.to, email.subject, email.body) == (["Kinshuok"], "ABC", "Hi\nthere\nbye")
    assert (jira.issue_type, jira.summary, jira.assignee) == ("Bug", "Crash on login", "Pri ya")
    assert (meeting.title, meeting.when) == ("Sync B", "Thursday")


@pytest.mark.parametrize(
    ("model", "data", "field"),
    [
        (EmailDraftArgs, {"to": ["Kin"], "subject": "\x00\r\n", "body": "b"}, "subject"),
        (EmailDraftArgs, {"to": ["\u2028"], "subject": "s", "body": "b"}, "to"),
        (JiraTicketArgs, {"project": "WEB", "issueType": "Bug", "summary": "\x1b[0m"}, "summary"),
        (
            JiraTicketArgs,
            {"project": "WEB", "issueType": "Bug", "summary": "s", "assignee": "\x00"},
            "assignee",
        ),
        (MeetingArgs, {"attendees": ["Priya"], "title": "\u0085", "when": "Thursday"}, "title"),
    ],
)
def test_an_argument_empty_once_cleaned_is_refused_like_an_empty_one(
    model: type[BaseModel], data: dict[str, object], field: str
) -> None:
    with pytest.raises(ValidationError) as error:
        model.model_validate(data)

    [problem] = error.value.errors()
    assert problem["loc"][0] == field
    assert problem["type"] == "string_too_short"


def test_confirm_edits_are_cleaned_and_an_edit_empty_once_cleaned_is_refused() -> None:
    edits = JiraEdits.model_validate(
        {"summary": "One\r\ntwo", "description": "a\r\nb\x00", "issueType": "\tBug"}
    )

    assert (edits.summary, edits.description, edits.issue_type) == ("One two", "a\nb", "Bug")
    assert MeetingEdits.model_validate({"title": "Sync\x07"}).title == "Sync"
    for model, data in (
        (EmailEdits, {"body": "\x00"}),
        (MeetingEdits, {"title": "\r\n"}),
        (JiraEdits, {"project": "\x1b"}),
    ):
        with pytest.raises(ValidationError) as error:
            model.model_validate(data)
        assert error.value.errors()[0]["type"] == "string_too_short"


# -- characters no one sees, and one normal form ------------------------------------------


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Invoice \u202egpj.exe", "Invoice gpj.exe"),  # shown as "Invoice exe.jpg" with the override
        ("Pri\u200bya", "Priya"),
        ("\ufeffSync\u2060 notes\u00ad", "Sync notes"),
        ("\u2066Q3\u2069 review\u200e", "Q3 review"),
        ("hidden\U000e0041\U000e0042 tags", "hidden tags"),
        ("Mu\u0308ller", "Müller"),  # decomposed: composed (NFC)
        (
            "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
            "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
        ),  # ZWNJ kept
        ("\U0001f469\u200d\U0001f4bb", "\U0001f469\u200d\U0001f4bb"),  # ZWJ emoji kept
    ],
)
def test_format_characters_go_and_text_is_composed(raw: str, clean: str) -> None:
    assert single_line(raw) == clean
    assert multi_line(raw) == clean


def test_every_format_character_but_the_joiners_is_removed() -> None:
    import sys

    formats = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]
    assert len(formats) > 100
    assert single_line("a" + "".join(formats) + "b") == "a\u200c\u200db"


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("ceo@company.com", True),
        ("ceo\u200b@company.com", False),
        ("ceo@compa\u200bny.com", False),
        ("c\u202eeo@company.com", False),
        ("zoë@example.com", False),  # a non-ASCII mailbox name: not an address we send to
        ("info@bücher.example", True),  # an internationalized domain: its IDNA form exists
        ("info@-bad-.example", False),
        ("a@b.c", True),
    ],
)
def test_addresses_are_ascii_or_idna(text: str, ok: bool) -> None:
    from multitool.toolkit.context import is_address

    assert is_address(text) is ok
