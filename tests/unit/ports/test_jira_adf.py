"""Jira create-issue fields and the Atlassian Document Format description."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from multitool.ports.jira import IssueRequest, JiraCredentials, JiraNotConfigured, adf_document, issue_fields


def test_blank_lines_make_paragraphs_and_single_newlines_hard_breaks() -> None:
    doc = adf_document("Steps:\n1. open the page\n2. click save\n\n\nExpected: it saves")

    assert doc == {
        "type": "doc",
        "version": 1,
        "content": [
            {
                "type": "paragraph",
                "content": [
                    {"type": "text", "text": "Steps:"},
                    {"type": "hardBreak"},
                    {"type": "text", "text": "1. open the page"},
                    {"type": "hardBreak"},
                    {"type": "text", "text": "2. click save"},
                ],
            },
            {"type": "paragraph", "content": [{"type": "text", "text": "Expected: it saves"}]},
        ],
    }


def test_windows_newlines_and_surrounding_blank_lines_are_ignored() -> None:
    doc = adf_document("\r\n\r\nOne\r\ntwo\r\n\r\n")
    assert doc["content"] == [
        {
            "type": "paragraph",
            "content": [
                {"type": "text", "text": "One"},
                {"type": "hardBreak"},
                {"type": "text", "text": "two"},
            ],
        }
    ]


def test_every_text_node_is_non_empty() -> None:
    doc = adf_document("a\n\n \n\nb\n\nc\n\n\n\n")
    texts = [node for p in doc["content"] for node in p["content"] if node["type"] == "text"]
    assert [t["text"] for t in texts] == ["a", "b", "c"]
    assert all(t["text"] for t in texts)


def test_fields_name_project_type_priority_and_assignee_as_jira_expects() -> None:
    issue = IssueRequest(
        project="WEB", issue_type="Bug", summary="Login fails", description="It fails.", priority="High"
    )

    fields = issue_fields(issue, assignee_account_id="acc-1")

    assert fields["project"] == {"key": "WEB"}
    assert fields["issuetype"] == {"name": "Bug"}
    assert fields["summary"] == "Login fails"
    assert fields["priority"] == {"name": "High"}
    assert fields["assignee"] == {"accountId": "acc-1"}
    assert fields["description"]["type"] == "doc"


def test_empty_description_and_no_assignee_are_left_out() -> None:
    fields = issue_fields(
        IssueRequest(project="OPS", issue_type="Task", summary="Rotate keys", description="  ")
    )
    assert set(fields) == {"project", "issuetype", "summary"}


@pytest.mark.parametrize(
    "url",
    ["http://jira.example.com", "ftp://jira.example.com", "jira.example.com", ""],
)
def test_a_token_is_never_sent_in_clear_or_to_a_non_url(url: str) -> None:
    with pytest.raises(JiraNotConfigured):
        JiraCredentials(base_url=url, email="bot@example.com", api_token="t")


def test_loopback_http_is_allowed_for_the_sandbox_and_the_token_is_not_in_repr() -> None:
    credentials = JiraCredentials(
        base_url="http://127.0.0.1:8080", email="bot@example.com", api_token="s3cret"
    )
    assert "s3cret" not in repr(credentials)


@given(st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=300))
def test_adf_keeps_every_non_blank_line_in_order_and_never_emits_empty_text(text: str) -> None:
    doc = adf_document(text)

    texts = [node["text"] for p in doc["content"] for node in p["content"] if node["type"] == "text"]
    expected = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n") if line.rstrip()]
    assert texts == expected
    assert all(p["content"] for p in doc["content"])
    assert all(node["text"] for p in doc["content"] for node in p["content"] if node["type"] == "text")
