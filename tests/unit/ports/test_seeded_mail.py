"""seed.json's mail is read once (multitool.ports.mailbox.seeded_mail) and lands alike in every
mailbox that starts with it: the stand-in Graph's conversations and the stand-in Gmail's threads
follow the seed's threads, each message in its sender's and each known recipient's box."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from multitool.local.standins.google_mail import GmailBoxes, seed_gmail
from multitool.local.standins.graph_mail import GraphMail, seed_graph_mail
from multitool.ports.mailbox import seeded_mail

NOW = datetime(2026, 12, 7, 9, 30, tzinfo=UTC)
A, B, C, OUTSIDE = "a@example.com", "b@example.com", "C@Example.com", "z@elsewhere.example"
KNOWN = {A, B, C.casefold()}
SEED = (
    {
        "from": A,
        "fromName": "Ann",
        "to": [B],
        "cc": [C],
        "subject": "Budget",
        "thread": "budget",
        "hoursAgo": 5,
        "body": "Numbers attached.",
        "attachments": [{"name": "q1.csv", "contentType": "text/csv", "text": "a,b"}],
    },
    {"from": B, "to": [A], "subject": "Re: Budget", "thread": "budget", "hoursAgo": 2, "body": "Thanks."},
    {"from": A, "to": [OUTSIDE], "subject": "Hello", "body": "Hi."},
)


def test_each_message_is_read_with_its_defaults() -> None:
    first, second, third = seeded_mail(SEED, NOW)
    assert (first.sender, first.sender_name, first.to, first.cc) == (A, "Ann", (B,), (C,))
    assert first.files == (("q1.csv", "text/csv", b"a,b"),)
    assert first.received == NOW - timedelta(hours=5)
    assert first.owners == [A, B, C.casefold()]
    assert (second.sender_name, second.thread, second.files) == ("", "budget", ())
    assert (third.index, third.thread, third.received) == (2, None, NOW - timedelta(hours=3))


def test_the_graph_stand_in_keeps_one_conversation_per_seeded_thread() -> None:
    mail = GraphMail(lambda address: address in KNOWN)
    seed_graph_mail(mail, SEED, NOW)
    assert [m["conversationId"] for m in mail.boxes[A]] == ["conv-budget", "conv-budget", "conv-2"]
    assert [m["subject"] for m in mail.boxes[C.casefold()]] == ["Budget"]
    assert [a["name"] for a in mail.boxes[B][0]["attachments"]] == ["q1.csv"]
    assert OUTSIDE not in mail.boxes


def test_the_gmail_stand_in_threads_as_seeded_sent_from_the_sender() -> None:
    boxes = GmailBoxes(lambda address: address in KNOWN)
    seed_gmail(boxes, SEED, NOW)
    own = list(boxes.messages[A].values())
    assert [m["labelIds"] for m in own] == [["SENT"], ["INBOX"], ["SENT"]]
    assert own[0]["threadId"] == own[1]["threadId"] != own[2]["threadId"]
    assert [m["labelIds"] for m in boxes.messages[B].values()] == [["INBOX"], ["SENT"]]
    assert OUTSIDE not in boxes.messages
