"""The meeting tool's payload: what a proposal stores, the card shows and the confirm books from.

Its own module, beside the tool's arguments and ``prepare`` (:mod:`.meeting_scheduler`), so the
confirm (:mod:`.booking`) reads a proposal without importing the phrase reader (:mod:`.when`)
or the slot search (:mod:`.scheduling`) that made it.
"""

from typing import Literal

from pydantic import Field

from multitool.people import NameResolution
from multitool.ports.recurrence import Recurrence
from multitool.toolkit.common import replaced_field
from multitool.toolkit.links import Link, links_field
from multitool.tools.meeting.slots import SeriesCheck, Slot, SlotCheck
from multitool.wire import WireModel


class MeetingPayload(WireModel):
    action: Literal["show_meeting_scheduler"] = "show_meeting_scheduler"
    draft_id: str
    title: str
    attendees: tuple[NameResolution, ...]
    requested: str = Field(description="The day or time as asked")
    times: tuple[str, ...] = Field(
        default=(), description="The times searched, as the tool contract writes them"
    )
    requested_timezone: str | None = Field(
        default=None, description="The IANA time zone the request was read in"
    )
    duration_minutes: int
    timezone: str
    slots: tuple[Slot, ...]
    slot_notes: tuple[tuple[str, ...], ...] = Field(
        default=(), description="Per slot: what it means for you and each attendee (local day, hours)"
    )
    slot_checks: tuple[tuple[SlotCheck, ...], ...] = Field(
        default=(),
        description="Per slot: each person's local time, hours and bookings, candidates of a name included",
    )
    repeat: Recurrence | None = Field(default=None, description="How the meeting repeats, when it does")
    series: tuple[SeriesCheck, ...] = Field(
        default=(), description="Per slot, for a repeating meeting: the rule from it and its first meetings"
    )
    notes: tuple[str, ...] = ()
    revises: str | None = replaced_field()
    links: tuple[Link, ...] = links_field()
