"""The conversation a session shows again after a reload (``GET /sessions/{id}``)."""

from __future__ import annotations

from multitool.chat.session_views import conversation_view
from multitool.chat.sessions import card_entry, exchange


def test_the_conversation_view_splits_each_reply_from_its_cards_captions_and_all() -> None:
    email, ticket = "d_" + "a" * 32, "d_" + "b" * 32
    history = (
        *exchange("What can you do?", "I draft emails, meetings and tickets."),
        *exchange(
            "Email Priya; file a bug",
            "Two drafts to review.",
            [
                card_entry(email, "show_new_email_draft", "Draft email to Priya: Notes; d_x and more"),
                card_entry(ticket, "show_jira_ticket_draft", "Jira Bug in WEB: Login crash"),
            ],
        ),
    )

    view = conversation_view("s-1", history).to_wire()

    assert view == {
        "sessionId": "s-1",
        "exchanges": [
            {"message": "What can you do?", "reply": "I draft emails, meetings and tickets.", "cards": []},
            {
                "message": "Email Priya; file a bug",
                "reply": "Two drafts to review.",
                "cards": [
                    {"id": email, "caption": "Draft email to Priya: Notes; d_x and more"},
                    {"id": ticket, "caption": "Jira Bug in WEB: Login crash"},
                ],
            },
        ],
    }
