"""The free-times card's confirm: there is none (a read-only card); a module of its own, as every
tool's confirm."""

from multitool.toolkit.confirm import NoEdits, read_only_review


class FreeTimeEdits(NoEdits):
    """Nothing to edit on the free times."""


REVIEW = read_only_review(FreeTimeEdits)
