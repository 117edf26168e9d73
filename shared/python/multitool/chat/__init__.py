"""The /chat path: one user message in, the turn's message and cards out.

Holds the chat service (:mod:`.service`), the sessions and who owns them (:mod:`.sessions`),
Powertools idempotency for retried requests (:mod:`.idempotency`), and turns that outlive their
request: the stored turn and its event log (:mod:`.turn_store`), started and polled through
:mod:`.async_turns`, their ids and invocation event in :mod:`.turn_invocations` (all a plain
``POST /chat`` loads of them) and their wire shapes in :mod:`.turn_views`; what ``GET /sessions/{id}``
shows of a session is :mod:`.session_views`. May import the base types, ports, the toolkit and tools,
the cards and the runtimes; nothing here imports the API or the local tools.
"""
