"""CDK entry point (`cdk synth`, `cdk deploy`): validate context, build the stack, run cdk-nag."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# `python3 infra/app.py` from the repository root: make `infra` and the layer's `multitool` importable.
_ROOT = Path(__file__).resolve().parent.parent
for _path in (_ROOT, _ROOT / "shared" / "python"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import aws_cdk as cdk  # noqa: E402
from cdk_nag import AwsSolutionsChecks  # noqa: E402

from infra.context import CONTEXT_KEYS, ContextError, DeployContext  # noqa: E402
from infra.regions import check_region_offers  # noqa: E402
from infra.stack import MultitoolStack  # noqa: E402


def build_app(
    app: cdk.App | None = None, env: cdk.Environment | None = None
) -> tuple[cdk.App, MultitoolStack]:
    """The app with its one stack and cdk-nag's AwsSolutions checks; raises ContextError on bad context."""
    app = app or cdk.App()
    settings = DeployContext.from_context({key: app.node.try_get_context(key) for key in CONTEXT_KEYS})
    if env is None:
        account, region = os.environ.get("CDK_DEFAULT_ACCOUNT"), os.environ.get("CDK_DEFAULT_REGION")
        env = cdk.Environment(account=account, region=region) if account and region else None
    # The deploy region decides which inference profiles exist: the stack's, else the CLI's default.
    region = (env.region if env is not None else None) or os.environ.get("CDK_DEFAULT_REGION") or None
    settings.check_model_region(region)
    check_region_offers(settings, region)
    # The stack's name is its construct id: every physical name is generated from it (stackName).
    stack = MultitoolStack(app, settings.stack_name, settings=settings, env=env)
    if region is None and settings.model.is_inference_profile:
        cdk.Annotations.of(stack).add_warning_v2(
            "multitool:profile-region-unchecked",
            f"No deploy region is known (env-agnostic synth): the {settings.model.profile_geo}. inference "
            f"profile {settings.model_id} can only be checked against a region; set CDK_DEFAULT_REGION "
            "or run `cdk deploy` with a region configured.",
        )
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app, stack


def main() -> int:
    try:
        app, _ = build_app()
    except ContextError as error:
        print(error, file=sys.stderr)
        return 1
    app.synth()
    return 0


if __name__ == "__main__":
    sys.exit(main())
