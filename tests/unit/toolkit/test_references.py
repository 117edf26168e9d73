"""References (multitool.toolkit.references): a thing that already exists is named as the user said it
and found among the caller's own, in the batch's one pass: each finder once per turn, after the
directory read, its resolutions handed to each call in the order of its lookups."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, date, datetime
from typing import Any, Literal

import pytest
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.ports.tokens import ProviderRefused
from multitool.toolkit.cards import CardSpec
from multitool.toolkit.common import Prepared
from multitool.toolkit.errors import InvalidInput
from multitool.toolkit.references import (
    FindContext,
    Item,
    ItemRef,
    ItemResolution,
    Lookup,
    Match,
    NothingFound,
    chosen,
    find_all,
    rank,
    reference_notes,
    resolution,
)
from multitool.toolkit.spec import ToolSpec
from multitool.tools import REGISTRY, ToolContext, ToolPorts, run_calls
from multitool.wire import WireModel
from pydantic import Field, ValidationError

from tests.support.bedrock_events import sample_people

NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


def meeting(item_id: str, title: str, *people: str, start: str = "2026-12-08T10:00:00+00:00") -> Item:
    return Item(kind="meeting", id=item_id, label=title, fields={"people": list(people), "start": start})


SYNC = meeting("e1", "Weekly sync", "priya@example.com")
BUDGET = meeting("e2", "Budget review", "priya@example.com", "mei@example.com")
ONE_ON_ONE = meeting("e3", "1:1 Kinshuok / Priya", "kinshuok@example.com", start="2026-12-09T10:00:00+00:00")


def ref(said: str, **hints: Any) -> ItemRef:
    return ItemRef.model_validate({"said": said, **hints})


def ranked(reference: ItemRef, emails: Sequence[str] = ()) -> list[Item]:
    return rank(
        [SYNC, BUDGET, ONE_ON_ONE],
        reference,
        lambda item: item.label,
        people=lambda item: item.fields["people"],
        emails=emails,
        newest=lambda item: item.fields["start"],
    )


# -- what the model passes ---------------------------------------------------------------


def test_a_reference_reads_its_hints_from_camel_case() -> None:
    reference = ref("my sync with Priya tomorrow", people=["Priya"], fromDay="2026-12-08", words=["sync"])

    assert reference.days == (date(2026, 12, 8), date(2026, 12, 8))
    assert reference.people == ["Priya"]


@pytest.mark.parametrize(
    ("hints", "field"),
    [
        ({"said": ""}, "said"),
        ({"said": "x" * 201}, "said"),
        ({"said": "the 1:1", "fromDay": "2026-12-09", "toDay": "2026-12-08"}, "toDay is before fromDay"),
        ({"said": "the 1:1", "words": ["w"] * 9}, "words"),
        ({"said": "the 1:1", "people": ["P"] * 11}, "people"),
    ],
)
def test_bad_hints_are_refused(hints: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        ItemRef.model_validate(hints)


# -- matching ------------------------------------------------------------------------------


def test_words_and_people_narrow_to_the_one_meant() -> None:
    found = resolution("my sync with Priya", ranked(ref("my sync", words=["sync"]), ["priya@example.com"]))

    assert found.status is Match.FOUND
    assert found.item == SYNC


def test_several_fits_are_a_choice_newest_first() -> None:
    found = resolution("Priya's meeting", ranked(ref("Priya's meeting"), ["PRIYA@example.com"]))

    assert found.status is Match.AMBIGUOUS
    assert [item.id for item in found.candidates] == ["e1", "e2"]
    assert reference_notes([found], "meeting") == [
        "'Priya's meeting' could be 2 meetings: choose one on the card."
    ]


def test_more_words_matched_rank_first() -> None:
    found = ranked(ref("the budget sync", words=["budget", "review"]))

    assert [item.id for item in found] == ["e2"]


def test_a_key_matches_only_its_item() -> None:
    assert [item.id for item in ranked(ref("e3", key="E3"))] == ["e3"]


def test_nothing_that_fits_says_so() -> None:
    found = resolution("the offsite", ranked(ref("the offsite", words=["offsite"])))

    assert found.status is Match.NONE
    assert "No meeting of yours matches 'the offsite'" in reference_notes([found], "meeting")[0]


def test_a_card_offers_at_most_five() -> None:
    many = [meeting(f"e{i}", "Sync") for i in range(9)]

    assert len(resolution("sync", many).candidates) == 5


def test_a_resolution_crosses_the_wire_and_back() -> None:
    found = resolution("Priya's meeting", [SYNC, BUDGET])

    wire = found.to_wire()

    assert wire["status"] == "ambiguous"
    assert wire["candidates"][0]["fields"]["people"] == ["priya@example.com"]
    assert ItemResolution.from_wire(wire) == found


# -- what a confirm may act on ---------------------------------------------------------------


def test_a_confirm_acts_on_the_one_found_or_the_candidate_chosen() -> None:
    assert chosen(resolution("sync", [SYNC]), None, "item") == SYNC
    assert chosen(resolution("Priya's", [SYNC, BUDGET]), "e2", "item") == BUDGET


def test_an_id_the_card_did_not_offer_is_refused_like_one_that_does_not_exist() -> None:
    with pytest.raises(InvalidInput, match="Choose one of the items the card offers") as refused:
        chosen(resolution("Priya's", [SYNC, BUDGET]), "someone-elses-event", "item")
    assert refused.value.field == "item"
    with pytest.raises(InvalidInput, match="could be 2 items: choose one"):
        chosen(resolution("Priya's", [SYNC, BUDGET]), None, "item")
    with pytest.raises(NothingFound):
        chosen(resolution("the offsite", []), None, "item")


# -- the batch: each finder once, after the directory read -----------------------------------


def _label(item: Item) -> str:
    return item.label


def _people(item: Item) -> list[str]:
    return list(item.fields["people"])


class RecordingFinder:
    def __init__(self, items: Sequence[Item]) -> None:
        self.items = list(items)
        self.calls: list[list[str]] = []

    def __call__(self, refs: Sequence[ItemRef], reads: FindContext) -> list[ItemResolution]:
        self.calls.append([r.said for r in refs])
        answers = []
        for reference in refs:
            emails = [
                found.person.email
                for name in reference.people
                if (found := reads.people.get(name)) is not None and found.person is not None
            ]
            answers.append(
                resolution(
                    reference.said,
                    rank(
                        self.items,
                        reference,
                        lambda i: i.label,
                        people=lambda i: i.fields["people"],
                        emails=emails,
                    ),
                )
            )
        return answers


FINDER = RecordingFinder([SYNC, BUDGET, ONE_ON_ONE])


class NudgeArgs(WireModel):
    meeting: ItemRef
    text: str = Field(min_length=1, max_length=200)


class NudgePayload(WireModel):
    action: Literal["show_nudge"] = "show_nudge"
    draft_id: str
    meeting: ItemResolution
    text: str
    notes: tuple[str, ...] = ()


def prepare(args: NudgeArgs, _ctx: ToolContext, _config: Any) -> Prepared:
    def finish(_people: Any, _busy: Any, found: Sequence[ItemResolution]) -> dict[str, Any]:
        return {"meeting": found[0].to_wire(), "text": args.text, "notes": reference_notes(found, "meeting")}

    return Prepared(names=[], finish=finish, lookups=[Lookup(args.meeting, FINDER)])


SPEC = ToolSpec(
    name="nudge_meeting",
    action_group="nudge",
    api_path="/nudges",
    args_model=NudgeArgs,
    payload_model=NudgePayload,
    description="Nudge the people of an existing meeting.",
    prepare=prepare,
    card=CardSpec.of_payload(NudgePayload, caption=lambda card: f"Nudge: {card.text}"),
    review=None,
    group_description="Nudges.",
    nouns=("a nudge", "nudges"),
)


@pytest.fixture
def nudge() -> Iterator[ToolSpec]:
    FINDER.calls.clear()
    REGISTRY.register(SPEC)
    try:
        yield SPEC
    finally:
        REGISTRY.unregister(SPEC.name)


class CountingDirectory(MemoryDirectory):
    def __init__(self) -> None:
        super().__init__(sample_people())
        self.asked: list[list[str]] = []

    def resolve(self, names: Any) -> Any:
        self.asked.append(list(names))
        return super().resolve(names)


def test_every_reference_of_a_turn_is_found_in_one_finder_call(nudge: ToolSpec) -> None:
    directory = CountingDirectory()
    drafts = MemoryDraftStore()
    ports = ToolPorts(directory, MemoryCalendar(), drafts)
    calls = [
        ("nudge_meeting", {"meeting": {"said": "the budget review", "words": ["budget"]}, "text": "Late"}),
        ("create_email_draft", {"to": ["Kinshuok"], "subject": "Doc", "body": "Here."}),
        (
            "nudge_meeting",
            {"meeting": {"said": "the 1:1 with Kinshuok", "people": ["Kinshuok"]}, "text": "Soon"},
        ),
    ]

    outcomes = run_calls(calls, ToolContext(owner="u-1", session_id="s-1", now=NOW), ports)

    assert [o.status for o in outcomes] == [200, 200, 200]
    assert FINDER.calls == [["the budget review", "the 1:1 with Kinshuok"]]
    assert len(directory.asked) == 1
    assert "Kinshuok" in directory.asked[0]  # a reference's people come with the batch's one directory read
    assert outcomes[0].body["meeting"]["item"]["id"] == "e2"
    assert outcomes[2].body["meeting"]["item"]["id"] == "e3"
    assert drafts.writes == 1


def test_a_finder_that_refuses_costs_only_the_calls_that_needed_it(nudge: ToolSpec) -> None:
    def refusing(_refs: Sequence[ItemRef], _reads: FindContext) -> list[ItemResolution]:
        raise ProviderRefused("microsoft365", "The calendar said no.")

    original = FINDER.__call__
    try:
        RecordingFinder.__call__ = lambda self, refs, reads: refusing(refs, reads)  # type: ignore[method-assign]
        ports = ToolPorts(MemoryDirectory(sample_people()), MemoryCalendar(), MemoryDraftStore())
        outcomes = run_calls(
            [
                ("nudge_meeting", {"meeting": {"said": "the sync"}, "text": "Late"}),
                ("create_email_draft", {"to": ["Kinshuok"], "subject": "Doc", "body": "Here."}),
            ],
            ToolContext(owner="u-1", session_id="s-1", now=NOW),
            ports,
        )
    finally:
        RecordingFinder.__call__ = original.__func__  # type: ignore[method-assign]

    assert [o.status for o in outcomes] == [502, 200]
    assert outcomes[0].body["error"]["code"] == "provider_refused"


def test_find_all_keeps_each_calls_order_across_finders() -> None:
    other = RecordingFinder([BUDGET])
    mine = RecordingFinder([SYNC, ONE_ON_ONE])
    lookups = {
        0: [Lookup(ref("the sync", words=["sync"]), mine), Lookup(ref("budget", words=["budget"]), other)],
        3: [Lookup(ref("the 1:1", key="e3"), mine)],
    }

    found = find_all(lookups, FindContext(ctx=None, ports=None, people={}))  # type: ignore[arg-type]

    assert [r.item.id if r.item else None for r in found[0]] == ["e1", "e2"]
    assert [r.item.id if r.item else None for r in found[3]] == ["e3"]
    assert mine.calls == [["the sync", "the 1:1"]]
    assert other.calls == [["budget"]]
