"""What the meeting tool needs beside its module: reading times people type (:mod:`.when`), the
slots it proposes (:mod:`.slots`, :mod:`.scheduling`), and at confirm the booking and the iCalendar
invitation (:mod:`.booking`, :mod:`.invitations`). Public holidays are :mod:`multitool.ports.holidays`:
the layer build runs that module on its own, so the package it sits in imports nothing.

Imported by :mod:`multitool.tools.meeting_scheduler` only (and the review through it); may import
the base types, ports and the tool contract.
"""
