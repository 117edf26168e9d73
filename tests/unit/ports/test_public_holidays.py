"""The layer's public holiday table: the holidays package's answer, read without importing the package."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from multitool.ports import holidays as public_holidays
from multitool.ports.holidays import _package_holidays, read_table, table_text

from infra.paths import PACKAGE

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def table_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Written as the layer's build writes it: the module run as a program, the first year given.
    out = tmp_path_factory.mktemp("table") / public_holidays.TABLE
    command = [sys.executable, "-m", "multitool.ports.holidays", str(out), "2026"]
    subprocess.run(command, check=True, env={"PYTHONPATH": str(ROOT / "shared" / "python")})
    return out


def test_the_table_holds_every_zone_countrys_holidays_as_the_package_answers(table_file: Path) -> None:
    table = read_table(table_file.read_bytes())

    assert (table.first, table.last) == (2026, 2026 + public_holidays.TABLE_YEARS - 1)
    countries = sorted(set(public_holidays._zone_countries().values()))
    for country in countries:
        for year in range(table.first, table.last + 1):
            assert table.holidays(country, year) == _package_holidays(country, [year]), (country, year)
    assert table.holidays("DE", 2026)[date(2026, 10, 3)] == "German Unity Day"
    assert table.holidays("GB", 2030) is None  # past the table: the caller asks the package


def test_a_lookup_on_the_table_never_imports_the_holidays_package(table_file: Path, tmp_path: Path) -> None:
    # In a fresh interpreter, on a copy of the package with the table where the layer's build writes it
    # (infra.components.layer.write_holiday_table: python/multitool/public_holidays.txt).
    python = tmp_path / "python"
    shutil.copytree(PACKAGE, python / PACKAGE.name, ignore=shutil.ignore_patterns("__pycache__", "local"))
    shutil.copyfile(table_file, python / PACKAGE.name / public_holidays.TABLE)
    probe = """
import sys
from datetime import date
from multitool.ports import holidays as p
print(p.holiday(date(2026, 12, 25), "Europe/London"), p.holiday(date(2027, 7, 5), "America/New_York"),
      p.holiday(date(2026, 12, 24), "Asia/Tokyo"), "holidays" in sys.modules, p._installed_table().first)
"""
    answer = subprocess.run(
        [sys.executable, "-c", probe],
        check=True,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(python)},
    ).stdout.split("\n")[0]

    assert answer == "('GB', 'Christmas Day') ('US', 'Independence Day (observed)') None False 2026"


def test_the_names_are_english_as_in_lambdas_locale_whatever_the_machines(table_file: Path) -> None:
    # The table was written with no locale at all in its environment (the fixture's env).
    table = read_table(table_file.read_bytes())

    assert table.holidays("AD", 2026)[date(2026, 5, 1)] == "Labor Day"
    assert table.holidays("FR", 2026)[date(2026, 7, 14)] == "National Day"


def test_a_year_past_the_table_and_no_table_at_all_are_answered_by_the_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    one_year = read_table(table_text(2026, years=1).encode())
    monkeypatch.setattr(public_holidays, "_installed_table", lambda: one_year)
    public_holidays._holidays.cache_clear()
    try:
        assert public_holidays.holiday(date(2027, 12, 25), "Europe/London") == ("GB", "Christmas Day")
        monkeypatch.setattr(public_holidays, "_installed_table", lambda: None)
        public_holidays._holidays.cache_clear()
        assert public_holidays.holiday(date(2026, 12, 25), "Europe/Berlin") == ("DE", "Christmas Day")
    finally:
        public_holidays._holidays.cache_clear()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (b"countries 2026 2029\nDE {}\n", "not a public holiday table: 'countries 2026 2029'"),
        (b"years 2026\n", "not a public holiday table: 'years 2026'"),
        (b"years 2026 next\nDE {}\n", "invalid literal"),
    ],
)
def test_a_file_that_is_not_a_table_is_refused(text: bytes, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        read_table(text)


def test_a_lookup_finds_its_countrys_line_alone_the_first_the_last_and_none() -> None:
    # Lines as the writer orders them (by country); the last one without its newline, as a file cut
    # short would end; a code that is a prefix of no line, and one inside another line's JSON.
    table = read_table(
        b'years 2026 2026\nAD {"2026-01-01":"New Year\'s Day"}\n'
        b'DE {"2026-10-03":"German Unity Day","AD":"x"}\n'
        b'ZW {"2026-04-18":"Independence Day"}'
    )

    assert table.holidays("AD", 2026) == {date(2026, 1, 1): "New Year's Day"}
    assert table.holidays("DE", 2026) == {date(2026, 10, 3): "German Unity Day"}
    assert table.holidays("ZW", 2026) == {date(2026, 4, 18): "Independence Day"}
    assert table.holidays("D", 2026) == table.holidays("XK", 2026) == {}
    assert table.holidays("DE", 2027) is None
    assert read_table(b"years 2026 2029").holidays("DE", 2026) == {}  # no line at all


def test_the_table_line_of_a_country_is_compact_json_of_its_days(table_file: Path) -> None:
    lines = table_file.read_text(encoding="utf-8").splitlines()
    country, _, row = next(line for line in lines if line.startswith("DE ")).partition(" ")

    days = json.loads(row)
    assert country == "DE"
    assert all(day[:4] in {"2026", "2027", "2028", "2029"} for day in days)
    assert ": " not in row


def test_writing_the_table_loads_no_compiled_package() -> None:
    # The layer build runs the writer with any interpreter over wheels built for Lambda's platform
    # (arm64): importing pydantic_core (or anything compiled) there fails, so the module and the
    # packages it sits in import nothing of the kind.
    probe = (
        "import sys, multitool.ports.holidays\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'pydantic', 'pydantic_core', 'boto3', "
        "'botocore'} or m in {'multitool.tools', 'multitool.wire'}))"
    )
    answer = subprocess.run(
        [sys.executable, "-s", "-c", probe],
        check=True,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "shared" / "python")},
    )

    assert answer.stdout.strip() == "[]"
