"""A third party's credential kept in Secrets Manager: the Jira secret and the Entra app credential.

The template holds only the JSON's placeholders and a generated stand-in for the one secret field,
so no real value is ever in a template; the operator puts the real one in after deploy. The third
party issues and expires it, so Secrets Manager cannot rotate it: ``rotation`` says how to, for the
cdk-nag acknowledgement. With ``encryption_key`` (``customerManagedKey``) it is encrypted with the
stack's own key, else with the AWS-managed Secrets Manager key.
"""

from __future__ import annotations

import json

from aws_cdk import aws_kms as kms
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from infra.nag import acknowledge


def credential_secret(
    scope: Construct,
    construct_id: str,
    *,
    description: str,
    placeholder: dict[str, str],
    generated_key: str,
    rotation: str,
    encryption_key: kms.IKey | None = None,
) -> secretsmanager.Secret:
    """A secret ``placeholder`` plus ``generated_key`` (32 letters and digits), its rotation acknowledged."""
    secret = secretsmanager.Secret(
        scope,
        construct_id,
        description=description,
        encryption_key=encryption_key,
        generate_secret_string=secretsmanager.SecretStringGenerator(
            secret_string_template=json.dumps(placeholder),
            generate_string_key=generated_key,
            exclude_punctuation=True,
            password_length=32,
        ),
    )
    acknowledge(secret, rotation, "AwsSolutions-SMG4")
    return secret
