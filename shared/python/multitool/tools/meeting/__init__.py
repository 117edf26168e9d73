"""What the meeting tool needs beside its module: reading times people type (:mod:`.when`), the
slots it proposes (:mod:`.slots`, :mod:`.scheduling`), public holidays (:mod:`.holidays`), and at
confirm the booking and the iCalendar invitation (:mod:`.booking`, :mod:`.invitations`).

Imported by :mod:`multitool.tools.meeting_scheduler` only (and the review through it); may import
the base types, ports and the tool contract.
"""
