"""``python -m multitool.schemas``: regenerate the committed OpenAPI documents and Gateway tool schemas."""

from __future__ import annotations

from multitool.schemas import write_all
from multitool.schemas.tools import write_all_tools

if __name__ == "__main__":
    for path in [*write_all(), *write_all_tools()]:
        print(f"wrote {path}")
