"""The Lambda layer: `multitool` plus its third-party runtime dependencies, built without Docker.

The layer's wheels are pinned in ``infra/layer.lock`` (name, version and
sha256 of every wheel), resolved once from ``pyproject.toml``'s runtime
dependencies for Lambda's platform (``make lock``), so two machines bundle the
same bytes. pip installs exactly those wheels (``--no-deps --require-hashes``)
into ``build/layer-cache/<hash of the lock>`` once; every synth after that
copies the cache and the current ``multitool`` sources.

The SDK ships in the layer too (boto3, botocore, s3transfer, pinned like the
rest): the code calls APIs younger than any SDK a Lambda runtime can be
trusted to carry (``InvokeHarness`` and its ``runtimeUserId``). The runtime's SDK
version depends on the runtime and the region and changes under a deployed
function (https://docs.aws.amazon.com/lambda/latest/dg/lambda-python.html,
"Runtime-included SDK versions"); AWS's advice to lock it is a layer
(https://docs.aws.amazon.com/lambda/latest/operatorguide/sdks-functions.html), and a
layer's ``/opt/python`` has precedence over the runtime-included libraries on the search path;
AWS recommends packaging every dependency, the SDK included
(https://docs.aws.amazon.com/lambda/latest/dg/python-package.html#python-package-searchpath).
``SDK_FLOOR`` is the oldest botocore whose service models accept every request
the code sends; ``tests/infra/test_sdk_floor.py`` holds the lock to it.

Bytecode: a layer is read-only at run time, so a module without a ``.pyc``
in the layer is compiled again on every cold start. When an interpreter of
the functions' exact Python version is on this machine (``python3.13`` on
``PATH``, a pyenv install, or ``LAYER_PYTHON``), every module is compiled with
it, with ``--invalidation-mode unchecked-hash``: the ``.pyc`` is used without
looking at the source's timestamp (a zip has none worth trusting), and its
bytes do not depend on when the synth ran. Without one, the layer ships
sources only and synth says so.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import cast

import aws_cdk as cdk
import jsii
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from infra.paths import LAYER_CACHE, LAYER_LOCK, PACKAGE, PYPROJECT, SHARED_PYTHON

PYTHON_VERSION = "3.13"
RUNTIME = lambda_.Runtime.PYTHON_3_13
ARCHITECTURE = lambda_.Architecture.ARM_64
# Lambda's Python 3.13 runs on Amazon Linux 2023 (glibc 2.34): any of these wheel tags loads.
PLATFORMS = ("manylinux2014_aarch64", "manylinux_2_28_aarch64", "manylinux_2_34_aarch64")
# The AWS SDK for Python, shipped in the layer rather than taken from the runtime (see above).
SDK = ("boto3", "botocore", "s3transfer")
SDK_FLOOR = "1.43.17"
"""The oldest botocore whose models accept every request the code sends (``InvokeHarness`` with
``runtimeUserId``): each request validated against the service models of real botocore wheels, see
docs/deploy.md ("The SDK is in the layer")."""
# Never shipped: development-only parts of the package.
PACKAGE_EXCLUDES = ("local", "__pycache__", "*.pyc", "*.pyo")
BUNDLER_VERSION = "2"
PIP_PLATFORM_ARGS = (
    "--only-binary=:all:", "--implementation", "cp", "--python-version", PYTHON_VERSION,
    *(arg for platform in PLATFORMS for arg in ("--platform", platform)),
)  # fmt: skip


class LayerBuildError(RuntimeError):
    """pip could not build the layer's dependency set."""


def runtime_requirements(pyproject: Path = PYPROJECT) -> list[str]:
    """The project's runtime dependencies: what the layer ships, the SDK included."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    deps: list[str] = project["dependencies"]
    return list(deps)


def lock_requirements(requirements: list[str] | None = None, lock: Path = LAYER_LOCK) -> list[str]:
    """Resolve the runtime dependencies for Lambda's platform; write them, pinned and hashed, to ``lock``."""
    wanted = runtime_requirements() if requirements is None else requirements
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        command = [
            sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--dry-run",
            "--ignore-installed", "--report", str(report), *PIP_PLATFORM_ARGS, *wanted,
        ]  # fmt: skip
        result = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
        if result.returncode != 0:
            last = (result.stderr.strip().splitlines() or ["no output"])[-1]
            raise LayerBuildError(f"Could not resolve the layer's dependencies {wanted}: {last}")
        resolved = json.loads(report.read_text(encoding="utf-8"))["install"]
    lines = []
    for item in resolved:
        name = _dist_name(item["metadata"]["name"])
        digest = item["download_info"]["archive_info"]["hashes"]["sha256"]
        lines.append(f"{name}=={item['metadata']['version']} --hash=sha256:{digest}")
    pins = sorted(lines)
    header = [
        "# The Lambda layer's wheels, pinned: `make lock` writes this file from pyproject.toml's",
        f"# [project.dependencies] for CPython {PYTHON_VERSION} on {', '.join(PLATFORMS)}.",
        f"# The SDK ({', '.join(SDK)}) is pinned here too, never taken from the Lambda runtime;",
        f"# botocore stays at or above {SDK_FLOOR} (infra.components.layer.SDK_FLOOR).",
    ]
    lock.write_text("\n".join([*header, *pins]) + "\n", encoding="utf-8")
    return pins


def locked_requirements(lock: Path = LAYER_LOCK) -> list[str]:
    """The pinned lines of the lock (``name==version --hash=sha256:...``)."""
    lines = lock.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def requirements_hash(requirements: list[str]) -> str:
    key = json.dumps(
        {
            "requirements": sorted(requirements),
            "python": PYTHON_VERSION,
            "platforms": PLATFORMS,
            "pruned": [],
            "bundler": BUNDLER_VERSION,
            "bytecode": layer_python() is not None,
        },
        sort_keys=True,
    )
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def layer_python(version: str = PYTHON_VERSION) -> str | None:
    """An interpreter of exactly the functions' Python version on this machine, if there is one."""
    candidates = [os.environ.get("LAYER_PYTHON"), shutil.which(f"python{version}")]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates += sorted(str(p) for p in pyenv.glob(f"{version}.*/bin/python{version}"))
    for candidate in candidates:
        if candidate and _is_python(candidate, version):
            return candidate
    return None


def _is_python(executable: str, version: str) -> bool:
    # Asked several times per synth (the wheel cache key, the holiday table, the bytecode): each answer
    # is kept while the file stays the same one (path, inode, size, mtime), so a replaced one is asked again.
    try:
        found = os.stat(executable)
    except OSError:
        return False
    return _answers_version(executable, version, (found.st_ino, found.st_size, found.st_mtime_ns))


@functools.lru_cache(maxsize=32)
def _answers_version(executable: str, version: str, _file: tuple[int, int, int]) -> bool:
    # A pyenv shim is on PATH even when it cannot run that version: ask the interpreter itself.
    probe = [executable, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"]
    try:
        result = subprocess.run(probe, capture_output=True, text=True, check=False, timeout=30)  # noqa: S603
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0 and result.stdout.strip() == version


# Lambda extracts a layer under /opt, and a Python layer's top folder is python/, on sys.path:
# https://docs.aws.amazon.com/lambda/latest/dg/packaging-layers.html ("Layer paths for each Lambda runtime").
LAYER_PATH_IN_LAMBDA = "/opt/python"


def compile_bytecode(root: Path, python: str | None, *, site: Path | None = None) -> bool:
    """Compile every module under ``root`` with ``python`` (unchecked-hash .pyc); False when there is none.

    ``site`` is the folder that becomes the layer's ``python/`` (``root`` itself by default). Each .pyc
    names its source where Lambda puts it (``/opt/python/...``), not where it was built: tracebacks
    point at real paths, and the same sources always compile to the same bytes, so the layer's asset
    hash (taken from its output) changes only when its contents do and a deploy publishes no new
    layer version for nothing.
    """
    if python is None:
        return False
    command = [
        python, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash",
        "-s", str(site or root), "-p", LAYER_PATH_IN_LAMBDA, str(root),
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or result.stdout.strip().splitlines() or ["?"])[-1]
        raise LayerBuildError(f"Compiling the layer's bytecode with {python} failed: {last}")
    return True


def write_holiday_table(python: Path, interpreter: str | None) -> bool:
    """Write ``multitool/public_holidays.txt`` into a layer folder from the layer's own ``holidays``
    (``multitool.ports.holidays``: a lookup reads it instead of importing the package at a cold
    start); False when the layer ships no ``holidays``. Both are pure Python, so any interpreter runs
    them, whichever platform the layer's wheels are for."""
    if not (python / "holidays").is_dir():
        return False
    table = python / PACKAGE.name / "public_holidays.txt"
    command = [interpreter or sys.executable, "-s", "-m", "multitool.ports.holidays", str(table)]
    env = {**os.environ, "PYTHONPATH": str(python), "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(command, capture_output=True, text=True, check=False, env=env)  # noqa: S603
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise LayerBuildError(f"Writing the layer's public holiday table failed: {last}")
    return True


def cached_site_packages(requirements: list[str], cache_root: Path = LAYER_CACHE) -> Path:
    """Install the pinned wheels once for Lambda's platform; later calls reuse the directory."""
    target = cache_root / requirements_hash(requirements)
    if target.is_dir():
        return target
    cache_root.mkdir(parents=True, exist_ok=True)
    staging = cache_root / f"{target.name}.tmp-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    pinned = staging.parent / f"{target.name}.requirements-{os.getpid()}.txt"
    pinned.write_text("\n".join(requirements) + "\n", encoding="utf-8")
    command = [
        sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
        "--no-deps", "--require-hashes", *PIP_PLATFORM_ARGS, "--target", str(staging), "-r", str(pinned),
    ]  # fmt: skip
    try:
        result = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    finally:
        pinned.unlink(missing_ok=True)
    if result.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise LayerBuildError(f"Layer bundling failed: pip could not install the locked wheels: {last}")
    _prune(staging)
    compile_bytecode(staging, layer_python())
    try:
        staging.rename(target)
    except OSError:  # another synth finished the same set first
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _prune(site: Path) -> None:
    for entry in site.iterdir():
        if entry.name in ("bin", "__pycache__"):
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def _dist_name(requirement: str) -> str:
    name = requirement
    for stop in "<>=!~;[ (":
        name = name.split(stop, 1)[0]
    return name.strip().lower().replace("_", "-")


def build_layer_contents(output_dir: Path, requirements: list[str] | None = None) -> None:
    """Write ``python/`` (dependencies + multitool, with bytecode where possible) into output_dir."""
    site = cached_site_packages(locked_requirements() if requirements is None else requirements)
    python = output_dir / "python"
    shutil.copytree(site, python, dirs_exist_ok=True)
    package = python / PACKAGE.name
    shutil.copytree(PACKAGE, package, ignore=shutil.ignore_patterns(*PACKAGE_EXCLUDES), dirs_exist_ok=True)
    write_holiday_table(python, layer_python())
    if not compile_bytecode(package, layer_python(), site=python):
        print(
            f"multitool layer: no Python {PYTHON_VERSION} interpreter here (set LAYER_PYTHON): the layer"
            " ships without bytecode and every cold start compiles what it imports.",
            file=sys.stderr,
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
        requirements = " ".join(f"'{r}'" for r in locked_requirements())
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
                        f"pip install --no-compile --no-deps --require-hashes --target /asset-output/python"
                        f" {requirements}"
                        " && cp -r /asset-input/multitool /asset-output/python/"
                        " && rm -rf /asset-output/python/multitool/local"
                        " && PYTHONPATH=/asset-output/python python -m multitool.ports.holidays"
                        " /asset-output/python/multitool/public_holidays.txt"
                        " && python -m compileall -q --invalidation-mode unchecked-hash"
                        f" -s /asset-output/python -p {LAYER_PATH_IN_LAMBDA} /asset-output/python",
                    ],
                ),
            ),
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m infra.components.layer", description=__doc__)
    parser.add_argument("command", choices=["lock"], help="lock: resolve and pin the layer's wheels")
    parser.parse_args(argv)
    pins = lock_requirements()
    print(f"{LAYER_LOCK.relative_to(PYPROJECT.parent)}: {len(pins)} wheels pinned")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
