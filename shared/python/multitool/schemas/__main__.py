"""``python -m multitool.schemas``: regenerate the committed OpenAPI documents, Gateway tool schemas and
the harness's tool specs."""

from __future__ import annotations

from pathlib import Path

import multitool
from multitool.schemas import write_all
from multitool.schemas.tools import write_all_tools
from multitool.toolkit import model_specs
from multitool.tools import REGISTRY


def write_tool_specs() -> Path:
    """``schemas/harness/tool_specs.json``: the tool models' JSON Schemas the harness runtime sends."""
    target = Path(multitool.__file__).parent.joinpath(*model_specs.COMMITTED)
    target.parent.mkdir(exist_ok=True)
    target.write_text(model_specs.render(REGISTRY.values()), encoding="utf-8")
    return target


if __name__ == "__main__":
    for path in [*write_all(), *write_all_tools(), write_tool_specs()]:
        print(f"wrote {path}")
