"""Links between the cards of one turn, end to end over moto, SES v2 and the fake Jira.

One batch (``run_calls``, what the orchestrator runs for one model response) drafts a ticket, a
meeting and a mail whose text names the ticket's key and link and the meeting's time; the review
API (``POST /actions/{id}/confirm``, ``POST /actions/confirm-all``) confirms them in order and
sends the mail with the real values, exactly once.
"""

from __future__ import annotations

import email
import email.policy
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import boto3
import pytest
from moto.dynamodb.models import DynamoDBBackend
from multitool.drafts import UNCLAIMED_OWNER, DraftStatus
from multitool.local.standins.jira_server import FakeJira, start_fake_jira
from multitool.tools import ToolContext, run_calls
from multitool.wiring.action_groups import aws_environment
from multitool.wiring.review import aws_reviewer, review_function_app

from tests.support.http_events import FakeLambdaContext, http_api_event, json_body
from tests.support.moto_tables import REGION, Tables
from tests.support.review_support import NOW, OWNER

CONTEXT: Any = FakeLambdaContext()
ZONE = "America/New_York"
TICKET = {"project": "WEB", "issueType": "Bug", "summary": "Login crash", "label": "ticket"}
MEETING = {"attendees": ["Priya"], "title": "Sync", "when": "Thursday", "label": "sync"}
EMAIL = {
    "to": ["Priya"],
    "subject": "Login crash: {{ ticket.key }}",
    "body": "I filed {{ticket.key}} for the login crash: {{ticket.url}}. Let's talk {{sync.when}}.",
}


@dataclass
class Turn:
    ticket: dict[str, Any]
    meeting: dict[str, Any]
    email: dict[str, Any]


@pytest.fixture(scope="module")
def fake_jira() -> Iterator[FakeJira]:
    server = start_fake_jira(email="bot@example.com", api_token="secret-token")
    yield server
    server.stop()


@pytest.fixture
def aws(review_aws: Tables, fake_jira: FakeJira, monkeypatch: pytest.MonkeyPatch) -> Tables:
    """The review Lambda's environment with Jira; moto's put_item made atomic as DynamoDB's is."""
    fake_jira.issues.clear()
    secrets = boto3.client("secretsmanager", region_name=REGION)
    arn = secrets.create_secret(
        Name="multitool/jira",
        SecretString=json.dumps(
            {"baseUrl": fake_jira.url, "email": "bot@example.com", "apiToken": "secret-token"}
        ),
    )["ARN"]
    monkeypatch.setenv("JIRA_SECRET_ARN", arn)
    lock = threading.Lock()
    original: Callable[..., Any] = DynamoDBBackend.put_item

    def atomic_put_item(self: DynamoDBBackend, *args: Any, **kwargs: Any) -> Any:
        with lock:
            return original(self, *args, **kwargs)

    monkeypatch.setattr(DynamoDBBackend, "put_item", atomic_put_item)
    aws_reviewer.cache_clear()
    return review_aws


def propose(calls: list[tuple[str, dict[str, Any]]], session: str = "s-links") -> list[Any]:
    """One model response's calls, run as the orchestrator runs them."""
    ctx = ToolContext(owner=OWNER, session_id=session, now=NOW, timezone=ZONE)
    environment = aws_environment()
    return run_calls(calls, ctx, environment.ports, environment.config)


def linked_turn(session: str = "s-links") -> Turn:
    outcomes = propose(
        [
            ("create_jira_ticket_draft", TICKET),
            ("propose_meeting", MEETING),
            ("create_email_draft", EMAIL),
        ],
        session,
    )
    assert [o.status for o in outcomes] == [200, 200, 200], [o.body for o in outcomes]
    return Turn(*(o.body for o in outcomes))


def call(method: str, path: str, body: Any = None, query: dict[str, str] | None = None) -> tuple[int, Any]:
    params = {"id": path.split("/")[2]} if path.count("/") == 3 else None
    route = "POST /actions/{id}/confirm" if params and path.endswith("/confirm") else None
    response = review_function_app().resolve(
        http_api_event(method, path, body, sub=OWNER, path_parameters=params, query=query, route_key=route),
        CONTEXT,
    )
    return response["statusCode"], json_body(response)


def confirm(draft_id: str, body: dict[str, Any] | None = None, **query: str) -> tuple[int, Any]:
    return call("POST", f"/actions/{draft_id}/confirm", body or {}, query or None)


@dataclass
class Sent:
    subject: str
    body: str


def _read(message: Any) -> Sent:
    if not hasattr(message, "raw_data"):
        return Sent(message.subject, message.body)
    parsed = email.message_from_string(message.raw_data, policy=email.policy.default)
    part = parsed.get_body(preferencelist=("plain",))
    return Sent(str(parsed["Subject"]), part.get_content() if part is not None else "")


def invitations() -> list[Sent]:
    return [m for m in map(_read, Tables.sent()) if m.subject.startswith("Invitation")]


def mails() -> list[Sent]:
    """The mails SES accepted, invitations aside."""
    return [m for m in map(_read, Tables.sent()) if not m.subject.startswith("Invitation")]


# -- the batch ---------------------------------------------------------------------------------


def test_the_mail_card_carries_its_links_to_the_ticket_and_the_meeting(aws: Tables) -> None:
    turn = linked_turn()

    assert turn.email["subject"] == "Login crash: {{ticket.key}}"  # written back canonical
    links = {(link["field"], link["placeholder"]): link for link in turn.email["links"]}
    assert set(links) == {
        ("subject", "{{ticket.key}}"),
        ("body", "{{ticket.key}}"),
        ("body", "{{ticket.url}}"),
        ("body", "{{sync.when}}"),
    }
    key = links[("body", "{{ticket.key}}")]
    assert key["waitsFor"] == turn.ticket["draftId"]
    assert key["kind"] == "show_jira_ticket_draft"
    assert (key["preview"], key["pending"]) == ("WEB-?", "once the ticket is created")
    when = links[("body", "{{sync.when}}")]
    assert when["waitsFor"] == turn.meeting["draftId"]
    assert when["preview"].startswith("Thursday 3 December, 09:00")
    stored = aws.drafts.get(turn.email["draftId"])
    assert stored is not None
    assert stored.payload["links"] == turn.email["links"]
    status, view = call("GET", f"/actions/{turn.email['draftId']}")
    assert status == 200
    assert view["card"]["links"] == turn.email["links"]


@pytest.mark.parametrize(
    ("email", "field", "words"),
    [
        ({"body": "Filed as {{tikcet.key}}."}, "body", "no call of this turn has that label"),
        ({"body": "Filed as {{ticket.when}}."}, "body", "produces key, url, not 'when'"),
        ({"body": "Me: {{mail.key}}", "label": "mail"}, "body", "cannot wait for itself"),
        ({"to": ["{{ticket.key}}"]}, "to", "'to' cannot name a value of another call"),
        ({"body": "x", "label": "ticket"}, "label", "already the label of another call"),
    ],
    ids=["unknown-label", "value-not-produced", "itself", "field-takes-none", "label-twice"],
)
def test_a_bad_link_is_an_error_naming_the_field_and_the_other_calls_still_run(
    aws: Tables, email: dict[str, Any], field: str, words: str
) -> None:
    ticket, mail = propose(
        [("create_jira_ticket_draft", TICKET), ("create_email_draft", {**EMAIL, "body": "Hi.", **email})]
    )

    assert ticket.status == 200
    assert mail.status == 400
    assert mail.body["error"]["code"] == "invalid_link"
    assert mail.body["error"]["field"] == field
    assert words in mail.body["error"]["message"]


def test_calls_that_wait_for_each_other_are_a_cycle_error(aws: Tables) -> None:
    ticket, meeting, mail = propose(
        [
            ("create_jira_ticket_draft", {**TICKET, "summary": "Crash, to discuss {{sync.when}}"}),
            ("propose_meeting", {**MEETING, "title": "About {{ticket.key}}"}),
            ("create_email_draft", EMAIL),
        ]
    )

    for outcome, field in ((ticket, "summary"), (meeting, "title")):
        assert outcome.status == 400
        assert outcome.body["error"]["code"] == "invalid_link"
        assert outcome.body["error"]["field"] == field
        assert "cycle" in outcome.body["error"]["message"]
    # The mail named both: neither made a card, so it is drafted without them, and says so.
    assert mail.status == 200
    assert "{{" not in mail.body["subject"] + mail.body["body"]
    assert len(mail.body["notes"]) == 2


def test_a_prerequisite_that_failed_leaves_a_card_without_the_placeholder_and_a_note(aws: Tables) -> None:
    ticket, mail = propose(
        [
            ("create_jira_ticket_draft", {**TICKET, "project": "NOPE"}),
            ("create_email_draft", {**EMAIL, "body": "I filed {{ticket.key}} for the login crash."}),
        ]
    )

    assert ticket.status == 404
    assert mail.status == 200
    assert "{{" not in mail.body["body"]
    assert "links" not in mail.body
    assert any("{{ticket.key}}" in note and "removed" in note for note in mail.body["notes"])


def test_a_call_of_its_own_links_to_an_earlier_card_by_its_draft_id(aws: Tables, fake_jira: FakeJira) -> None:
    # What a client making one call at a time (MCP, the Gateway) does: the ticket first, then the
    # mail naming the ticket's card by its draftId.
    [ticket] = propose([("create_jira_ticket_draft", {k: v for k, v in TICKET.items() if k != "label"})])
    ticket_id = ticket.body["draftId"]
    [mail] = propose(
        [("create_email_draft", {**EMAIL, "subject": "Crash", "body": f"Filed: {{{{{ticket_id}.key}}}}"})]
    )
    [someone_elses] = propose(
        [("create_email_draft", {**EMAIL, "subject": "Crash", "body": "{{d_" + "0" * 32 + ".key}}"})]
    )

    assert mail.status == 200, mail.body
    [link] = mail.body["links"]
    assert (link["waitsFor"], link["value"], link["preview"]) == (ticket_id, "key", "WEB-?")
    assert someone_elses.status == 400
    assert "names no open card of yours" in someone_elses.body["error"]["message"]
    status, body = confirm(mail.body["draftId"], prerequisites="first")
    assert status == 200, body
    [issue] = fake_jira.issues
    assert mails()[0].body.startswith(f"Filed: {issue['key']}")


def test_a_gateway_call_of_no_user_yet_links_to_no_earlier_card(aws: Tables) -> None:
    # Drafts the Gateway makes belong to no user until their turn claims them: one caller's call must
    # not read another's card through a draftId (its preview would show that card's project).
    ctx = ToolContext(owner=UNCLAIMED_OWNER, session_id="gw", now=NOW, timezone=ZONE)
    environment = aws_environment()
    ticket = {k: v for k, v in TICKET.items() if k != "label"}
    [made] = run_calls([("create_jira_ticket_draft", ticket)], ctx, environment.ports, environment.config)
    mail = {**EMAIL, "subject": "Crash", "body": "{{" + made.body["draftId"] + ".key}}"}
    [linked] = run_calls([("create_email_draft", mail)], ctx, environment.ports, environment.config)

    assert linked.status == 400
    assert "names no open card of yours" in linked.body["error"]["message"]


# -- confirm in order ----------------------------------------------------------------------------


def test_confirming_the_mail_first_is_409_waits_for_naming_the_ticket_and_nothing_is_sent(
    aws: Tables, fake_jira: FakeJira
) -> None:
    turn = linked_turn()

    status, body = confirm(turn.email["draftId"])

    assert status == 409
    assert body["error"]["code"] == "waits_for"
    assert set(body["error"]["waitsFor"]) == {turn.ticket["draftId"], turn.meeting["draftId"]}
    assert body["action"]["status"] == "proposed"
    assert mails() == []
    assert fake_jira.issues == []


def test_prerequisites_first_creates_the_ticket_then_sends_the_real_key_link_and_booked_time(
    aws: Tables, fake_jira: FakeJira
) -> None:
    turn = linked_turn()
    # The meeting needs a choice first (which slot): the prerequisites-first confirm says so.
    status, body = confirm(turn.email["draftId"], prerequisites="first")
    assert status == 409
    assert body["error"]["code"] == "prerequisite_refused"
    assert body["error"]["waitsFor"] == [turn.meeting["draftId"]]
    assert "Choose one of the proposed slots" in body["error"]["message"]
    assert mails() == []
    assert confirm(turn.meeting["draftId"], {"slot": turn.meeting["slots"][0]})[0] == 200

    status, body = confirm(turn.email["draftId"], prerequisites="first")

    assert status == 200, body
    [issue] = fake_jira.issues
    [mail] = mails()
    assert mail.subject == f"Login crash: {issue['key']}"
    text = mail.body
    assert f"I filed {issue['key']} for the login crash: {fake_jira.url}/browse/{issue['key']}." in text
    assert "Let's talk Thursday 3 December, 09:00-09:30 (America/New_York)." in text
    assert "{{" not in text
    assert "-?" not in text
    assert body["edits"]["subject"] == mail.subject  # the fill is the confirmed content
    # A retry of the same confirm sends nothing again: the filled content compares equal.
    again, view = confirm(turn.email["draftId"])
    assert again == 200
    assert view["result"] == body["result"]
    assert len(mails()) == 1
    assert len(fake_jira.issues) == 1


def test_a_deleted_placeholder_waits_for_nothing(aws: Tables, fake_jira: FakeJira) -> None:
    turn = linked_turn()

    status, body = confirm(
        turn.email["draftId"], {"subject": "Login crash", "body": "I filed a ticket for the login crash."}
    )

    assert status == 200, body
    assert fake_jira.issues == []
    [mail] = mails()
    assert mail.subject == "Login crash"


def test_an_edited_ticket_and_another_slot_are_what_the_mail_says(aws: Tables, fake_jira: FakeJira) -> None:
    turn = linked_turn()
    second = turn.meeting["slots"][1]

    assert confirm(turn.ticket["draftId"], {"project": "OPS", "issueType": "Task"})[0] == 200
    assert confirm(turn.meeting["draftId"], {"slot": second})[0] == 200
    status, body = confirm(turn.email["draftId"])

    assert status == 200, body
    [issue] = fake_jira.issues
    assert issue["key"].startswith("OPS-")
    [mail] = mails()
    assert mail.subject == f"Login crash: {issue['key']}"
    assert "Let's talk Thursday 3 December, 09:30-10:00 (America/New_York)." in mail.body


@pytest.mark.parametrize("how", ["discarded", "failed"])
def test_a_discarded_or_failed_ticket_turns_the_mail_back_into_an_ordinary_draft(
    aws: Tables, fake_jira: FakeJira, how: str
) -> None:
    turn = linked_turn()
    ticket_id = turn.ticket["draftId"]
    if how == "discarded":
        assert call("POST", f"/actions/{ticket_id}/discard")[0] == 200
    else:
        fake_jira.fail_next(500)
        assert confirm(ticket_id)[0] in (502, 503)
    assert confirm(turn.meeting["draftId"], {"slot": turn.meeting["slots"][0]})[0] == 200

    status, body = confirm(turn.email["draftId"])

    assert status == 409
    assert body["error"]["code"] == "link_dropped"
    card = body["action"]["card"]
    assert "{{ticket" not in card["subject"] + card["body"]
    assert "{{sync.when}}" in card["body"]  # the booked meeting's link stays
    assert [link["placeholder"] for link in card["links"]] == ["{{sync.when}}"]
    assert any(how in note and "WEB-?" in note for note in card["notes"])
    assert mails() == []
    # Confirmed again as it now is: sent with the meeting's time, never a placeholder.
    status, body = confirm(turn.email["draftId"])
    assert status == 200, body
    [mail] = mails()
    assert "{{" not in mail.subject + mail.body
    assert "WEB-?" not in mail.body
    assert "Thursday 3 December, 09:00-09:30" in mail.body


# -- confirm all -------------------------------------------------------------------------------


def confirm_all(ids: list[str], edits: dict[str, Any] | None = None) -> tuple[int, Any]:
    return call("POST", "/actions/confirm-all", {"ids": ids, "edits": edits or {}})


def test_confirm_all_runs_the_turn_in_dependency_order_and_a_retry_confirms_nothing_twice(
    aws: Tables, fake_jira: FakeJira
) -> None:
    turn = linked_turn()
    ids = [turn.email["draftId"], turn.meeting["draftId"], turn.ticket["draftId"]]
    slot = {turn.meeting["draftId"]: {"slot": turn.meeting["slots"][0]}}

    status, body = confirm_all(ids, slot)

    assert status == 200, body
    order = [o["id"] for o in body["outcomes"]]
    assert order.index(turn.email["draftId"]) == 2
    assert {o["id"]: o["outcome"] for o in body["outcomes"]} == {
        turn.ticket["draftId"]: "created",
        turn.meeting["draftId"]: "booked",
        turn.email["draftId"]: "sent",
    }
    [issue] = fake_jira.issues
    [mail] = mails()
    assert issue["key"] in mail.subject
    status, again = confirm_all(ids, slot)
    assert status == 200
    assert [o["outcome"] for o in again["outcomes"]] == [o["outcome"] for o in body["outcomes"]]
    assert len(fake_jira.issues) == 1
    assert len(mails()) == 1


def test_a_card_that_needs_a_choice_holds_the_cards_that_wait_for_it(
    aws: Tables, fake_jira: FakeJira
) -> None:
    turn = linked_turn()
    ids = [turn.ticket["draftId"], turn.meeting["draftId"], turn.email["draftId"]]
    # The ticket's assignee is no one the card offered: the user must settle it first.
    status, body = confirm_all(
        ids,
        {
            turn.ticket["draftId"]: {"assignee": "nobody-offered"},
            turn.meeting["draftId"]: {"slot": turn.meeting["slots"][0]},
        },
    )

    assert status == 200
    outcomes = {o["id"]: o for o in body["outcomes"]}
    assert outcomes[turn.ticket["draftId"]]["outcome"] == "refused"
    assert outcomes[turn.ticket["draftId"]]["code"] == "invalid_edits"
    assert outcomes[turn.meeting["draftId"]]["outcome"] == "booked"
    held = outcomes[turn.email["draftId"]]
    assert held["outcome"] == "held"
    assert held["waitsFor"] == [turn.ticket["draftId"]]
    assert f"the Jira ticket draft ({turn.ticket['draftId']})" in held["message"]
    assert mails() == []
    assert fake_jira.issues == []


def test_twenty_concurrent_confirm_alls_do_each_side_effect_once(aws: Tables, fake_jira: FakeJira) -> None:
    turn = linked_turn()
    ids = [turn.email["draftId"], turn.ticket["draftId"], turn.meeting["draftId"]]
    barrier = threading.Barrier(20)
    answers: list[tuple[int, Any]] = []
    lock = threading.Lock()

    def one() -> None:
        app = review_function_app()
        body = {"ids": ids, "edits": {turn.meeting["draftId"]: {"slot": turn.meeting["slots"][0]}}}
        event = http_api_event("POST", "/actions/confirm-all", body, sub=OWNER)
        barrier.wait()
        response = app.resolve(event, CONTEXT)
        with lock:
            answers.append((response["statusCode"], json_body(response)))

    threads = [threading.Thread(target=one) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert [status for status, _ in answers] == [200] * 20
    assert len(fake_jira.issues) == 1
    assert len(invitations()) == 1
    # The mail goes once: in the confirm-all that found both prerequisites done, or in a later one.
    status, body = confirm_all(ids, {turn.meeting["draftId"]: {"slot": turn.meeting["slots"][0]}})
    assert status == 200
    assert {o["outcome"] for o in body["outcomes"]} == {"created", "booked", "sent"}
    [mail] = mails()
    assert fake_jira.issues[0]["key"] in mail.subject
    for draft_id in ids:
        stored = aws.drafts.get(draft_id)
        assert stored is not None
        assert stored.status is DraftStatus.DONE
