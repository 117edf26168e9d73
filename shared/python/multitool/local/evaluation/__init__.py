"""``multitool eval``: combined requests against a runtime and model, scored on the cards a user reviews.

A dataset is JSON Lines, one case a line::

    {"id": "email-and-sync", "user": "jordan", "message": "Email Kinshuok and set up a sync Thursday",
     "history": ["earlier message", ...],
     "expect": {"cards": [{"type": "show_new_email_draft", "to": ["kinshuok"]},
                          {"type": "show_meeting_scheduler", "attendees": ["kinshuok"], "day": "thursday"}],
                "asks": false}}

People are directory ids, an address for someone outside, or ``"?"`` where the card must offer a
choice (the name is ambiguous); ``day`` is a weekday (the next one after today in the user's zone),
``today``, ``+N`` days or an ISO date. ``asks: true``: no card is right, the reply must ask or
decline. Only the listed fields are compared, and the set of cards must match exactly.

A case is *silently wrong* when a card was made with a wrong field the card does not flag, or a
card was made that no expected card accounts for: the user could confirm it without a word that
it is not what they asked. A wrong person the card leaves unsettled (a name to choose between,
or one not in the directory) is flagged: the card cannot be confirmed until the user settles it.
Asking, or saying what it cannot do, is never silently wrong.

Every case runs as a new session of its user: the history's messages are sent first, as earlier
turns, then the message; only the last turn is scored and measured. A turn runs in this process
(:class:`InProcessTarget`: the chat service the orchestrator builds, on embedded AWS) or over HTTP
(:class:`HttpTarget`: a running ``multitool serve`` or a deployed stack's API). Nothing is ever
confirmed: every card a case made is discarded once it is scored.

The dataset (:mod:`.cases`) and its scoring (:mod:`.scoring`) are apart from what runs the turns
(:mod:`.targets`, :mod:`.runs`) and the report they make (:mod:`.report`).
"""
