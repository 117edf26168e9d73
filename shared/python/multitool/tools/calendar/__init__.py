"""What is on the user's calendar, read only: their agenda (:mod:`.calendar_agenda`, named after its
action group) and the windows they and the people they name are free (:mod:`.free_time`). Neither
card has a confirm (``CardSpec(read_only=True)``).

Loaded through the registry only (``REGISTRY.declare`` in :mod:`multitool.tools`); may import the
base types, ports, the tool contract and the meeting tool's reading of days and hours.
"""
