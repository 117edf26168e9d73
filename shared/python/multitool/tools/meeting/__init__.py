"""The meeting tool: its arguments, ``prepare``, card and spec (:mod:`.meeting_scheduler`, named after
its action group), its payload (:mod:`.payload`), reading times people type (:mod:`.when`), the
slots it proposes (:mod:`.slots`, :mod:`.scheduling`), and at confirm the booking and the iCalendar
invitation (:mod:`.booking`, :mod:`.invitations`; the confirm reads the payload, never :mod:`.when`).
Public holidays are :mod:`multitool.ports.holidays`: the layer build runs that module on its own, so
the package it sits in imports nothing.

Loaded through the registry only (``REGISTRY.declare`` in :mod:`multitool.tools`); may import the
base types, ports and the tool contract.
"""
