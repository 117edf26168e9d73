"""A local Microsoft Graph on loopback: ``multitool serve --calendar microsoft365``'s Microsoft 365.

It serves only the paths the Microsoft 365 adapter calls, under ``/v1.0``, from a
:class:`multitool.local.standins.graph_state.GraphState` that checks every request against Graph's own
description (the committed subset): a request the description does not allow answers 400 with
the violation. It holds the seed's people (their working hours 09:00-17:00 in their own zones)
and a week of real-looking meetings from the Monday of the current week, so proposals avoid
them; the page's confirms create events and send mail here, seen at ``GET /_local/events`` and
``GET /_local/sent`` (the stand-in's own view, not Graph's).

    graph = start_graph_stand_in(seed_people)
    graph.env  # CALENDAR, PROVIDER_BASE_URL, PROVIDER_TOKEN for the functions
    graph.stop()

With ``delegated=True`` (``multitool serve --consent``) it takes only each person's own token as the
local AgentCore Identity stand-in issues it (``local-microsoft365-<id>``, :func:`delegated_token`) and
acts as that person only; the functions then get no ``PROVIDER_TOKEN``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from multitool.local.sandbox.demo_meetings import demo_meetings
from multitool.local.standins.graph_state import GraphState, WorkingHours
from multitool.local.standins.stand_in import ServedStandIn, StandInHandler, StandInServer
from multitool.people import Person
from multitool.ports.agentcore.tokens import slack_vault_user

# The stand-in accepts any bearer token; the functions send this one (not a secret).
LOCAL_TOKEN = "local-graph-token"  # noqa: S105
_WEEK = (
    # (weekday, local start, minutes, subject, whose: "all" or an index into the people)
    (0, time(9, 30), 30, "Weekly planning", "all"),
    (0, time(14, 0), 60, "Design review", 1),
    (1, time(10, 0), 30, "1:1", 0),
    (1, time(15, 0), 45, "Customer call", 2),
    (2, time(9, 30), 15, "Standup", "all"),
    (2, time(11, 0), 90, "Roadmap workshop", 3),
    (3, time(13, 0), 60, "Lunch and learn", "all"),
    (3, time(16, 0), 30, "Hiring sync", 4),
    (4, time(9, 30), 15, "Standup", "all"),
    (4, time(12, 0), 60, "Team lunch", 5),
)


def delegated_token(person: Person) -> str:
    """The token the local identity stand-in hands out for ``person``'s Microsoft 365 account."""
    return f"local-microsoft365-{person.id}"


class GraphStandIn(ServedStandIn):
    """The Graph stand-in: ``state`` behind a loopback server, bound here and served once started
    (see :func:`start_graph_stand_in`)."""

    def __init__(self, state: GraphState, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.state = state
        self.server = StandInServer(_handler_for(state), host, port, name="graph")

    @property
    def env(self) -> dict[str, str]:
        env = {"CALENDAR": "microsoft365", "PROVIDER_BASE_URL": f"{self.url}/v1.0"}
        if self.state.token_users is None:
            env["PROVIDER_TOKEN"] = LOCAL_TOKEN
        return env


def seeded_state(people: Iterable[Person], today: date | None = None) -> GraphState:
    """The seed's people and a week of meetings from this week's Monday (each in its owner's zone)."""
    state = GraphState()
    people = list(people)
    for person in people:
        state.add_user(person.display_name, person.email, working=WorkingHours(zone=person.timezone))
    first = today or datetime.now(UTC).date()
    monday = first - timedelta(days=first.weekday())
    for week in (0, 1):
        for weekday, at, minutes, subject, whose in _WEEK:
            day = monday + timedelta(days=7 * week + weekday)
            if whose == "all":
                organizer, zone = people[0], ZoneInfo(people[0].timezone)
                attendees = [p.email for p in people[1:]]
            else:
                organizer = people[int(whose) % len(people)]
                zone = ZoneInfo(organizer.timezone)
                attendees = [people[(int(whose) + 1) % len(people)].email]
            start = datetime.combine(day, at, tzinfo=zone)
            state.add_event(organizer.email, subject, start, start + timedelta(minutes=minutes), attendees)
    for meeting in demo_meetings(people, today):  # what the demo's requests about meetings name
        state.add_event(
            meeting.organizer,
            meeting.title,
            meeting.start,
            meeting.end,
            meeting.attendees[1:],
            zone=meeting.timezone,
        )
    return state


def start_graph_stand_in(
    people: Iterable[Person], *, host: str = "127.0.0.1", port: int = 0, delegated: bool = False
) -> GraphStandIn:
    """A Graph stand-in of ``people`` (seeded: :func:`seeded_state`), started."""
    people = list(people)
    state = seeded_state(people)
    if delegated:
        # Each person's token as the page's consent stores it (by their sub) and as the Slack app's does
        # (by the vault user id of their directory person, multitool.ports.agentcore.tokens).
        state.token_users = {delegated_token(p): p.email for p in people} | {
            f"local-microsoft365-{slack_vault_user(p.email)}": p.email for p in people
        }
    return GraphStandIn(state, host=host, port=port).start()


def _handler_for(state: GraphState) -> type[StandInHandler]:
    class Handler(StandInHandler):  # quiet: the page's server logs the requests
        def do_GET(self) -> None:
            if self.path == "/_local/events":
                return self._json(200, {"value": state.events})
            if self.path == "/_local/sent":
                return self._json(200, {"value": state.sent})
            return self._graph()

        def do_POST(self) -> None:
            self._graph()

        def do_PATCH(self) -> None:
            self._graph()

        def do_DELETE(self) -> None:
            self._graph()

        def _graph(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            url = f"https://graph.microsoft.com{self.path}"
            answer = state.handle(self.command, url, dict(self.headers.items()), body)
            self._json(answer.status, answer.body, answer.headers)

        _json = StandInHandler.send_json

    return Handler
