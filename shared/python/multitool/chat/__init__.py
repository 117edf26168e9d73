"""The /chat path: one user message in, the turn's message and cards out.

Holds the chat service (:mod:`.service`), the sessions and who owns them (:mod:`.sessions`),
Powertools idempotency for retried requests (:mod:`.idempotency`), and turns that outlive their
request: the stored turn and its event log (:mod:`.turn_store`), started and polled through
:mod:`.async_turns`, their wire shapes and invocation event in :mod:`.turn_views` (all a plain
``POST /chat`` loads of them). May import the base types, ports, the toolkit and tools, the cards and the
runtimes; nothing here imports the API or the local tools.
"""
