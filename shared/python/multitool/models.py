"""The Bedrock model the system calls by default, and what a request to each model family may hold.

The Converse runtime (:mod:`multitool.runtimes.converse`), the harness configuration
(``infra/components/harness.py``) and the deploy context (``infra/context.py``) all read the model
and its request rules from here, so a new default or a new family's rule changes one file.

What AWS documents, and where:

- The default, Claude Sonnet 5.5, called through its ``global.`` cross-Region inference profile:
  a global profile can be called from every commercial Region and routes to any of them
  ("Global cross-Region inference",
  https://docs.aws.amazon.com/bedrock/latest/userguide/global-cross-region-inference.html), so the
  default deploys in every commercial Region that has the AgentCore harness, where a ``us.`` profile
  deploys only in US Regions.
- Lifecycle: Bedrock's own dates apply, not the provider's ("Model lifecycle",
  https://docs.aws.amazon.com/bedrock/latest/userguide/model-lifecycle.html); a Legacy model cannot
  be used by an account that has not used it in the last 30 days, and an EOL model not at all. The
  Claude Opus 5.5 card lists launch 2026-09-22, EOL not sooner than 2027-09-22, status Active
  (https://docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude-opus-5-5.html).
- Thinking: the Claude Opus/Sonnet 5 models think unless a request turns it off, and this system
  never does. The Claude Opus 5.5 card: "adaptive thinking is always on and cannot be disabled;
  effort level is configurable"; Claude Sonnet 5 thinks adaptively even when a request omits the
  thinking field, and only ``thinking: {type: disabled}`` turns it off (the user guide's document
  history, 2026-08-24, https://docs.aws.amazon.com/bedrock/latest/userguide/bedrock-ug-doc-history.html);
  the adaptive thinking page lists the Claude 5 models
  (https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-adaptive-thinking.html).
  Thinking is not compatible with temperature, top_p or top_k changes nor with forced tool use
  (https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html).
  So a request to such a model sends no temperature and lets the model choose its tools
  (``toolChoice: auto``); a model that thinks only when asked keeps ``temperature: 0``. Thinking
  tokens count against the call's ``maxTokens``, so such a model gets a larger default budget: room
  for its thinking besides the turn's calls (a budget is a cap; only the tokens written are billed).
- Prompt caching ("Prompt caching for faster model inference",
  https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html): a Converse request marks
  the end of a prefix to cache with a ``cachePoint`` block (``{"type": "default"}``) in ``system``,
  ``messages`` or ``toolConfig.tools``; the Claude models accept checkpoints in all three fields, the
  Amazon Nova models in ``system`` and ``messages`` only; up to 4 checkpoints a request; a checkpoint
  counts only once the prefix before it reaches the model's minimum (1,024 tokens for Claude 3.7
  Sonnet, 2,048 for Claude 3.5 Haiku; a shorter prefix is not cached and the call still succeeds).
  The cached prefix must be byte-identical from call to call: any change is a cache miss. The usage
  of a response says what was read from and written to the cache (``cacheReadInputTokens``,
  ``cacheWriteInputTokens``).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

# The inference profiles' geography prefixes, read here as before (one definition: multitool.deployment).
from multitool.deployment import PROFILE_PREFIXES as PROFILE_PREFIXES

DEFAULT_MODEL_ID = "global.anthropic.claude-sonnet-5-5"


class ModelFamily(msgspec.Struct, frozen=True):
    """What a request to the family's models may carry."""

    name: str
    pattern: re.Pattern[str]  # matched against the foundation-model id (no profile prefix)
    thinks_by_default: bool  # thinks unless told not to (never, here): no sampling changes, no forced tools
    source: str  # the AWS page the rule comes from


FAMILIES: tuple[ModelFamily, ...] = (
    ModelFamily(
        "Claude Opus and Sonnet 5 and later",
        re.compile(r"^anthropic\.claude-(opus|sonnet)-([5-9]|[1-9]\d)(?!\d)"),
        thinks_by_default=True,
        source="https://docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude-opus-5-5.html",
    ),
)
# Any other model (Claude Sonnet 4.x, Haiku, Nova, ...) thinks only when asked to: the request may fix
# the temperature, and this system never asks it to think.
THINKING_ON_REQUEST = ModelFamily(
    "models that think only when asked",
    re.compile(r".*"),
    thinks_by_default=False,
    source="https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html",
)


class PromptCache(msgspec.Struct, frozen=True):
    """Where a family's Converse requests may place ``cachePoint`` blocks (the prompt-caching page)."""

    name: str
    pattern: re.Pattern[str]  # matched against the foundation-model id (no profile prefix)
    tools: bool  # a checkpoint after the tool specs; the system prompt and messages take one always


PROMPT_CACHES: tuple[PromptCache, ...] = (
    PromptCache("Anthropic Claude", re.compile(r"^anthropic\.claude-"), tools=True),
    PromptCache("Amazon Nova", re.compile(r"^amazon\.nova-"), tools=False),
)
PROMPT_CACHING_SOURCE = "https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html"
# The only cache point shape Converse takes (botocore's CachePointBlock: type "default", ttl optional;
# without a ttl the model's default TTL applies, 5 minutes for most models).
CACHE_POINT: dict[str, Any] = {"cachePoint": {"type": "default"}}


def foundation_model_id(model_id: str) -> str:
    """The model an id names: ``global.anthropic.claude-sonnet-5-5`` -> ``anthropic.claude-sonnet-5-5``."""
    prefix, _, rest = model_id.partition(".")
    return rest if prefix in PROFILE_PREFIXES and "." in rest else model_id


def model_family(model_id: str) -> ModelFamily:
    """The family of a model id or inference profile id (its rules); unknown models are the older kind."""
    model = foundation_model_id(model_id)
    return next((family for family in FAMILIES if family.pattern.match(model)), THINKING_ON_REQUEST)


def prompt_cache(model_id: str | None) -> PromptCache | None:
    """Where the model caches a prompt prefix, or None for a model with no explicit prompt caching."""
    if not model_id:
        return None
    model = foundation_model_id(model_id)
    return next((cache for cache in PROMPT_CACHES if cache.pattern.match(model)), None)


# Room for a full-length email body (~2,500 tokens) besides the turn's other calls: every Converse model
# with tool use allows at least this much output.
ANSWER_TOKENS = 4096
# The same room and the model's thinking before and between its calls (the Claude 5 models write up to
# 128K tokens, per the Claude Opus 5.5 card).
THINKING_ANSWER_TOKENS = 16384


def default_max_tokens(model_id: str | None) -> int:
    """The per-call output budget for a model when none is configured."""
    if model_id and model_family(model_id).thinks_by_default:
        return THINKING_ANSWER_TOKENS
    return ANSWER_TOKENS


def converse_inference_config(model_id: str, max_tokens: int) -> dict[str, Any]:
    """Converse's ``inferenceConfig`` for the model: a fixed temperature only where it is accepted."""
    config: dict[str, Any] = {"maxTokens": max_tokens}
    if not model_family(model_id).thinks_by_default:
        config["temperature"] = 0
    return config


def harness_temperature(model_id: str) -> float | None:
    """The harness model configuration's temperature, or None to leave the model's default."""
    return None if model_family(model_id).thinks_by_default else 0


# The AWS Marketplace product of a model, as its Bedrock model card lists it ("Marketplace product
# ID"): the first call of a Marketplace model subscribes the account, and the calling principal may
# hold aws-marketplace:Subscribe for exactly that product (aws-marketplace:ProductId; "Request
# access to models", https://docs.aws.amazon.com/bedrock/latest/userguide/model-access.html). Only
# products read from a card are listed; for any other model the deploy takes -c marketplaceProductId.
MARKETPLACE_PRODUCT_IDS: dict[str, str] = {
    # https://docs.aws.amazon.com/bedrock/latest/userguide/model-card-anthropic-claude-opus-5-5.html
    "anthropic.claude-opus-5-5": "prod-e5xo6z26ie45g",
}


def marketplace_product_id(model_id: str) -> str | None:
    """The model's Marketplace product id where its model card names it, else None."""
    return MARKETPLACE_PRODUCT_IDS.get(foundation_model_id(model_id))


# Every model lets the model choose (``auto``); a forced choice (``any`` or a named tool) is refused by
# the models that think by default, and nothing here needs one.
TOOL_CHOICE: dict[str, Any] = {"auto": {}}
