"""Fixtures the functional suites share."""

from __future__ import annotations

from tests.support.moto_tables import moto_tables, review_aws

__all__ = ["moto_tables", "review_aws"]
