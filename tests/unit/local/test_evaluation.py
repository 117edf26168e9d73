"""``multitool eval``'s dataset, scoring and report, on cards shaped as /chat answers them (no network)."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest
from multitool.local.evaluation.cases import Case, DatasetError, load_cases
from multitool.local.evaluation.report import floor_failure, render_table, report
from multitool.local.evaluation.scoring import expected_day, score_cards
from multitool.local.evaluation.targets import CaseResult, TurnAnswer, Usage

REPO = Path(__file__).resolve().parents[3]
# The issue's minimum, exactly as it gives it.
MINIMUM = (
    '{"id": "...", "user": "<seeded user id>", "message": "...", "history": [], '
    '"expect": {"cards": [{"type": "show_new_email_draft", "to": ["kinshuok"]}, {"type": '
    '"show_meeting_scheduler", "attendees": ["priya"], "day": "thursday", "durationMinutes": 30}, '
    '{"type": "show_jira_ticket_draft", "project": "WEB", "issueType": "Bug", "priority": "High"}], '
    '"asks": false}}'
)
TUESDAY = date(2026, 12, 1)
ZONE = "Europe/London"


def person(pid: str, email: str) -> dict:
    return {"id": pid, "displayName": pid.title(), "email": email, "timezone": ZONE, "aliases": []}


KINSHUOK = {"query": "Kinshuok", "status": "resolved", "person": person("kinshuok", "k@example.com")}
PRIYA = {"query": "priya", "status": "resolved", "person": person("priya", "p@example.com")}
ALEX = {
    "query": "Alex",
    "status": "ambiguous",
    "person": None,
    "candidates": [person("alex-chen", "a@example.com"), person("alex-muller", "m@example.com")],
}
OUTSIDE = {"query": "sam@contoso.com", "status": "unknown", "person": None, "candidates": []}


def email(*to: dict, card_id: str = "d_email") -> dict:
    return {
        "type": "show_new_email_draft",
        "id": card_id,
        "to": list(to),
        "cc": [],
        "subject": "S",
        "body": "B",
    }


def meeting(*attendees: dict, start: str = "2026-12-03T10:00:00+00:00", minutes: int = 30) -> dict:
    return {
        "type": "show_meeting_scheduler",
        "id": "d_meeting",
        "title": "Sync",
        "attendees": list(attendees),
        "requested": "Thursday",
        "durationMinutes": minutes,
        "timezone": ZONE,
        "slots": [{"start": start, "end": start.replace("10:00", "10:30")}],
    }


def ticket(project: str = "WEB", kind: str = "Bug", priority: str = "High") -> dict:
    return {
        "type": "show_jira_ticket_draft",
        "id": "d_ticket",
        "project": project,
        "issueType": kind,
        "summary": "Login crash",
        "description": "",
        "priority": priority,
        "assignee": None,
    }


def case_of(line: str, tmp_path: Path) -> Case:
    path = tmp_path / "cases.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    return load_cases([path])[0]


# --------------------------------------------------------------------------- the dataset


def test_the_issues_minimum_is_accepted_as_is(tmp_path: Path) -> None:
    case = case_of(MINIMUM, tmp_path)

    assert [c.type for c in case.expect.cards] == [
        "show_new_email_draft",
        "show_meeting_scheduler",
        "show_jira_ticket_draft",
    ]
    assert case.expect.cards[1].fields == {"attendees": ["priya"], "day": "thursday", "durationMinutes": 30}
    assert case.expect.asks is False


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('{"id": "a", "user": "jordan", "message": "hi"}', "expect: Field required"),
        ('{"id": "a", "user": "jordan", "message": "hi", "expect": {"asks": false}}', "list the cards"),
        (
            '{"id": "a", "user": "u", "message": "m", "expect": {"asks": true, "cards": '
            '[{"type": "show_new_email_draft"}]}}',
            "list no cards with it",
        ),
        (
            '{"id": "a", "user": "u", "message": "m", "expect": {"cards": [{"type": "show_email"}]}}',
            "expect.cards.0.type: type must be one of",
        ),
        (
            '{"id": "a", "user": "u", "message": "m", "expect": {"cards": '
            '[{"type": "show_meeting_scheduler", "day": "someday"}]}}',
            "day must be a weekday name",
        ),
        (
            '{"id": "a", "user": "u", "message": "m", "expect": {"cards": '
            '[{"type": "show_new_email_draft", "to": "kinshuok"}]}}',
            "to must be a list",
        ),
        (
            '{"id": "a", "user": "u", "message": "m", "history": [{"role": "assistant", "text": "x"}], '
            '"expect": {"asks": true}}',
            "history.0",
        ),
        ("not json", "line: Invalid JSON"),
    ],
)
def test_a_bad_line_names_its_file_line_and_field(tmp_path: Path, line: str, problem: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "ok", "user": "u", "message": "m", "expect": {"asks": true}}\n' + line + "\n")

    with pytest.raises(DatasetError) as raised:
        load_cases([path])

    assert str(raised.value).startswith(f"{path}:2: ")
    assert problem in str(raised.value)


def test_a_repeated_id_across_files_is_refused(tmp_path: Path) -> None:
    line = '{"id": "same", "user": "u", "message": "m", "expect": {"asks": true}}\n'
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text(line)
    second.write_text("\n" + line)

    with pytest.raises(DatasetError, match=r"b\.jsonl:2: id 'same' is already used at .*a\.jsonl:1"):
        load_cases([first, second])


def test_the_committed_dataset_has_at_least_150_cases_of_every_kind() -> None:
    cases = load_cases([REPO / "evals" / "requests.jsonl"])

    assert len(cases) >= 150
    intents = [len(c.expect.cards) for c in cases]
    assert {1, 2, 3, 4} <= set(intents)
    assert sum(c.expect.asks for c in cases) >= 15
    assert sum(bool(c.history) for c in cases) >= 10
    assert any(wants_a_choice(c) for c in cases)


def test_the_held_out_datasets_are_sixty_messages_or_more_of_every_kind() -> None:
    cases = load_cases([REPO / "evals" / "unseen.jsonl", REPO / "evals" / "unseen-after.jsonl"])

    assert len(cases) >= 100
    assert {1, 2, 3} <= {len(c.expect.cards) for c in cases}
    assert sum(c.expect.asks for c in cases) >= 10
    assert any(not c.message.isascii() and c.expect.asks for c in cases)  # another language: no card
    assert {c.user for c in cases} > {"jordan"}


def wants_a_choice(case: Case) -> bool:
    return any("?" in json.dumps(card.fields) for card in case.expect.cards)


# --------------------------------------------------------------------------- scoring


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("thursday", date(2026, 12, 3)),
        ("Tuesday", date(2026, 12, 8)),  # the next one after today, never today
        ("today", TUESDAY),
        ("+1", date(2026, 12, 2)),
        ("+7", date(2026, 12, 8)),
        ("2026-12-10", date(2026, 12, 10)),
    ],
)
def test_day_values_are_read_from_the_users_today(spec: str, expected: date) -> None:
    assert expected_day(spec, TUESDAY) == expected


def test_the_issues_example_scores_exact_whatever_the_order_of_the_cards(tmp_path: Path) -> None:
    case = case_of(MINIMUM, tmp_path)

    score = score_cards(case.expect, [ticket(), meeting(PRIYA), email(KINSHUOK)], zone=ZONE, today=TUESDAY)

    assert (score.exact, score.found, score.silently_wrong, score.asked) == (True, 3, False, False)


def test_a_wrong_listed_field_is_silently_wrong_and_names_what_the_card_held(tmp_path: Path) -> None:
    case = case_of(MINIMUM, tmp_path)

    score = score_cards(
        case.expect,
        [email(KINSHUOK), meeting(PRIYA, start="2026-12-04T10:00:00+00:00"), ticket(priority="Medium")],
        zone=ZONE,
        today=TUESDAY,
    )

    assert (score.exact, score.silently_wrong, score.found) == (False, True, 3)
    wrong = {check.type: (check.wrong, dict(check.seen)) for check in score.checks}
    assert wrong["show_meeting_scheduler"] == (("day",), {"day": "2026-12-04"})
    assert wrong["show_jira_ticket_draft"] == (("priority",), {"priority": "Medium"})
    assert wrong["show_new_email_draft"] == ((), {})


@pytest.mark.parametrize("unsettled", [ALEX, OUTSIDE], ids=["a choice to make", "not in the directory"])
def test_a_wrong_person_the_card_leaves_unsettled_is_flagged_not_silently_wrong(
    unsettled: dict, tmp_path: Path
) -> None:
    case = case_of(MINIMUM, tmp_path)

    score = score_cards(case.expect, [email(unsettled), meeting(PRIYA), ticket()], zone=ZONE, today=TUESDAY)

    assert (score.exact, score.silently_wrong, score.found) == (False, False, 3)
    check = next(c for c in score.checks if c.type == "show_new_email_draft")
    assert (check.wrong, check.flagged, check.silent) == (("to",), ("to",), ())


def test_a_settled_wrong_person_beside_an_unsettled_one_is_still_flagged_but_a_wrong_day_is_not(
    tmp_path: Path,
) -> None:
    case = case_of(MINIMUM, tmp_path)

    score = score_cards(
        case.expect,
        [email(KINSHUOK), meeting(ALEX, start="2026-12-04T10:00:00+00:00"), ticket()],
        zone=ZONE,
        today=TUESDAY,
    )

    check = next(c for c in score.checks if c.type == "show_meeting_scheduler")
    assert (set(check.wrong), check.flagged, check.silent) == ({"attendees", "day"}, ("attendees",), ("day",))
    assert score.silently_wrong


def test_a_missing_card_lowers_recall_without_being_silently_wrong(tmp_path: Path) -> None:
    case = case_of(MINIMUM, tmp_path)

    score = score_cards(case.expect, [email(KINSHUOK), ticket()], zone=ZONE, today=TUESDAY)

    assert (score.exact, score.found, score.expected, score.silently_wrong) == (False, 2, 3, False)


def test_an_extra_card_is_silently_wrong(tmp_path: Path) -> None:
    case = case_of(
        '{"id": "a", "user": "u", "message": "m", "expect": {"cards": [{"type": "show_new_email_draft"}]}}',
        tmp_path,
    )

    score = score_cards(case.expect, [email(KINSHUOK), ticket()], zone=ZONE, today=TUESDAY)

    assert (score.exact, score.silently_wrong) == (False, True)
    assert score.unexpected == ("show_jira_ticket_draft",)


def test_asks_is_exact_only_without_a_card(tmp_path: Path) -> None:
    case = case_of('{"id": "a", "user": "u", "message": "weather?", "expect": {"asks": true}}', tmp_path)

    asked = score_cards(case.expect, [], zone=ZONE, today=TUESDAY)
    acted = score_cards(case.expect, [email(KINSHUOK)], zone=ZONE, today=TUESDAY)

    assert (asked.exact, asked.asked, asked.silently_wrong) == (True, True, False)
    assert (acted.exact, acted.asked, acted.silently_wrong) == (False, False, True)


@pytest.mark.parametrize(
    ("wanted", "resolutions", "matches"),
    [
        (["?"], [ALEX], True),
        (["alex-chen"], [ALEX], False),  # a choice offered is not the person meant
        (["?"], [KINSHUOK], False),
        (["sam@contoso.com"], [OUTSIDE], True),
        (["k@example.com"], [KINSHUOK], True),  # a seeded person's address is that person
        (["priya", "kinshuok"], [KINSHUOK, PRIYA], True),  # any order
        (["kinshuok"], [KINSHUOK, PRIYA], False),  # one too many
    ],
)
def test_people_are_ids_addresses_or_a_choice(
    wanted: list[str], resolutions: list[dict], matches: bool
) -> None:
    line = json.dumps(
        {
            "id": "a",
            "user": "u",
            "message": "m",
            "expect": {"cards": [{"type": "show_new_email_draft", "to": wanted}]},
        }
    )
    expect = Case.model_validate_json(line).expect

    assert score_cards(expect, [email(*resolutions)], zone=ZONE, today=TUESDAY).exact is matches


def test_two_cards_of_one_type_pair_with_the_fewest_wrong_fields(tmp_path: Path) -> None:
    case = case_of(
        '{"id": "a", "user": "u", "message": "m", "expect": {"cards": [{"type": "show_new_email_draft", '
        '"to": ["priya"]}, {"type": "show_new_email_draft", "to": ["kinshuok"]}]}}',
        tmp_path,
    )

    score = score_cards(
        case.expect, [email(KINSHUOK, card_id="d_1"), email(PRIYA, card_id="d_2")], zone=ZONE, today=TUESDAY
    )

    assert score.exact
    assert [check.card_id for check in score.checks] == ["d_2", "d_1"]


# --------------------------------------------------------------------------- the report


def result(case: Case, model: str, cards: list[dict], seconds: float, usage: Usage | None) -> CaseResult:
    score = score_cards(case.expect, cards, zone=ZONE, today=TUESDAY)
    answer = TurnAnswer(200, {"message": "done", "clientActions": cards}, seconds, usage)
    return CaseResult(case, model, score, answer, discarded=len(cards), undiscarded=0)


def two_runs(tmp_path: Path) -> dict:
    case = case_of(MINIMUM, tmp_path)
    ask = Case.model_validate_json('{"id": "ask", "user": "u", "message": "hi", "expect": {"asks": true}}')
    right = [email(KINSHUOK), meeting(PRIYA), ticket()]
    model_a = [
        result(case, "model-a", right, 0.2, Usage(2, 1000, 200, 300)),
        result(ask, "model-a", [], 0.1, Usage(1, 400, 20, 0)),
    ]
    model_b = [
        result(case, "model-b", [email(PRIYA), meeting(PRIYA)], 0.9, Usage(3, 1500, 300, 0)),
        result(ask, "model-b", [], 0.3, Usage(1, 500, 30, 0)),
    ]
    return report([model_a, model_b], runtime="converse", datasets=[Path("evals/requests.jsonl")])


def test_the_json_report_has_a_summary_per_model_and_an_entry_per_case_and_model(tmp_path: Path) -> None:
    document = two_runs(tmp_path)

    assert document["models"] == ["model-a", "model-b"]
    a, b = document["summary"]
    assert (a["exactRate"], a["intentRecall"], a["silentlyWrongRate"], a["asked"]) == (1.0, 1.0, 0.0, 1)
    assert (b["exactRate"], b["intentRecall"], b["silentlyWrongRate"]) == (0.5, 0.6667, 0.5)
    assert (a["modelCalls"], a["inputTokens"], a["outputTokens"], a["cachedTokens"]) == (3, 1400, 220, 300)
    assert a["tokensPerCase"] == 810.0
    assert (b["latencyP50Ms"], b["latencyP95Ms"]) == (300.0, 900.0)
    first = document["cases"][2]
    assert {"id", "model", "exact", "silentlyWrong", "cards", "modelCalls", "latencyMs"} <= set(first)
    assert (first["id"], first["model"], first["exact"], first["silentlyWrong"]) == (
        "...",
        "model-b",
        False,
        True,
    )
    assert [c["got"] for c in first["cards"] if c["wrong"]] == [{"to": ["priya"]}]
    assert json.loads(json.dumps(document)) == document


def test_the_table_puts_models_side_by_side_and_lists_what_was_not_exact(tmp_path: Path) -> None:
    table = render_table(two_runs(tmp_path))

    header, rule, *rows = table.splitlines()
    assert re.split(r"\s{2,}", header.strip()) == ["model-a", "model-b"]
    assert set(rule) <= {"-", " "}
    assert re.split(r"\s{2,}", rows[1].strip()) == ["exact", "100.0%", "50.0%"]
    assert "model-b: 1 not exact" in table
    assert (
        '...: show_new_email_draft got to ["priya"]; missing show_jira_ticket_draft SILENTLY WRONG' in table
    )
    assert "model-a:" not in table


def test_the_floor_names_each_model_under_it(tmp_path: Path) -> None:
    document = two_runs(tmp_path)

    assert floor_failure(document, 0.5) is None
    assert floor_failure(document, 0.75) == "model-b scored 50.0% exact, under the floor of 75.0%"


def test_the_silently_wrong_ceiling_names_each_model_over_it(tmp_path: Path) -> None:
    document = two_runs(tmp_path)

    assert floor_failure(document, None, 0.5) is None
    assert floor_failure(document, None, 0) == (
        "model-b was silently wrong on 1 of 2 cases (50.0%), over the ceiling of 0.0%"
    )
    assert floor_failure(document, 0.75, 0) == (
        "model-b scored 50.0% exact, under the floor of 75.0%; "
        "model-b was silently wrong on 1 of 2 cases (50.0%), over the ceiling of 0.0%"
    )


# --------------------------------------------------------------------------- metering the model


class RecordingHarness:
    """Answers InvokeHarness with a stream whose metadata carries the usage, as the harness streams it."""

    def __init__(self) -> None:
        self.requests: list[dict] = []

    def invoke_harness(self, **params: object) -> dict:
        self.requests.append(params)
        stream = [
            {"messageStart": {"role": "assistant"}},
            {"messageStop": {"stopReason": "end_turn"}},
            {"metadata": {"usage": {"inputTokens": 900, "outputTokens": 40, "cacheReadInputTokens": 600}}},
        ]
        return {"stream": iter(stream)}


def test_a_metered_harness_names_the_model_and_counts_the_streams_usage() -> None:
    from botocore.session import get_session
    from botocore.validate import validate_parameters
    from multitool.local.evaluation.targets import MeteredClient

    harness = RecordingHarness()
    metered = MeteredClient(harness, harness_model_id="anthropic.example-model-v1:0")
    request = {
        "harnessArn": "arn:aws:bedrock-agentcore:us-east-1:123456789012:harness/h-1",
        "runtimeSessionId": "s" * 40,
        "messages": [{"role": "user", "content": [{"text": "Email Kinshuok about the doc"}]}],
        "systemPrompt": [{"text": "Call every tool the message asks for."}],
    }

    events = list(metered.invoke_harness(**request)["stream"])

    assert len(events) == 3  # the runtime reads the stream as it was
    sent = harness.requests[0]
    assert sent["model"] == {"bedrockModelConfig": {"modelId": "anthropic.example-model-v1:0"}}
    # The override is a request InvokeHarness accepts (botocore's service model).
    shape = get_session().get_service_model("bedrock-agentcore").operation_model("InvokeHarness").input_shape
    validate_parameters(sent, shape)
    used = metered.take()
    assert (used.calls, used.input_tokens, used.output_tokens, used.cached_tokens) == (1, 900, 40, 600)
    assert (
        used.estimated_input_tokens
        == len(
            json.dumps(
                {k: request[k] for k in ("systemPrompt", "messages")} | {"tools": None}, separators=(",", ":")
            )
        )
        // 4
    )
    assert metered.take().calls == 0  # take() starts the next turn's count


def test_the_readme_states_the_floor_make_eval_applies() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    found = re.search(r"^EVAL_FLOOR := ([0-9.]+)$", makefile, re.MULTILINE)
    assert found is not None
    floor = float(found.group(1))
    readme = (REPO / "README.md").read_text(encoding="utf-8")

    assert f"fewer than **{floor * 100:g}%** of the cases exactly" in " ".join(readme.split())
    assert "--min-exact $(EVAL_FLOOR)" in makefile


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("tuesday", "2026-12-01T12:00:00+00:00"),  # today is a Tuesday: today, at noon UTC
        ("Monday", "2026-11-30T12:00:00+00:00"),
        ("wednesday", "2026-11-25T12:00:00+00:00"),  # never ahead of today: the week before
        ("2026-12-03T09:30:00+01:00", "2026-12-03T09:30:00+01:00"),
        ("2026-12-03T09:30:00Z", "2026-12-03T09:30:00+00:00"),
    ],
)
def test_a_run_is_pinned_to_a_weekday_or_an_instant(spec: str, expected: str) -> None:
    from datetime import UTC, datetime

    from multitool.local.evaluation.runs import run_clock

    assert run_clock(spec, today=datetime(2026, 12, 1, 20, 5, tzinfo=UTC)).isoformat() == expected


@pytest.mark.parametrize(
    ("spec", "problem"), [("2026-12-03T09:30", "needs an offset"), ("soon", "weekday name")]
)
def test_a_clock_that_is_not_one_is_refused(spec: str, problem: str) -> None:
    from multitool.local.evaluation.runs import run_clock

    with pytest.raises(ValueError, match=problem):
        run_clock(spec)


LINKED = (
    '{"id": "linked", "user": "jordan", "message": "File a WEB bug and email Kinshuok about it", '
    '"expect": {"cards": [{"type": "show_jira_ticket_draft", "project": "WEB"}, '
    '{"type": "show_new_email_draft", "to": ["kinshuok"], "linksTo": ["show_jira_ticket_draft"]}]}}'
)


def test_a_mail_that_must_name_the_ticket_scores_its_link_to_the_ticket_card(tmp_path: Path) -> None:
    case = case_of(LINKED, tmp_path)
    linked = {**email(KINSHUOK), "links": [{"waitsFor": "d_ticket", "placeholder": "{{ticket.key}}"}]}
    elsewhere = {**email(KINSHUOK), "links": [{"waitsFor": "d_of_another_turn"}]}

    assert score_cards(case.expect, [ticket(), linked], zone=ZONE, today=TUESDAY).exact
    for card in (email(KINSHUOK), elsewhere):  # no link, or a link to no card of this turn
        score = score_cards(case.expect, [ticket(), card], zone=ZONE, today=TUESDAY)
        assert not score.exact
        assert score.silently_wrong
        [mail] = [c for c in score.checks if c.type == "show_new_email_draft"]
        assert mail.wrong == ("linksTo",)
        assert mail.seen == {"linksTo": []}


def test_links_to_must_list_card_types(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="linksTo must be a list of the card types"):
        case_of(LINKED.replace('["show_jira_ticket_draft"]}]', '["ticket"]}]'), tmp_path)
