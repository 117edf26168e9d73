"""make audit: a known vulnerability in a lock fails, an accepted one (until its date) passes, an
unreachable advisory database is said so; the reports are pip-audit's and npm audit's JSON shapes."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from datetime import date
from pathlib import Path

import pytest

from infra import audit
from infra.audit import load_accepted, main, npm_audit_findings, pip_audit_findings

# pip-audit --format json: one vulnerable pin, one clean, one it could not look up
PIP_REPORT = {
    "dependencies": [
        {
            "name": "jinja2",
            "version": "3.1.2",
            "vulns": [
                {
                    "id": "GHSA-h5c8-rqwp-cp95",
                    "fix_versions": ["3.1.3"],
                    "aliases": ["CVE-2024-22195"],
                    "description": "Jinja vulnerable to HTML attribute injection\nwhen passing user input",
                }
            ],
        },
        {"name": "six", "version": "1.17.0", "vulns": []},
        {
            "name": "boto3",
            "skip_reason": "Dependency not found on PyPI and could not be audited: boto3 (1.44.8)",
        },
    ],
    "fixes": [],
}
# npm audit --json (auditReportVersion 2): a direct advisory and a package vulnerable through it
NPM_REPORT = {
    "auditReportVersion": 2,
    "vulnerabilities": {
        "semver": {
            "name": "semver",
            "severity": "high",
            "isDirect": False,
            "via": [
                {
                    "source": 1101088,
                    "name": "semver",
                    "dependency": "semver",
                    "title": "semver vulnerable to Regular Expression Denial of Service",
                    "url": "https://github.com/advisories/GHSA-c2qf-rxjj-qqgw",
                    "severity": "high",
                    "range": ">=7.0.0 <7.5.2",
                }
            ],
            "effects": ["aws-cdk"],
            "range": "7.0.0 - 7.5.1",
            "fixAvailable": True,
        },
        "aws-cdk": {
            "name": "aws-cdk",
            "severity": "high",
            "via": ["semver"],
            "range": "*",
            "fixAvailable": True,
        },
    },
    "metadata": {"vulnerabilities": {"high": 2, "total": 2}},
}
CLEAN_NPM = {"auditReportVersion": 2, "vulnerabilities": {}, "metadata": {"vulnerabilities": {"total": 0}}}


def _runner(pip: dict, npm: dict):  # type: ignore[no-untyped-def]
    def run(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
        report = npm if command[0] == "npm" else pip
        return subprocess.CompletedProcess(list(command), 1, json.dumps(report), "")

    return run


@pytest.fixture
def accepted_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "audit-accepted.toml"
    path.write_text("accepted = []\n")
    monkeypatch.setattr(audit, "ACCEPTED", path)
    monkeypatch.setattr(audit.load_accepted, "__defaults__", (path,))
    return path


def test_the_reports_give_one_finding_per_advisory_and_what_was_not_audited() -> None:
    found, skipped = pip_audit_findings(PIP_REPORT)
    assert [(f.package, f.ids) for f in found] == [("jinja2", ("GHSA-h5c8-rqwp-cp95", "CVE-2024-22195"))]
    assert found[0].summary == "Jinja vulnerable to HTML attribute injection"
    assert skipped == ["boto3: Dependency not found on PyPI and could not be audited: boto3 (1.44.8)"]
    found, skipped = npm_audit_findings(NPM_REPORT)
    assert [(f.package, f.ids) for f in found] == [("semver", ("GHSA-c2qf-rxjj-qqgw", "npm:1101088"))]
    assert skipped == []
    # the registry refusing the audit endpoint is no report, not a clean one
    refused = {"message": "405 Method Not Allowed - POST https://registry/-/npm/v1/security/advisories/bulk"}
    assert npm_audit_findings(refused)[1] == [f"package-lock.json: {refused['message']}"]


def test_a_known_vulnerability_fails_the_audit_and_names_it(
    accepted_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([], run=_runner(PIP_REPORT, CLEAN_NPM), today=date(2026, 12, 1), environ={}) == 1
    printed = capsys.readouterr().out
    assert "VULNERABLE pypi jinja2 3.1.2: GHSA-h5c8-rqwp-cp95, CVE-2024-22195" in printed
    assert main([], run=_runner({"dependencies": []}, NPM_REPORT), today=date(2026, 12, 1), environ={}) == 1
    assert "VULNERABLE npm semver" in capsys.readouterr().out


def test_an_accepted_advisory_passes_until_its_review_date(
    accepted_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    accepted_file.write_text(
        '[[accepted]]\nid = "CVE-2024-22195"\n'
        'reason = "Templates here are ours; no user input reaches xmlattr."\nuntil = "2026-12-31"\n'
        '[[accepted]]\nid = "GHSA-c2qf-rxjj-qqgw"\n'
        'reason = "The CDK CLI never parses a version range a user gives."\nuntil = "2026-12-31"\n'
    )
    run = _runner(PIP_REPORT, NPM_REPORT)
    assert main([], run=run, today=date(2026, 12, 31), environ={}) == 0
    assert main([], run=run, today=date(2027, 1, 1), environ={}) == 1
    assert "EXPIRED acceptance of CVE-2024-22195" in capsys.readouterr().out


def test_an_acceptance_needs_an_id_a_reason_and_a_date(accepted_file: Path) -> None:
    accepted_file.write_text('[[accepted]]\nid = "CVE-1"\nreason = "fine"\nuntil = "2027-01-01"\n')
    with pytest.raises(ValueError, match="real reason"):
        load_accepted(accepted_file)
    accepted_file.write_text('[[accepted]]\nid = "CVE-1"\nreason = "a reason long enough to read"\n')
    with pytest.raises(ValueError, match="until"):
        load_accepted(accepted_file)


def test_an_unreachable_database_is_said_and_fails_only_when_strict(
    accepted_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unreachable_pip = {"dependencies": [PIP_REPORT["dependencies"][2]]}
    refused = {"message": "405 Method Not Allowed"}
    run = _runner(unreachable_pip, refused)
    assert main([], run=run, today=date(2026, 12, 1), environ={}) == 0
    printed = capsys.readouterr().out
    assert "NOT AUDITED" in printed
    assert "the rest was NOT audited" in printed
    assert main([], run=run, today=date(2026, 12, 1), environ={"AUDIT_STRICT": "1"}) == 1


def test_the_committed_acceptances_are_well_formed() -> None:
    load_accepted(audit.ROOT / "infra" / "audit-accepted.toml")
