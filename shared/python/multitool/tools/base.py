"""The tool context and errors under their former path, for the phrase reader and its tests.

The tool contract lives in :mod:`multitool.toolkit` (:mod:`~multitool.toolkit.context`,
:mod:`~multitool.toolkit.errors`); new code imports it from there. The meeting tool's phrase reader
(:mod:`multitool.tools.meeting.when`) and its tests still name this path while they are split
into modules of their own; once they import the toolkit, this module goes.
"""

from multitool.toolkit.context import ToolConfig, ToolContext
from multitool.toolkit.errors import DateInPast, UnparseableDate

__all__ = ["DateInPast", "ToolConfig", "ToolContext", "UnparseableDate"]
