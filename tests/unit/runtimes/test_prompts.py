"""The prompt contract is stated, word for word, by every runtime's prompt."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from multitool.runtimes.prompts import (
    AGENT_INSTRUCTION,
    CONTRACT,
    EVERY_TOOL,
    LINKS,
    NO_JSON,
    RAW_NAMES,
    REVISE,
    TIMES,
    contract_text,
    prompt_session_attributes,
    system_prompt,
)

NOW = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)


def test_the_contract_has_the_rules_of_the_design_and_how_to_revise() -> None:
    assert CONTRACT == (EVERY_TOOL, RAW_NAMES, NO_JSON, REVISE, LINKS)
    assert "give the producing call a label" in LINKS
    assert "{{label.value}}" in LINKS
    assert "still make every call in the same response" in LINKS
    assert "revises set to that card's draftId" in REVISE
    assert "every applicable tool in the same turn" in EVERY_TOOL
    assert "exactly as the user wrote them" in RAW_NAMES
    assert "backend resolves" in RAW_NAMES
    assert "Do not write tool results as JSON" in NO_JSON


@pytest.mark.parametrize(
    "prompt",
    [
        AGENT_INSTRUCTION,
        system_prompt(timezone="Europe/Berlin", now=NOW),
        prompt_session_attributes(timezone="Europe/Berlin", now=NOW)["rules"],
    ],
    ids=["agent-instruction", "converse-system", "invoke-agent-prompt-attributes"],
)
def test_every_prompt_states_every_rule(prompt: str) -> None:
    for rule in CONTRACT:
        assert rule in prompt


def test_time_context_travels_with_the_runtime_prompts() -> None:
    attributes = prompt_session_attributes(timezone="Asia/Kolkata", now=NOW)

    assert attributes == {
        "rules": contract_text(),
        "timezone": "Asia/Kolkata",
        "now": NOW.isoformat(),
        "dates": "The user's numeric dates are day/month (3/1 is 3 January), as dates are written in IN, "
        "the country of the user's time zone Asia/Kolkata.",
    }
    assert all(isinstance(value, str) for value in attributes.values())
    assert "Asia/Kolkata" in system_prompt(timezone="Asia/Kolkata")
    assert NOW.isoformat() in system_prompt(timezone="UTC", now=NOW)


@pytest.mark.parametrize(
    "prompt",
    [AGENT_INSTRUCTION, system_prompt(timezone="Europe/Berlin", now=NOW)],
    ids=["agent-instruction", "converse-system"],
)
def test_every_prompt_asks_for_structured_times_from_now_and_the_users_zone(prompt: str) -> None:
    assert TIMES in prompt
    assert "resolved from the current time and the user's time zone" in TIMES
    assert "ask instead of guessing" in TIMES


def test_agent_instruction_fits_bedrock_limits() -> None:
    # Bedrock agents need an instruction of 40 to 20000 characters.
    assert 40 <= len(AGENT_INSTRUCTION) <= 20_000
