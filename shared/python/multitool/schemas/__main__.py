"""``python -m multitool.schemas``: regenerate the committed OpenAPI documents."""

from __future__ import annotations

from multitool.schemas import write_all

if __name__ == "__main__":
    for path in write_all():
        print(f"wrote {path}")
