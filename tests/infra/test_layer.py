"""The layer's pinned wheels and its bytecode."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import marshal
import shutil
import stat
import sys
import tomllib
from datetime import date
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from infra.components import layer
from infra.components.functions import RUNTIME_ENVIRONMENT
from infra.paths import LAYER_LOCK, PYPROJECT

UNCHECKED_HASH = 0b01  # PEP 552 flags: hash-based, source not checked


def pyc_flags(pyc: Path) -> int:
    return int.from_bytes(pyc.read_bytes()[4:8], "little")


def assert_bytecode_as_bundled(python: Path) -> None:
    """With the functions' Python on this machine every module has its unchecked .pyc; else none has."""
    sources = list(python.rglob("*.py"))
    tag = f"cpython-{layer.PYTHON_VERSION.replace('.', '')}"
    if layer.layer_python() is None:
        assert not list(python.rglob("*.pyc"))
        return
    for source in sources:
        pyc = source.parent / "__pycache__" / f"{source.stem}.{tag}.pyc"
        assert pyc.is_file(), f"{source.relative_to(python)} has no {tag} bytecode"
        assert pyc_flags(pyc) == UNCHECKED_HASH
    assert not [p for p in python.rglob("*.pyc") if tag not in p.name]


def pins() -> dict[str, str]:
    pinned = {}
    for line in layer.locked_requirements():
        spec, _, digest = line.partition(" --hash=sha256:")
        name, _, version = spec.partition("==")
        assert len(digest) == 64, line
        pinned[name] = version
    return pinned


def test_the_lock_pins_every_runtime_dependency_within_its_range_the_sdk_included() -> None:
    dependencies = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    pinned = pins()
    for dependency in map(Requirement, dependencies):
        name = layer._dist_name(dependency.name)
        assert name in pinned, f"{name} is not in {LAYER_LOCK.name}: run `make lock`"
        assert dependency.specifier.contains(pinned[name], prereleases=True), (
            f"{name}=={pinned[name]} is outside {dependency.specifier}: run `make lock`"
        )
    assert set(layer.SDK) <= set(pinned), "the layer ships its own SDK, pinned like the rest"


def test_no_distribution_the_layer_installs_is_a_pydantic_plugin() -> None:
    # The functions run with pydantic's plugin search off (infra.components.functions.RUNTIME_ENVIRONMENT):
    # a locked distribution with a "pydantic" entry point would be silently left out. The dev venv holds
    # every locked distribution (requirements/dev.lock pins the same versions).
    plugins = {
        name: [
            entry.name
            for entry in importlib.metadata.distribution(name).entry_points
            if entry.group == "pydantic"
        ]
        for name in pins()
    }
    assert {name: found for name, found in plugins.items() if found} == {}
    assert RUNTIME_ENVIRONMENT["PYDANTIC_DISABLE_PLUGINS"] == "__all__"


def test_the_layer_cache_is_keyed_by_the_locked_wheels() -> None:
    locked = layer.locked_requirements()
    assert layer.requirements_hash(locked) == layer.requirements_hash(list(reversed(locked)))
    assert layer.requirements_hash(locked) != layer.requirements_hash(locked[1:])


def write_fake_python(path: Path, prints: str, code: int = 0) -> Path:
    path.write_text(f"#!/bin/sh\necho {prints}\nexit {code}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_an_interpreter_is_asked_its_version_and_a_broken_shim_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shim = write_fake_python(tmp_path / "python3.13", "pyenv: python3.13: command not found", 127)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "no-pyenv"))
    monkeypatch.delenv("LAYER_PYTHON", raising=False)
    assert layer.layer_python("3.13") is None

    write_fake_python(shim, "3.12")
    assert layer.layer_python("3.13") is None

    monkeypatch.setenv("LAYER_PYTHON", str(write_fake_python(tmp_path / "real", "3.13")))
    assert layer.layer_python("3.13") == str(tmp_path / "real")


def test_bytecode_is_compiled_unchecked_so_a_read_only_layer_never_recompiles(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("VALUE = 42\n")
    (package / "mod.py").write_text("def answer():\n    return 'yes'\n")

    assert layer.compile_bytecode(package, sys.executable)

    tag = sys.implementation.cache_tag
    pyc = package / "__pycache__" / f"mod.{tag}.pyc"
    assert pyc_flags(pyc) == UNCHECKED_HASH
    # The source may change or vanish: an unchecked .pyc is still what runs.
    (package / "mod.py").write_text("def answer():\n    return 'no'\n")
    spec = importlib.util.spec_from_file_location("pkg_mod", package / "mod.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.answer() == "yes"


def test_without_an_interpreter_nothing_is_compiled(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("X = 1\n")
    assert not layer.compile_bytecode(tmp_path, None)
    assert not list(tmp_path.rglob("*.pyc"))


def test_the_layer_ships_the_package_without_its_development_parts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given no third-party wheels and no interpreter to compile with: only the package is copied.
    empty_site = tmp_path / "site"
    empty_site.mkdir()
    monkeypatch.setattr(layer, "cached_site_packages", lambda requirements: empty_site)
    monkeypatch.setattr(layer, "layer_python", lambda version=layer.PYTHON_VERSION: None)

    layer.build_layer_contents(tmp_path / "out", requirements=[])

    shipped = tmp_path / "out" / "python" / "multitool"
    assert (shipped / "toolkit" / "context.py").is_file()
    # The local server, the sandboxes and the CLI are the developer's: none of them ships.
    assert not (shipped / "local").exists()
    assert not (shipped / "cli.py").exists()
    assert [p for p in shipped.rglob("*.py") if "local" in p.parts] == []


def test_the_layer_carries_its_holidays_packages_answers_as_a_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a site holding the holidays package (and what it imports), no interpreter to compile with
    import dateutil
    import holidays

    site = tmp_path / "site"
    for package in (holidays, dateutil):
        shutil.copytree(Path(package.__file__).parent, site / package.__name__)
    monkeypatch.setattr(layer, "cached_site_packages", lambda requirements: site)
    monkeypatch.setattr(layer, "layer_python", lambda version=layer.PYTHON_VERSION: None)

    layer.build_layer_contents(tmp_path / "out", requirements=[])

    # Then the package ships its holidays as the table the lookups read, for this year on
    from multitool.ports.holidays import TABLE, read_table

    table = read_table((tmp_path / "out" / "python" / "multitool" / TABLE).read_bytes())
    assert table.first == date.today().year
    assert table.holidays("GB", table.first)[date(table.first, 12, 25)] == "Christmas Day"


def test_the_same_sources_compile_to_the_same_bytes_wherever_they_are_built(tmp_path: Path) -> None:
    # Two builds of one tree in two folders (CDK bundles in a new temporary folder each synth): the
    # .pyc files are byte for byte the same and name their sources where Lambda extracts the layer.
    builds = []
    for name in ("first", "second"):
        site = tmp_path / name / "python"
        package = site / "pkg"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("VALUE = 42\n")
        (package / "mod.py").write_text("def answer():\n    raise ValueError('where')\n")
        assert layer.compile_bytecode(package, sys.executable, site=site)
        builds.append(site)

    tag = sys.implementation.cache_tag
    pycs = [sorted(p.relative_to(site) for p in site.rglob("*.pyc")) for site in builds]
    assert (
        pycs[0]
        == pycs[1]
        == [Path(f"pkg/__pycache__/__init__.{tag}.pyc"), Path(f"pkg/__pycache__/mod.{tag}.pyc")]
    )
    for relative in pycs[0]:
        assert (builds[0] / relative).read_bytes() == (builds[1] / relative).read_bytes()
    code = marshal.loads((builds[0] / f"pkg/__pycache__/mod.{tag}.pyc").read_bytes()[16:])
    assert code.co_filename == "/opt/python/pkg/mod.py"


def test_an_interpreter_is_asked_once_while_it_stays_the_same_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = tmp_path / "asked"
    python = tmp_path / "python3.13"
    python.write_text(f"#!/bin/sh\necho x >> {asked}\necho 3.13\n")
    python.chmod(python.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "no-pyenv"))
    monkeypatch.delenv("LAYER_PYTHON", raising=False)

    assert [layer.layer_python("3.13") for _ in range(3)] == [str(python)] * 3
    assert asked.read_text().count("x") == 1  # one synth asks three times: one process started

    python.write_text(f"#!/bin/sh\necho x >> {asked}\necho 3.12\n")  # another interpreter there now
    assert layer.layer_python("3.13") is None
    assert asked.read_text().count("x") == 2
