"""Who is who: a Slack user is a directory person by their Slack email, never by a display name.

``users.info`` answers the user object; its ``profile.email`` is present only with the
``users:read.email`` scope (https://docs.slack.dev/reference/methods/users.info, *Email
addresses*), and is the address the user signs in to Slack with. A user Slack marks
``is_email_confirmed: false``, a bot, a deleted user, or one without an email is nobody here. The
address is looked up in the directory port (:class:`multitool.ports.directory.Directory`, one
read); it maps only when exactly one person has that very address (an alias that happens to match
is not enough). Anyone else is told how to get access, and no turn runs.

Whose turn it is: the owner of the turn, its session and its drafts is ``slack:<team>:<user>``
(:func:`owner_id`), the ids Slack signs in every event and interaction, so only the Slack user who
asked can see, confirm, edit or discard a draft (the reviewer compares the draft's owner with it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from multitool.people import Person
from multitool.ports.directory import Directory
from multitool.slack.web import SlackWeb

OWNER_PREFIX = "slack:"
NO_ACCESS = (
    "I can only work for people in this organization's directory, and I could not match your Slack "
    "account to anyone in it by its email address. Ask your administrator to add your Slack email "
    "address to the directory (multitool seed or the organization's directory), then message me again. "
    "Nothing was drafted."
)


class SlackPerson(msgspec.Struct, frozen=True):
    """The directory person a Slack user is, with Slack's time zone for them."""

    owner: str
    person: Person
    timezone: str | None = None


def owner_id(team_id: str, user_id: str) -> str:
    """The owner of a Slack user's turns and drafts."""
    return f"{OWNER_PREFIX}{team_id}:{user_id}"


def slack_user_of(owner: str) -> str | None:
    """The Slack user id in an owner id, None when the owner is not a Slack user."""
    if not owner.startswith(OWNER_PREFIX):
        return None
    user = owner.rpartition(":")[2]
    return user or None


def slack_email(user: Mapping[str, Any]) -> str | None:
    """The user's Slack email, when Slack vouches for it."""
    if user.get("deleted") or user.get("is_bot") or user.get("is_email_confirmed") is False:
        return None
    profile = user.get("profile")
    email = profile.get("email") if isinstance(profile, Mapping) else None
    return email.strip() if isinstance(email, str) and "@" in email else None


def who_is(web: SlackWeb, directory: Directory, team_id: str, user_id: str) -> SlackPerson | None:
    """The directory person the Slack user is, or None (:data:`NO_ACCESS` is what they are told)."""
    user = web.user(user_id)
    email = slack_email(user)
    if email is None:
        return None
    found = directory.resolve([email]).get(email)
    person = found.person if found is not None and found.settled else None
    if person is None or person.email.casefold() != email.casefold():
        return None
    zone = user.get("tz")
    return SlackPerson(owner_id(team_id, user_id), person, zone if isinstance(zone, str) else None)
