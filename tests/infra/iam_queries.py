"""Read a synthesized template's IAM: which statements reach which role."""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk

from tests.infra.synth import Synthesized


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def role_of_function(synth: Synthesized, function_id: str) -> str:
    role = synth.props(function_id)["Role"]
    logical_id: str = role["Fn::GetAtt"][0]
    return logical_id


def statements_for_role(synth: Synthesized, role_id: str) -> list[dict[str, Any]]:
    """Every Allow statement of the role: inline policies and attached AWS::IAM::Policy resources."""
    statements: list[dict[str, Any]] = []
    role = synth.props(role_id)
    assert not role.get("ManagedPolicyArns"), f"{role_id} has managed policies: {role['ManagedPolicyArns']}"
    for policy in role.get("Policies", []):
        statements += policy["PolicyDocument"]["Statement"]
    for policy in synth.of_type("AWS::IAM::Policy").values():
        if {"Ref": role_id} in policy["Properties"]["Roles"]:
            statements += policy["Properties"]["PolicyDocument"]["Statement"]
    return statements


def actions_for_role(synth: Synthesized, role_id: str) -> set[str]:
    return {action for s in statements_for_role(synth, role_id) for action in as_list(s["Action"])}


def resources_for_action(synth: Synthesized, role_id: str, action: str) -> list[Any]:
    found: list[Any] = []
    for statement in statements_for_role(synth, role_id):
        if action in as_list(statement["Action"]):
            found += as_list(statement["Resource"])
    return found


def function_id(synth: Synthesized, construct_id: str) -> str:
    """Logical id of the Lambda function of a MultitoolFunction construct at the stack's top level."""
    function = synth.stack.node.find_child(construct_id).node.find_child("Function")
    element = function.node.default_child
    assert isinstance(element, cdk.CfnElement)
    return synth.stack.get_logical_id(element)


def dynamodb_actions_by_table(synth: Synthesized, role_id: str) -> dict[str, set[str]]:
    """{table logical id: the dynamodb: actions the role has on it} (index ARNs count as their table)."""
    found: dict[str, set[str]] = {}
    for statement in statements_for_role(synth, role_id):
        actions = {a for a in as_list(statement["Action"]) if a.startswith("dynamodb:")}
        if not actions:
            continue
        for resource in as_list(statement["Resource"]):
            if isinstance(resource, dict) and "Fn::GetAtt" in resource:
                table = resource["Fn::GetAtt"][0]
            elif isinstance(resource, dict) and "Fn::Join" in resource:
                table = next(p["Fn::GetAtt"][0] for p in resource["Fn::Join"][1] if isinstance(p, dict))
            else:
                table = str(resource)
            found.setdefault(table, set()).update(actions)
    return found


# Construct ids of aws-cdk-lib's stack-level singleton providers: BucketDeployment's, LogRetention's and
# AwsCustomResource's (infra.components.harness.AWS_CUSTOM_RESOURCE_PROVIDER).
CDK_PROVIDERS = ("Custom::CDKBucketDeployment", "LogRetention", "AWS679f53fac002430cb0da5b7982bd2287")


def project_functions(synth: Synthesized) -> dict[str, dict[str, Any]]:
    """The stack's own Lambda functions: all but aws-cdk-lib's deploy-time providers (the handler that
    publishes the page, the harness log group's retention and, with customerManagedKey, its key)."""
    stack = synth.stack
    cdk_handlers = {
        stack.get_logical_id(child.node.default_child)
        for child in stack.node.children
        if child.node.id.startswith(CDK_PROVIDERS) and isinstance(child.node.default_child, cdk.CfnElement)
    }
    return {k: v for k, v in synth.of_type("AWS::Lambda::Function").items() if k not in cdk_handlers}
