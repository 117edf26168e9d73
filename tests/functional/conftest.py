"""Fixtures the functional suites share."""

from __future__ import annotations

from tests.support.moto_tables import moto_tables

__all__ = ["moto_tables"]
