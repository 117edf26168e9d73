"""A moment to undo: the states and values of a confirmed side effect that waits (the reviewer acts).

An action whose confirm is ``undoable`` (a mail) is not sent by the confirm when the reviewer has an
:class:`UndoWindow`: the confirm checks and counts everything as for a send, hands the draft's id to
the window's queue with the window as its delay (:mod:`multitool.ports.undo_queue`), and stores the
draft ``scheduled`` with ``dueAt`` (``proposed | failed -> scheduled``). One seam decides,
:meth:`multitool.review.reviewer.Reviewer._run_now_or_schedule`, so every confirm path (one card,
several) goes through it. Within the window ``Reviewer.undo`` moves it back (``scheduled ->
proposed``, the edits kept, the recipients given back to the day's quota, nothing sent); at due time
the queue hands the id to ``Reviewer.send_due``, which moves it ``scheduled -> executing`` and sends
as a confirm would.

Both are one conditional write from the same ``scheduled`` version: of an undo and the send that
race, exactly one wins, and the loser is answered by what the winner stored (``too_late_to_undo``
after the send began; nothing to send after an undo). A message delivered twice finds the draft no
longer ``scheduled`` and does nothing. A confirm retried within the window with the same content
answers the same ``scheduled`` draft; with other content, 409 ``scheduled``. The queue's message is
sent before the ``scheduled`` write, so a confirm that dies between the two leaves a message that
finds nothing scheduled, never a scheduled draft without a message. A scheduled send runs without a
request, so it acts only through the deployment's own mailer: with the user's own suite (their
token is only in the request) the confirm sends at once.
"""

import math
from datetime import datetime, timedelta
from typing import Any

import msgspec

from multitool.drafts import Confirmer, Draft, DraftStatus
from multitool.ports.undo_queue import MAX_DELAY_SECONDS, UndoQueue
from multitool.review.errors import TooLateToUndo
from multitool.toolkit.confirm import ActionReview, Caller, ReviewConfig, ReviewContext, people_on
from multitool.tools import REGISTRY
from multitool.wire import WireModel


class UndoWindow(msgspec.Struct, frozen=True):
    """How long an undoable side effect waits after its confirm (``UNDO_SECONDS``), and the queue that
    brings it back then. A reviewer without one (or with 0 seconds) sends at once."""

    seconds: int
    queue: UndoQueue


class ScheduledConfirm(msgspec.Struct, frozen=True):
    """What a scheduled draft's send is made of, from the draft alone: the tool's confirm, the
    content as confirmed, and the confirm context of the user who confirmed it."""

    review: ActionReview[Any, Any]
    content: WireModel
    ctx: ReviewContext


def confirmer(draft: Draft) -> Caller:
    """The caller a scheduled send acts for: the draft's owner, named as the confirm's token named them."""
    confirmed = draft.confirmed_by or Confirmer()
    return Caller(user_id=draft.owner, email=confirmed.email, name=confirmed.name)


def scheduled_confirm(draft: Draft, config: ReviewConfig) -> ScheduledConfirm:
    """The confirm a scheduled draft waits to run; a draft stored scheduled without one is a bug."""
    tool = REGISTRY.by_action(draft.action)
    review = tool.action_review() if tool is not None else None
    if review is None or draft.edits is None:  # only an undoable confirm stores a draft scheduled
        raise ValueError(f"Draft {draft.id} is scheduled without a confirm to run")
    ctx = ReviewContext(draft=draft, caller=confirmer(draft), config=config, people=people_on(draft.payload))
    return ScheduledConfirm(review, review.content_model.model_validate(draft.edits), ctx)


def scheduled(draft: Draft, update: dict[str, Any], window: UndoWindow, caller: Caller) -> Draft:
    """``draft`` confirmed with ``update`` (its edits and time), waiting ``window`` to be sent."""
    return draft.model_copy(
        update={
            **update,
            "status": DraftStatus.SCHEDULED,
            "due_at": update["updated_at"] + timedelta(seconds=window.seconds),
            "confirmed_by": Confirmer(email=caller.email, name=caller.name),
        }
    )


def undone(draft: Draft, now: datetime) -> Draft:
    """A scheduled draft undone: an editable draft again, with the edits as confirmed."""
    return draft.model_copy(
        update={"status": DraftStatus.PROPOSED, "due_at": None, "confirmed_by": None, "updated_at": now}
    )


def too_late(draft: Draft) -> TooLateToUndo:
    """The answer to an undo after the window: the send began (``executing``) or is done."""
    words = "is being sent" if draft.status is DraftStatus.EXECUTING else "was already done"
    return TooLateToUndo(f"Too late to undo: this action {words}.", draft=draft)


def seconds_left(draft: Draft, now: datetime) -> int:
    """Whole seconds until a scheduled draft is due (0 once due), at most one queue delay."""
    if draft.due_at is None:
        return 0
    return min(max(0, math.ceil((draft.due_at - now).total_seconds())), MAX_DELAY_SECONDS)
