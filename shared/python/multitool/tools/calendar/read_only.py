"""The agenda's confirm: there is none (a read-only card); a module of its own, as every tool's confirm."""

from multitool.toolkit.confirm import NoEdits, read_only_review


class AgendaEdits(NoEdits):
    """Nothing to edit on the agenda."""


REVIEW = read_only_review(AgendaEdits)
