"""The Lambda layer: `multitool` plus its third-party runtime dependencies, built without Docker.

pip downloads manylinux aarch64 wheels for the Lambda Python version into
``build/layer-cache/<hash of the requirement set>`` once; every synth after
that copies the cache and the current ``multitool`` sources. The SDK the
Lambda runtime already ships (boto3, botocore, s3transfer) is left out.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import cast

import aws_cdk as cdk
import jsii
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.paths import LAYER_CACHE, PACKAGE, PYPROJECT, SHARED_PYTHON

PYTHON_VERSION = "3.13"
RUNTIME = lambda_.Runtime.PYTHON_3_13
ARCHITECTURE = lambda_.Architecture.ARM_64
# Lambda's Python 3.13 runs on Amazon Linux 2023 (glibc 2.34): any of these wheel tags loads.
PLATFORMS = ("manylinux2014_aarch64", "manylinux_2_28_aarch64", "manylinux_2_34_aarch64")
# Provided by the Lambda Python runtime; bundling them only grows the layer.
RUNTIME_PROVIDED = ("boto3", "botocore", "s3transfer")
# Never shipped: development-only parts of the package.
PACKAGE_EXCLUDES = ("local", "__pycache__", "*.pyc", "*.pyo")
BUNDLER_VERSION = "1"


class LayerBuildError(RuntimeError):
    """pip could not build the layer's dependency set."""


def runtime_requirements(pyproject: Path = PYPROJECT) -> list[str]:
    """The project's runtime dependencies, minus what the Lambda runtime provides."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    deps: list[str] = project["dependencies"]
    return [d for d in deps if _dist_name(d) not in RUNTIME_PROVIDED]


def requirements_hash(requirements: list[str]) -> str:
    key = json.dumps(
        {
            "requirements": sorted(requirements),
            "python": PYTHON_VERSION,
            "platforms": PLATFORMS,
            "pruned": RUNTIME_PROVIDED,
            "bundler": BUNDLER_VERSION,
        },
        sort_keys=True,
    )
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def cached_site_packages(requirements: list[str], cache_root: Path = LAYER_CACHE) -> Path:
    """Install the requirement set once for Lambda's platform; later calls reuse the directory."""
    target = cache_root / requirements_hash(requirements)
    if target.is_dir():
        return target
    cache_root.mkdir(parents=True, exist_ok=True)
    staging = cache_root / f"{target.name}.tmp-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    command = [
        sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
        "--only-binary=:all:", "--implementation", "cp", "--python-version", PYTHON_VERSION,
        *(arg for platform in PLATFORMS for arg in ("--platform", platform)),
        "--target", str(staging), *requirements,
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    if result.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise LayerBuildError(f"Layer bundling failed: pip could not install {requirements}: {last}")
    _prune(staging)
    try:
        staging.rename(target)
    except OSError:  # another synth finished the same set first
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _prune(site: Path) -> None:
    for entry in site.iterdir():
        if _dist_name(entry.name.split("-")[0]) in RUNTIME_PROVIDED or entry.name in ("bin", "__pycache__"):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def _dist_name(requirement: str) -> str:
    name = requirement
    for stop in "<>=!~;[ (":
        name = name.split(stop, 1)[0]
    return name.strip().lower().replace("_", "-")


def build_layer_contents(output_dir: Path, requirements: list[str] | None = None) -> None:
    """Write ``python/`` (dependencies + multitool) into output_dir: the layer's zip root."""
    site = cached_site_packages(runtime_requirements() if requirements is None else requirements)
    python = output_dir / "python"
    shutil.copytree(site, python, dirs_exist_ok=True)
    shutil.copytree(
        PACKAGE, python / PACKAGE.name, ignore=shutil.ignore_patterns(*PACKAGE_EXCLUDES), dirs_exist_ok=True
    )


@jsii.implements(cdk.ILocalBundling)
class LocalLayerBundling:
    """CDK local bundling: no Docker engine needed."""

    def try_bundle(self, output_dir: str, options: cdk.BundlingOptions) -> bool:
        build_layer_contents(Path(output_dir))
        return True


class SharedLayer(Construct):
    """The one layer every function loads (`import multitool`)."""

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id)
        requirements = " ".join(f"'{r}'" for r in runtime_requirements())
        self.layer = lambda_.LayerVersion(
            self,
            "Layer",
            description="multitool package and its runtime dependencies",
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[ARCHITECTURE],
            code=lambda_.Code.from_asset(
                str(SHARED_PYTHON),
                asset_hash_type=cdk.AssetHashType.OUTPUT,
                bundling=cdk.BundlingOptions(
                    local=cast(cdk.ILocalBundling, LocalLayerBundling()),
                    # Only used where local bundling is unavailable: the same steps in the SAM build image.
                    image=cdk.DockerImage.from_registry(f"public.ecr.aws/sam/build-python{PYTHON_VERSION}"),
                    platform="linux/arm64",
                    command=[
                        "bash",
                        "-c",
                        f"pip install --no-compile --target /asset-output/python {requirements}"
                        f" && rm -rf /asset-output/python/{{boto3,botocore,s3transfer}}*"
                        " && cp -r /asset-input/multitool /asset-output/python/"
                        " && rm -rf /asset-output/python/multitool/local",
                    ],
                ),
            ),
        )
