"""Which confirms wait in the undo window and which act at once, with in-memory ports (the window's
queue records what it was handed; tests/functional/review/test_review_undo.py runs the real queue on moto)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from multitool.drafts import Draft, DraftStatus
from multitool.local.sandbox.memory import MemoryCalendar, MemoryDirectory, MemoryDraftStore
from multitool.ports.suites import Suite
from multitool.review import Caller, ReviewConfig
from multitool.review.reviewer import DraftView, Reviewer
from multitool.review.undo import UndoWindow

from tests.support.review_support import (
    NOW,
    OWNER,
    SENDER,
    RecordingJira,
    RecordingMailer,
    email_draft,
    jira_draft,
)

CALLER = Caller(OWNER, email="jordan@example.com", name="Jordan Lee")


@dataclass
class RecordingQueue:
    """An :class:`~multitool.ports.undo_queue.UndoQueue` that keeps each (draft id, delay) it was handed."""

    handed: list[tuple[str, int]] = field(default_factory=list)

    def schedule(self, draft_id: str, delay_seconds: int) -> None:
        self.handed.append((draft_id, delay_seconds))


class World:
    def __init__(self, seconds: int = 10, *, own_suite: bool = False) -> None:
        self.now = NOW
        self.drafts = MemoryDraftStore()
        self.mailer = RecordingMailer()
        self.own_mailer = RecordingMailer()
        self.queue = RecordingQueue()
        suite = Suite(MemoryDirectory(), MemoryCalendar(), self.own_mailer)
        self.reviewer = Reviewer(
            self.drafts,
            mailer=self.mailer,
            calendar=MemoryCalendar(),
            jira=RecordingJira(),
            config=ReviewConfig(sender_email=SENDER),
            clock=lambda: self.now,
            suites=(lambda _caller: suite) if own_suite else None,
            undo=UndoWindow(seconds, self.queue),
        )

    def add(self, draft: Draft) -> Draft:
        [stored] = self.drafts.create_many([draft])
        return stored


def test_a_confirmed_mail_waits_the_window_and_keeps_who_confirmed_it() -> None:
    world = World(seconds=10)
    draft = world.add(email_draft())

    waiting = world.reviewer.confirm(CALLER, draft.id, {"subject": "Soon"})

    assert waiting.status is DraftStatus.SCHEDULED
    assert waiting.due_at == NOW + timedelta(seconds=10)
    assert world.queue.handed == [(draft.id, 10)]
    assert world.mailer.sent == []
    # The send at due time runs without the request: it names the sender and reply-to from these
    assert waiting.confirmed_by is not None
    assert (waiting.confirmed_by.email, waiting.confirmed_by.name) == ("jordan@example.com", "Jordan Lee")
    view = DraftView.of(waiting).to_wire()
    assert (view["dueAt"], view["undoUntil"]) == ("2026-12-01T08:00:10Z", "2026-12-01T08:00:10Z")

    # At due time the mail goes as the confirm would have sent it
    world.now += timedelta(seconds=10)
    done = world.reviewer.send_due(draft.id)
    assert done is not None
    assert done.status is DraftStatus.DONE
    [mail] = world.mailer.sent
    assert mail.subject == "Soon"
    assert mail.from_name == "Jordan Lee via multitool"
    assert mail.reply_to == ("jordan@example.com",)


@pytest.mark.parametrize(
    ("world", "draft"),
    [
        pytest.param(World(seconds=0), email_draft(), id="a window of 0 seconds"),
        pytest.param(World(seconds=10), jira_draft(), id="a Jira issue (not undoable)"),
    ],
)
def test_what_acts_at_once(world: World, draft: Draft) -> None:
    stored = world.add(draft)

    done = world.reviewer.confirm(CALLER, stored.id, {})

    assert done.status is DraftStatus.DONE
    assert world.queue.handed == []


def test_a_mail_from_the_users_own_suite_is_sent_at_once_since_only_the_request_holds_their_token() -> None:
    world = World(seconds=10, own_suite=True)
    draft = world.add(email_draft())

    done = world.reviewer.confirm(CALLER, draft.id, {})

    assert done.status is DraftStatus.DONE
    assert len(world.own_mailer.sent) == 1
    assert world.queue.handed == []


def test_a_retried_undo_answers_the_draft_as_it_is_and_an_undo_after_the_send_is_too_late() -> None:
    world = World(seconds=10)
    draft = world.add(email_draft())
    world.reviewer.confirm(CALLER, draft.id, {})

    first = world.reviewer.undo(CALLER, draft.id)
    again = world.reviewer.undo(CALLER, draft.id)

    assert first.status is again.status is DraftStatus.PROPOSED
    assert first.version == again.version  # nothing written the second time
    # The undone draft's message, when it comes, sends nothing
    world.now += timedelta(seconds=10)
    assert world.reviewer.send_due(draft.id) == first
    assert world.mailer.sent == []


def test_an_undo_of_a_discarded_draft_answers_it_as_it_is() -> None:
    world = World(seconds=10)
    draft = world.add(email_draft())
    discarded = world.reviewer.discard(CALLER, draft.id)

    assert world.reviewer.undo(CALLER, draft.id) == discarded
