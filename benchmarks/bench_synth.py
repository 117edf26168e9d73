"""`cdk synth` time per runtime, and the size of every asset it stages (layer, each function).

The app runs as the CDK CLI runs it (``python infra/app.py`` with context in
``CDK_CONTEXT_JSON``), cdk-nag included. The layer's pip step is cached in
``build/layer-cache``; the first synth on a machine adds the download (about
20 s with PyPI reachable), every later one only copies.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
VARIANTS: dict[str, dict[str, str]] = {
    "agentcore harness (default)": {},
    "agent + Lambda executors": {"runtime": "agent"},
    "agent + RETURN_CONTROL": {"runtime": "agent", "executor": "return_control"},
    "converse": {"runtime": "converse"},
}


def _synth(outdir: Path, overrides: dict[str, str]) -> float:
    context = json.loads((ROOT / "cdk.json").read_text())["context"]
    context |= {"senderEmail": "sender@example.com", **overrides}
    env = {
        **os.environ,
        "CDK_CONTEXT_JSON": json.dumps(context),
        "CDK_OUTDIR": str(outdir),
    }
    started = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / "infra" / "app.py")], env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def _sizes(directory: Path) -> tuple[int, int, int]:
    """(files, bytes unzipped, bytes zipped with deflate): what Lambda stores and loads."""
    files = [p for p in directory.rglob("*") if p.is_file()]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            archive.write(path, path.relative_to(directory).as_posix())
    return len(files), sum(p.stat().st_size for p in files), buffer.getbuffer().nbytes


def _assets(outdir: Path) -> list[tuple[str, Path]]:
    template: dict[str, Any] = json.loads((outdir / "Multitool.template.json").read_text())
    found: list[tuple[str, Path]] = []
    for logical_id, resource in template["Resources"].items():
        props = resource.get("Properties", {})
        code = props.get("Code") if resource["Type"] == "AWS::Lambda::Function" else props.get("Content")
        if resource["Type"] in ("AWS::Lambda::Function", "AWS::Lambda::LayerVersion") and code:
            name = re.sub(r"(Function)?[0-9A-F]{8}$", "", logical_id)
            found.append((name, outdir / f"asset.{code['S3Key'].removesuffix('.zip')}"))
    return sorted(found, key=lambda item: (item[0] != "Layer", item[0]))


def run() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'variant':<28}{'synth s':>10}")
        outdirs: dict[str, Path] = {}
        for name, overrides in VARIANTS.items():
            outdir = Path(tmp) / re.sub(r"\W+", "-", name)
            seconds = _synth(outdir, overrides)
            outdirs[name] = outdir
            print(f"{name:<28}{seconds:>10.1f}")
        print()
        print(f"{'asset (agent + Lambda)':<28}{'files':>8}{'unzipped KiB':>15}{'zipped KiB':>13}")
        for name, path in _assets(outdirs["agent + Lambda executors"]):
            files, raw, zipped = _sizes(path)
            print(f"{name:<28}{files:>8}{raw / 1024:>15.1f}{zipped / 1024:>13.1f}")


if __name__ == "__main__":
    run()
