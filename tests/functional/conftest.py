"""Fixtures the functional suites share."""

from __future__ import annotations

from tests.support.moto_tables import moto_tables, review_aws
from tests.support.provider_review import drafts

__all__ = ["drafts", "moto_tables", "review_aws"]
