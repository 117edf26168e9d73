"""Reading a function's environment: the text the stack sets, read as each field's type, bounded by the
field's ``Meta``, and a variable that is missing or out of range named in the refusal."""

from __future__ import annotations

import pytest
from multitool.deployment import JiraAuth
from multitool.settings import JiraProject, ModelBackend, SettingsError, ToolSettings
from multitool.settings.chat import ChatSettings
from multitool.settings.review import OutsideRecipients, ReviewSettings

ENV = {
    "DRAFTS_TABLE_NAME": "drafts",
    "DIRECTORY_TABLE_NAME": "directory",
    "BOOKINGS_TABLE_NAME": "bookings",
    "SESSIONS_TABLE_NAME": "sessions",
    "SENDER_EMAIL": "noreply@example.com",
}


def test_the_environment_text_is_read_as_each_field_type() -> None:
    chat = ChatSettings.from_env(
        {
            **ENV,
            "RUNTIME": "agentcore",
            "HISTORY_EXCHANGES": "3",
            "CHAT_PER_MINUTE": "2.5",
            "IDENTITY_SLACK_USERS": "true",
            "JIRA_AUTH": "organization",
            "JIRA_PROJECTS": '{"web": {"name": "Website", "issueTypes": ["Bug"]}}',
            "PROVIDER_TOKENS": '{"priya@example.com": "t-1"}',
        }
    )
    review = ReviewSettings.from_env(
        {**ENV, "RECIPIENT_DOMAINS": " example.com, ,example.org ", "OUTSIDE_RECIPIENTS": "off"}
    )

    assert chat.runtime is ModelBackend.AGENTCORE
    assert (chat.history_exchanges, chat.chat_per_minute, chat.identity_slack_users) == (3, 2.5, True)
    assert chat.jira_auth is JiraAuth.ORGANIZATION
    assert chat.jira_projects == {"WEB": JiraProject(name="Website", issue_types=("Bug",))}
    assert chat.provider_tokens == {"priya@example.com": "t-1"}
    assert review.recipient_domains == ("example.com", "example.org")
    assert review.outside_recipients is OutsideRecipients.OFF


def test_an_unset_or_empty_variable_keeps_the_field_default() -> None:
    settings = ChatSettings.from_env({**ENV, "HISTORY_EXCHANGES": ""})

    assert settings.history_exchanges == 10
    assert settings.jira_projects == {
        "WEB": JiraProject(name="Website"),
        "OPS": JiraProject(name="Operations"),
    }
    assert settings.jira_projects["WEB"].issue_types == ("Bug", "Task", "Story")


@pytest.mark.parametrize(
    ("environment", "named"),
    [
        ({"RECIPIENTS_PER_DAY": "0"}, "RECIPIENTS_PER_DAY: Expected `int` >= 1"),
        ({"RECIPIENTS_PER_DAY": "many"}, "RECIPIENTS_PER_DAY: Expected `int`, got `str`"),
        ({"SANDBOX": "perhaps"}, "SANDBOX: Expected `bool`, got `str`"),
        ({"CALENDAR": "exchange"}, "CALENDAR: Invalid enum value 'exchange'"),
        ({"CONFIRMS_PER_MINUTE": "0"}, "CONFIRMS_PER_MINUTE: Expected `float` > 0"),
        ({"CONFIRMS_PER_MINUTE": "0.5"}, None),
        ({"RECIPIENT_DOMAINS": "example.com"}, None),
    ],
)
def test_a_variable_out_of_its_range_is_refused_by_name(
    environment: dict[str, str], named: str | None
) -> None:
    if named is None:
        ReviewSettings.from_env({**ENV, **environment})
        return
    with pytest.raises(SettingsError, match=f"^Invalid environment for ReviewSettings: {named}"):
        ReviewSettings.from_env({**ENV, **environment})


def test_a_missing_variable_is_named() -> None:
    without = {name: value for name, value in ENV.items() if name != "SESSIONS_TABLE_NAME"}

    with pytest.raises(
        SettingsError, match=r"^Invalid environment for ChatSettings: SESSIONS_TABLE_NAME: required$"
    ):
        ChatSettings.from_env(without)


@pytest.mark.parametrize(
    ("name", "raw", "named"),
    [
        ("JIRA_PROJECTS", "{", "JIRA_PROJECTS: JIRA_PROJECTS is not valid JSON"),
        ("JIRA_PROJECTS", '{"WEB": {"issueTypes": ["Bug"]}}', "JIRA_PROJECTS: JIRA_PROJECTS: Object missing"),
        ("PROVIDER_TOKENS", "[]", "PROVIDER_TOKENS: must be a JSON object"),
    ],
)
def test_a_variable_that_is_not_the_json_it_must_be_is_named(name: str, raw: str, named: str) -> None:
    with pytest.raises(SettingsError, match=f"^Invalid environment for ToolSettings: {named}"):
        ToolSettings.from_env({**ENV, name: raw})


def test_settings_are_frozen_values() -> None:
    settings = ToolSettings.from_env(ENV)

    with pytest.raises(AttributeError):
        settings.drafts_table_name = "other"  # type: ignore[misc]
    assert settings == ToolSettings.from_env(ENV)


def test_the_page_gets_the_projects_as_json_the_tools_read() -> None:
    from multitool.settings import page_projects

    projects = page_projects(
        '{"ops": {"name": "Operations", "issueTypes": ["Incident"]}, "web": {"name": "W"}}'
    )

    assert projects == {
        "OPS": {"name": "Operations", "issueTypes": ["Incident"]},
        "WEB": {"name": "W", "issueTypes": ["Bug", "Task", "Story"]},
    }
    assert list(page_projects(None)) == ["OPS", "WEB"]
