"""The offline model: a deterministic Converse stand-in that splits a message into tool calls."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from multitool.runtimes.converse import tool_specs_from_registry
from multitool.runtimes.offline import HELP_TEXT, OfflineModel, parse_intents, split_intents
from multitool.runtimes.prompts import system_prompt

TOOLS = {"tools": tool_specs_from_registry()}
# Tuesday 1 December 2026, 10:00 in Berlin: what the system prompt tells every model.
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
SYSTEM = [{"text": system_prompt(timezone="Europe/Berlin", now=NOW)}]


def ask(model: OfflineModel, text: str, tool_config=TOOLS) -> dict:
    return model.converse(
        modelId="offline",
        messages=[{"role": "user", "content": [{"text": text}]}],
        system=SYSTEM,
        toolConfig=tool_config,
    )


def tool_uses(response: dict) -> list[dict]:
    return [b["toolUse"] for b in response["output"]["message"]["content"] if "toolUse" in b]


def test_email_and_meeting_in_one_response_with_raw_names_and_dates() -> None:
    response = ask(OfflineModel(), "Email Kinshuok about the doc and schedule a sync for Thursday")

    assert response["stopReason"] == "tool_use"
    uses = tool_uses(response)
    assert [u["name"] for u in uses] == ["create_email_draft", "propose_meeting"]
    assert uses[0]["input"]["to"] == ["Kinshuok"]
    assert uses[0]["input"]["subject"] == "About the doc"
    assert "the doc" in uses[0]["input"]["body"]
    assert uses[1]["input"] == {
        "attendees": ["Kinshuok"],
        "title": "Sync",
        "when": "Thursday",
        "times": ["2026-12-03"],
    }
    assert len({u["toolUseId"] for u in uses}) == 2


def test_jira_bug_then_email_about_it_refers_to_the_ticket() -> None:
    uses = tool_uses(
        ask(OfflineModel(), "File a Jira bug in WEB for the login crash and email Priya about it")
    )

    assert [u["name"] for u in uses] == ["create_jira_ticket_draft", "create_email_draft"]
    ticket, email = uses[0]["input"], uses[1]["input"]
    assert (ticket["project"], ticket["issueType"], ticket["summary"]) == ("WEB", "Bug", "Login crash")
    assert email["to"] == ["Priya"]
    assert email["subject"] == "Login crash"
    assert "Login crash" in email["body"]
    # The mail names the ticket the other card creates, as a model does (multitool.toolkit.links).
    assert ticket["label"] == "ticket"
    assert "{{ticket.key}}" in email["body"]
    assert "{{ticket.url}}" in email["body"]


def test_a_meeting_then_email_her_the_details_names_the_booked_time() -> None:
    uses = tool_uses(ask(OfflineModel(), "set up a sync with Priya on Thursday and email her the details"))

    assert [u["name"] for u in uses] == ["propose_meeting", "create_email_draft"]
    meeting, email = uses[0]["input"], uses[1]["input"]
    assert meeting["label"] == "sync"
    assert email["to"] == ["Priya"]
    assert "{{sync.when}}" in email["body"]


def test_requests_that_name_no_other_card_carry_no_label_or_placeholder() -> None:
    uses = tool_uses(
        ask(OfflineModel(), "Email Kinshuok about the doc and schedule a sync with Priya on Thursday")
    )

    assert all("label" not in u["input"] for u in uses)
    assert all("{{" not in str(u["input"]) for u in uses)


def test_one_meeting_with_two_attendees_duration_and_relative_day() -> None:
    uses = tool_uses(ask(OfflineModel(), "Schedule a 45 minute review with Priya and Kinshuok next Tuesday"))

    assert len(uses) == 1
    assert uses[0]["name"] == "propose_meeting"
    assert uses[0]["input"] == {
        "attendees": ["Priya", "Kinshuok"],
        "title": "Review",
        "when": "next Tuesday",
        "times": ["2026-12-08"],
        "durationMinutes": 45,
    }


def weekly(*days: str, interval: int = 1, until: str | None = None) -> dict[str, object]:
    return {
        "frequency": "weekly",
        "interval": interval,
        "weekdays": list(days),
        "until": until,
        "count": None,
    }


@pytest.mark.parametrize(
    ("message", "when", "structured"),
    [
        # The phrase as said, beside the values the model resolved from now and the user's zone.
        (
            "Schedule a sync with Priya the day after tomorrow",
            "the day after tomorrow",
            {"times": ["2026-12-03"]},
        ),
        (
            "Schedule a sync with Priya day after tomorrow at 2pm",
            "day after tomorrow at 2pm",
            {"times": ["2026-12-03T14:00"]},
        ),
        (
            "Schedule a sync with Priya on Thursday at 3pm London time",
            "Thursday at 3pm London time",
            {"times": ["2026-12-03T15:00"], "timezone": "Europe/London"},
        ),
        (
            "Schedule a sync with Priya Thursday at 4pm PST",
            "Thursday at 4pm PST",
            {"times": ["2026-12-03T16:00"], "timezone": "America/Los_Angeles"},
        ),
        (
            "Schedule a sync with Priya Thursday 16:00 Europe/London",
            "Thursday 16:00 Europe/London",
            {"times": ["2026-12-03T16:00"], "timezone": "Europe/London"},
        ),
        (
            "Schedule a sync with Priya on Thursday at 4pm in Priya's time zone",
            "Thursday at 4pm in Priya's time zone",
            {"times": ["2026-12-03T16:00"], "timezoneOf": "Priya"},
        ),
        (
            "Schedule a sync with Priya on Thursday at 4pm in my time zone",
            "Thursday at 4pm in my time zone",
            {"times": ["2026-12-03T16:00"], "timezone": "Europe/Berlin"},
        ),
        (
            "Schedule a sync with Priya on Thursday at 11 Eastern",
            "Thursday at 11 Eastern",
            {"times": ["2026-12-03T11:00"], "timezone": "America/New_York"},
        ),
        # A repeating meeting: its words go with the phrase, its rule beside the first meeting's time
        (
            "Schedule a sync with Priya every Thursday at 10am",
            "every Thursday at 10am",
            {"times": ["2026-12-03T10:00"], "repeat": weekly("TH")},
        ),
        (
            "Schedule a weekly sync with Priya on Fridays",
            "weekly on Fridays",
            {"times": ["2026-12-04"], "repeat": weekly("FR")},
        ),
        (
            "Schedule a daily sync with Priya at 9:30",
            "daily at 9:30",
            {"times": ["2026-12-02T09:30"], "repeat": weekly("MO", "TU", "WE", "TH", "FR")},
        ),
        (
            "Schedule a sync with Priya every other Friday until March",
            "every other Friday until March",
            {"times": ["2026-12-04"], "repeat": weekly("FR", interval=2, until="2027-02-28")},
        ),
        (
            "Schedule a sync with Priya on the first Monday of next month",
            "the first Monday of next month",
            {"times": ["2027-01-04"]},
        ),
        (
            "Schedule a sync with Priya tomorrow at ten past nine",
            "tomorrow at ten past nine",
            {"times": ["2026-12-02T09:10"]},
        ),
        ("Schedule a sync with Priya Thursday arvo", "Thursday arvo", {"times": ["2026-12-03T13:00/17:00"]}),
        (
            "Schedule a sync with Priya starting Monday",
            "starting Monday",
            {"times": ["2026-12-07/2026-12-13"]},
        ),
        # More alternatives than the contract's five: the tool reads the phrase
        ("Schedule a sync with Priya next month at 3pm", "next month at 3pm", {}),
        # A day ruled out, and a fallback
        (
            "Schedule a sync with Priya next week, avoid Friday",
            "next week avoid Friday",
            {"times": ["2026-12-07/2026-12-11"], "notOn": ["2026-12-11"]},
        ),
        (
            "Schedule a sync with Priya on Thursday (or Friday)",
            "Thursday (or Friday)",
            {"times": ["2026-12-03", "2026-12-04"]},
        ),
        (
            "Schedule a sync with Priya on Thursday, failing that Friday",
            "Thursday, failing that Friday",
            {"times": ["2026-12-03", "2026-12-04"]},
        ),
        # Parts of a month, the week of a day, days people name, the time it is now
        (
            "Schedule a sync with Priya in early January",
            "early January",
            {"times": ["2027-01-01/2027-01-10"]},
        ),
        (
            "Schedule a sync with Priya the week of the 14th",
            "the week of the 14th",
            {"times": ["2026-12-14/2026-12-18"]},
        ),
        (
            "Schedule a sync with Priya before Christmas",
            "before Christmas",
            {"times": ["2026-12-01/2026-12-24"]},
        ),
        (
            "Schedule a sync with Priya on Christmas Eve at 10am",
            "on Christmas Eve at 10am",
            {"times": ["2026-12-24T10:00"]},
        ),
        (
            "Schedule a sync with Priya this time tomorrow",
            "this time tomorrow",
            {"times": ["2026-12-02T10:00"]},
        ),
        (
            "Schedule a sync with Priya Thursday at 4pm or Friday at 10am",
            "Thursday at 4pm or Friday at 10am",
            {"times": ["2026-12-03T16:00", "2026-12-04T10:00"]},
        ),
        (
            "Schedule a sync with Priya but not on Thursday",
            "but not on Thursday",
            {"times": ["2026-12-01"], "notOn": ["2026-12-03"]},
        ),
        ("Schedule a sync with Priya next week", "next week", {"times": ["2026-12-07/2026-12-11"]}),
    ],
)
def test_the_meeting_call_carries_the_phrase_and_the_times_it_means(
    message: str, when: str, structured: dict
) -> None:
    (use,) = tool_uses(ask(OfflineModel(), message))
    assert use["input"] == {"attendees": ["Priya"], "title": "Sync", "when": when, **structured}


@pytest.mark.parametrize("text", ["What can you do?", "thanks!", "", "and and , then"])
def test_a_message_without_tool_intent_gets_a_plain_answer(text: str) -> None:
    response = ask(OfflineModel(), text)

    assert response["stopReason"] == "end_turn"
    assert response["output"]["message"]["content"] == [{"text": HELP_TEXT}]


def test_tool_results_end_the_turn_with_a_summary_and_errors_named() -> None:
    model = OfflineModel()
    results = [
        {
            "toolResult": {
                "toolUseId": "a",
                "content": [{"json": {"action": "show_new_email_draft", "draftId": "d"}}],
            }
        },
        {
            "toolResult": {
                "toolUseId": "b",
                "content": [{"json": {"error": {"code": "date_in_past", "message": "Monday has passed."}}}],
                "status": "error",
            }
        },
    ]

    response = model.converse(
        modelId="offline", messages=[{"role": "user", "content": results}], toolConfig=TOOLS
    )

    assert response["stopReason"] == "end_turn"
    text = response["output"]["message"]["content"][0]["text"]
    assert "an email draft" in text
    assert "Monday has passed." in text


def test_only_offered_tools_are_called() -> None:
    only_email = {"tools": [s for s in TOOLS["tools"] if s["toolSpec"]["name"] == "create_email_draft"]}

    uses = tool_uses(
        ask(OfflineModel(), "Email Kinshuok about the doc and schedule a sync for Thursday", only_email)
    )

    assert [u["name"] for u in uses] == ["create_email_draft"]


def test_answers_are_deterministic() -> None:
    text = "Email Kinshuok about the doc and schedule a sync for Thursday"

    assert ask(OfflineModel(), text) == ask(OfflineModel(), text)


def test_names_joined_by_and_stay_one_intent_but_verbs_split() -> None:
    assert split_intents(
        "Email Priya and Kinshuok about the plan, then book a call with Priya tomorrow at 3pm"
    ) == [
        ("Email", "Email Priya and Kinshuok about the plan"),
        ("book", "book a call with Priya tomorrow at 3pm"),
    ]
    meeting = parse_intents("book a call with Priya tomorrow at 3pm")[0]
    assert meeting.args["when"] == "tomorrow at 3pm"


def test_every_generated_call_validates_against_its_tool_model() -> None:
    from multitool.tools import REGISTRY

    messages = [
        "Email Kinshuok about the doc and schedule a sync for Thursday",
        "File a Jira bug in WEB for the login crash and email Priya about it",
        "Schedule a 45 minute review with Priya and Kinshuok next Tuesday",
        "Create a task in OPS to rotate the keys, assign it to Priya, and email Kinshuok about it",
        "Set up a half an hour sync with Kinshuok on Friday at 10am and write to Priya about the launch plan",
    ]
    for message in messages:
        intents = parse_intents(message)
        assert intents, message  # a message that yields nothing would pass the loop vacuously
        for intent in intents:
            REGISTRY[intent.tool].args_model.model_validate(intent.args)


# --- conversation memory ---------------------------------------------------------------------------


def ask_after(model: OfflineModel, earlier: list[str], text: str) -> dict:
    """Ask ``text`` after earlier turns, given as history the way the chat service sends it."""
    history: list[dict] = []
    for message in earlier:
        history += [
            {"role": "user", "content": [{"text": message}]},
            {"role": "assistant", "content": [{"text": "I prepared it.\n[cards: d_1 something]"}]},
        ]
    return model.converse(
        modelId="offline",
        messages=[*history, {"role": "user", "content": [{"text": text}]}],
        system=[{"text": "rules"}],
        toolConfig=TOOLS,
    )


def test_email_about_it_after_an_earlier_jira_turn_refers_to_that_ticket() -> None:
    uses = tool_uses(
        ask_after(OfflineModel(), ["File a Jira bug in WEB for the login crash"], "Email Priya about it")
    )

    (email,) = uses
    assert email["name"] == "create_email_draft"
    assert email["input"]["to"] == ["Priya"]
    assert email["input"]["subject"] == "Login crash"
    assert "I filed a Bug in WEB: Login crash." in email["input"]["body"]


def test_the_latest_earlier_intent_is_the_one_referred_to() -> None:
    earlier = [
        "File a Jira bug in WEB for the login crash",
        "Email Kinshuok about the launch plan",
        "What can you do?",
    ]

    (meeting,) = tool_uses(ask_after(OfflineModel(), earlier, "Schedule a sync about it on Thursday"))

    assert meeting["input"]["title"] == "Sync about the launch plan"
    assert meeting["input"]["attendees"] == ["Kinshuok"]  # nobody named: the people of that intent


def test_a_message_that_names_its_own_topic_ignores_the_history() -> None:
    earlier = ["File a Jira bug in WEB for the login crash"]

    alone = tool_uses(ask(OfflineModel(), "Email Priya about the budget"))
    after = tool_uses(ask_after(OfflineModel(), earlier, "Email Priya about the budget"))

    assert after == alone


def test_without_history_it_stays_unresolved_and_answers_are_deterministic() -> None:
    (email,) = tool_uses(ask(OfflineModel(), "Email Priya about it"))
    assert email["input"]["subject"] == "About it"

    earlier = ["File a Jira bug in WEB for the login crash"]
    first = ask_after(OfflineModel(), earlier, "Email Priya about it")
    assert ask_after(OfflineModel(), earlier, "Email Priya about it") == first


def test_tool_results_in_history_are_not_read_as_user_text() -> None:
    model = OfflineModel()
    messages = [
        {"role": "user", "content": [{"text": "File a Jira bug in WEB for the login crash"}]},
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "x", "input": {}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"json": {}}]}}]},
        {"role": "assistant", "content": [{"text": "Done."}]},
        {"role": "user", "content": [{"text": "Email Priya about it"}]},
    ]

    (email,) = tool_uses(model.converse(modelId="offline", messages=messages, toolConfig=TOOLS))

    assert email["input"]["subject"] == "Login crash"


@pytest.mark.parametrize(
    ("text", "when", "title"),
    [
        ("Schedule a sync with Priya on Thursday morning", "Thursday morning", "Sync"),
        ("Book a call with Mei tomorrow afternoon at 3pm", "tomorrow afternoon at 3pm", "Call"),
        ("Set up a meeting with Jordan Friday end of day", "Friday end of day", "Meeting"),
        ("Book a call with Priya next Tuesday in the afternoon", "next Tuesday in the afternoon", "Call"),
        ("Schedule a sync with Alex tonight", "tonight", "Sync"),
    ],
)
def test_parts_of_the_day_reach_the_tool_as_written(text: str, when: str, title: str) -> None:
    (meeting,) = parse_intents(text)
    assert meeting.args["when"] == when
    assert meeting.args["title"] == title
    (attendee,) = meeting.args["attendees"]
    assert not any(part in attendee.lower() for part in ("morning", "afternoon", "tonight", "end of day"))


@pytest.mark.parametrize(
    "message",
    [
        "Email Alex Mu\u0308ller about the budget",  # decomposed: one name, not 'Alex Mu' and 'ller'
        "Email Alex M\u00fcller about the budget",
        "Email Alex Mül\u200bler about the budget",  # a zero-width space does not split the name
    ],
)
def test_a_name_as_the_chat_api_cleans_it_is_one_name(message: str) -> None:
    from multitool.chat.service import ChatRequest

    cleaned = ChatRequest.model_validate({"message": message}).message
    response = ask(OfflineModel(), cleaned)
    (use,) = tool_uses(response)
    assert use["input"]["to"] == ["Alex Müller"]
    assert not [b["text"] for b in response["output"]["message"]["content"] if "text" in b]


def test_a_subject_keeps_no_direction_override() -> None:
    from multitool.tools.email.email_draft import EmailDraftArgs

    args = EmailDraftArgs.model_validate(
        {"to": ["Priya"], "subject": "Invoice \u202egpj.exe", "body": "See \u202eattached"}
    )
    assert (args.subject, args.body) == ("Invoice gpj.exe", "See attached")


@pytest.mark.parametrize(
    ("message", "priority"),
    [
        ("File a Jira bug in WEB for the login crash, priority low", "Low"),
        ("File a Jira bug in WEB for the login crash, priority: high", "High"),
        ("File a Jira bug in WEB for the login crash priority is medium", "Medium"),
        ("File a low priority Jira bug in WEB for the login crash", "Low"),
    ],
)
def test_a_priority_said_after_the_summary_is_the_priority_not_part_of_the_summary(
    message: str, priority: str
) -> None:
    (use,) = tool_uses(ask(OfflineModel(), message))
    assert use["input"]["priority"] == priority
    assert use["input"]["summary"] == "Login crash"


def test_an_email_to_two_people_greets_both_by_name() -> None:
    (use,) = tool_uses(ask(OfflineModel(), "email Priya and Mei about the launch"))
    assert use["input"]["to"] == ["Priya", "Mei"]
    assert use["input"]["body"].startswith("Hi Priya and Mei,")


def test_a_greeting_in_lowercase_is_capitalised() -> None:
    from multitool.runtimes.offline.fields import greeting_for

    assert greeting_for(["priya", "mei"]) == "Hi Priya and Mei,"
    assert greeting_for(["zoe@example.com"]) == "Hi,"


def test_adding_a_recipient_to_an_email_card_greets_them_too() -> None:
    from multitool.runtimes.offline import grammar as g
    from multitool.runtimes.offline.edits import Card, revise

    card = Card(
        tool=g.EMAIL_TOOL,
        args={"to": ["Priya"], "subject": "About the launch", "body": "Hi Priya,\n\nAbout the launch."},
        id="d_1",
        names=["Priya"],
    )
    intent, refusal = revise("add Kinshuok", [card], None)
    assert refusal is None
    assert intent is not None
    assert intent.args["to"] == ["Priya", "Kinshuok"]
    assert intent.args["body"] == "Hi Priya and Kinshuok,\n\nAbout the launch."


def test_a_refused_revision_is_said_in_words_for_the_user_not_the_model() -> None:
    results = [
        {
            "toolUseId": "t-1",
            "status": "error",
            "content": [
                {
                    "json": {
                        "error": {
                            "code": "cannot_revise",
                            "message": "Card 'd_1' is done; leave revises out to make a new card.",
                        }
                    }
                }
            ],
        }
    ]
    messages = [
        {"role": "user", "content": [{"text": "make it 45 minutes"}]},
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": "t-1", "name": "propose_meeting", "input": {}}}],
        },
        {"role": "user", "content": [{"toolResult": r} for r in results]},
    ]
    answer = OfflineModel().converse(modelId="offline", messages=messages, system=SYSTEM, toolConfig=TOOLS)
    text = answer["output"]["message"]["content"][0]["text"]
    assert "that card can no longer be changed; ask again for a new one" in text
    assert "revises" not in text


def test_a_combined_request_keeps_its_email_about_the_thing_sent() -> None:
    message = "Please schedule a 30 minute sync with Priya tomorrow and email Kinshuok the agenda"
    response = ask(OfflineModel(), message)
    meeting, mail = tool_uses(response)
    assert (meeting["name"], mail["name"]) == ("propose_meeting", "create_email_draft")
    assert meeting["input"]["times"] == ["2026-12-02"]
    assert (mail["input"]["to"], mail["input"]["subject"]) == (["Kinshuok"], "About the agenda")
    assert not [b["text"] for b in response["output"]["message"]["content"] if "text" in b]


def test_a_zone_between_the_time_and_the_day_is_the_zone_not_a_person() -> None:
    (use,) = tool_uses(ask(OfflineModel(), "Schedule a sync with Priya at 3pm London time tomorrow"))
    assert use["input"]["attendees"] == ["Priya"]
    assert (use["input"]["times"], use["input"]["timezone"]) == (["2026-12-02T15:00"], "Europe/London")


@pytest.mark.parametrize(
    ("message", "when", "days"),
    [
        ("what do I have tomorrow?", "tomorrow", {"fromDay": "2026-12-02"}),
        ("What's on my calendar this week?", "this week", {"fromDay": "2026-12-01", "toDay": "2026-12-04"}),
        ("show me my schedule for Friday", "Friday", {"fromDay": "2026-12-04"}),
        ("what do I have", "today", {"fromDay": "2026-12-01"}),
    ],
)
def test_what_is_on_my_calendar_is_the_agenda_call_with_its_days(message: str, when: str, days: dict) -> None:
    (use,) = tool_uses(ask(OfflineModel(), message))
    assert use["name"] == "show_calendar"
    assert use["input"] == {"when": when, **days}


def test_a_series_and_an_email_in_one_message_are_two_calls() -> None:
    uses = tool_uses(
        ask(OfflineModel(), "Set up a weekly 1:1 with Priya every monday at 11am and email her the agenda")
    )
    assert [u["name"] for u in uses] == ["propose_meeting", "create_email_draft"]
    assert uses[0]["input"]["repeat"]["weekdays"] == ["MO"]


def test_when_am_i_free_with_someone_is_the_free_time_call_with_its_people_and_days() -> None:
    (use,) = tool_uses(ask(OfflineModel(), "when am I free with Priya this week?"))
    assert use["name"] == "find_free_time"
    assert use["input"] == {
        "people": ["Priya"],
        "when": "this week",
        "fromDay": "2026-12-01",
        "toDay": "2026-12-04",
    }
