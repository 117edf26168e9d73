"""``make audit``: known vulnerabilities in what the project installs, from its locks.

The Python locks (``requirements/dev.lock``: the infra and dev extras; ``infra/layer.lock``: the
Lambda layer) go through ``pip-audit`` (PyPI's advisory data, exact pins and hashes, nothing
resolved or installed), ``package-lock.json`` through ``npm audit --package-lock-only``. Any
advisory fails the audit unless ``infra/audit-accepted.toml`` accepts it by id, with a reason and
a review date; an acceptance past its date fails again. An advisory database that cannot be reached
is said so and, unless ``AUDIT_STRICT=1``, does not fail the run: a network without it gets no
answer either way, and passing silently would say nothing was found.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from infra.paths import ROOT

PYTHON_LOCKS = (ROOT / "requirements" / "dev.lock", ROOT / "infra" / "layer.lock")
NPM_LOCK = ROOT / "package-lock.json"
ACCEPTED = ROOT / "infra" / "audit-accepted.toml"

Run = Callable[[Sequence[str]], "subprocess.CompletedProcess[str]"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One advisory against one pinned package."""

    ecosystem: str
    package: str
    version: str
    ids: tuple[str, ...]
    """The advisory's id first, then its aliases (PYSEC-, GHSA-, CVE-)."""
    summary: str


@dataclass(frozen=True, slots=True)
class Acceptance:
    id: str
    reason: str
    until: date


@dataclass
class Report:
    findings: list[Finding]
    unaudited: list[str]
    """What could not be checked, and why (an unreachable advisory database)."""


def load_accepted(path: Path = ACCEPTED) -> dict[str, Acceptance]:
    """The accepted advisories by id; a malformed entry raises, naming it."""
    data = tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    accepted: dict[str, Acceptance] = {}
    for index, entry in enumerate(data.get("accepted", [])):
        try:
            item = Acceptance(str(entry["id"]), str(entry["reason"]), date.fromisoformat(str(entry["until"])))
        except (KeyError, ValueError) as error:
            raise ValueError(
                f"{path.name}: accepted[{index}] needs id, reason and until (YYYY-MM-DD)"
            ) from error
        if len(item.reason) < 20:
            raise ValueError(f"{path.name}: accepted[{index}] ({item.id}) needs a real reason")
        accepted[item.id] = item
    return accepted


def pip_audit_findings(report: Mapping[str, Any]) -> tuple[list[Finding], list[str]]:
    """Findings and unaudited packages of a ``pip-audit --format json`` report."""
    findings: list[Finding] = []
    unaudited: list[str] = []
    for dependency in report.get("dependencies", []):
        if "skip_reason" in dependency:
            unaudited.append(f"{dependency['name']}: {dependency['skip_reason']}")
            continue
        for vuln in dependency.get("vulns", []):
            findings.append(
                Finding(
                    "pypi",
                    dependency["name"],
                    dependency.get("version", ""),
                    (vuln["id"], *vuln.get("aliases", [])),
                    (vuln.get("description") or "").split("\n", 1)[0][:160],
                )
            )
    return findings, unaudited


def npm_audit_findings(report: Mapping[str, Any]) -> tuple[list[Finding], list[str]]:
    """Findings of an ``npm audit --json`` report (auditReportVersion 2): one per advisory and package."""
    if "error" in report or "vulnerabilities" not in report:
        message = report.get("message") or report.get("error", {}).get("summary") or "no audit report"
        return [], [f"package-lock.json: {message}"]
    findings: list[Finding] = []
    for name, entry in report["vulnerabilities"].items():
        for via in entry.get("via", []):
            if not isinstance(via, Mapping):
                continue  # a package that is vulnerable through another one: that one is listed itself
            url = str(via.get("url", ""))
            ghsa = url.rsplit("/", 1)[-1] if "/advisories/" in url else ""
            ids = tuple(i for i in (ghsa, f"npm:{via.get('source')}") if i)
            findings.append(Finding("npm", name, str(entry.get("range", "")), ids, str(via.get("title", ""))))
    return findings, []


def unaccepted(
    findings: Iterable[Finding], accepted: Mapping[str, Acceptance], today: date
) -> tuple[list[Finding], list[str]]:
    """The findings no current acceptance covers, and the acceptances that expired (by id)."""
    left: list[Finding] = []
    expired: list[str] = []
    for finding in findings:
        match = next((accepted[i] for i in finding.ids if i in accepted), None)
        if match is None:
            left.append(finding)
        elif match.until < today:
            expired.append(match.id)
            left.append(finding)
    return left, expired


def _run(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
    # The commands are this module's own (this interpreter's pip-audit, npm), never the input's.
    return subprocess.run(  # noqa: S603
        list(command), capture_output=True, text=True, check=False, cwd=ROOT, timeout=600
    )


def audit(run: Run = _run) -> Report:
    """Run pip-audit on each Python lock and npm audit on package-lock.json; what they found."""
    report = Report([], [])
    for lock in PYTHON_LOCKS:
        done = run(
            [
                sys.executable, "-m", "pip_audit", "--requirement", str(lock), "--require-hashes",
                "--disable-pip", "--progress-spinner", "off", "--format", "json",
            ]
        )  # fmt: skip
        try:
            found, skipped = pip_audit_findings(json.loads(done.stdout or "{}"))
        except json.JSONDecodeError:
            report.unaudited.append(
                f"{lock.name}: pip-audit answered no report ({done.stderr.strip()[-200:]})"
            )
            continue
        report.findings += found
        report.unaudited += [f"{lock.name}: {s}" for s in skipped]
    done = run(["npm", "audit", "--package-lock-only", "--json"])
    try:
        found, skipped = npm_audit_findings(json.loads(done.stdout or "{}"))
    except json.JSONDecodeError:
        found, skipped = (
            [],
            [f"package-lock.json: npm audit answered no report ({done.stderr.strip()[-200:]})"],
        )
    report.findings += found
    report.unaudited += skipped
    return report


def main(
    argv: Sequence[str] | None = None,
    *,
    run: Run = _run,
    today: date | None = None,
    environ: Mapping[str, str] | None = None,
) -> int:
    env = os.environ if environ is None else environ
    day = today or date.today()
    accepted = load_accepted()
    report = audit(run)
    left, expired = unaccepted(report.findings, accepted, day)
    for finding in left:
        print(
            f"VULNERABLE {finding.ecosystem} {finding.package} {finding.version}: "
            f"{', '.join(finding.ids)} {finding.summary}"
        )
    for advisory in expired:
        print(f"EXPIRED acceptance of {advisory} ({accepted[advisory].until}): review it in {ACCEPTED.name}")
    if report.unaudited:
        print(f"NOT AUDITED ({len(report.unaudited)}): the advisory database did not answer for:")
        for line in report.unaudited[:10]:
            print(f"  {line}")
    if left:
        print(f"{len(left)} known vulnerabilities; upgrade, or accept one by id in {ACCEPTED.name}.")
        return 1
    if report.unaudited and env.get("AUDIT_STRICT") == "1":
        print("AUDIT_STRICT=1: what could not be audited fails the run.")
        return 1
    locks = ", ".join(p.name for p in (*PYTHON_LOCKS, NPM_LOCK))
    if report.unaudited:
        print(f"No known vulnerability in what could be audited of {locks}; the rest was NOT audited.")
    else:
        print(f"No known vulnerability in {locks}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
