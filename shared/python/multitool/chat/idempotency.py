"""Powertools idempotency for the chat API: a retry answers the first response, never a second turn.

Powertools' idempotency utility (its persistence layer, config and exceptions: about 3 ms of a cold
start on Python 3.13) is imported by the first request that carries an ``Idempotency-Key``; a
request without one never needs it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

from multitool.errors import RETRY_AFTER, ServiceError
from multitool.observability import logger, metrics
from multitool.ports.tables import OWNER_ATTRIBUTE

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer, IdempotencyConfig
    from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import DataRecord
    from aws_lambda_powertools.utilities.typing import LambdaContext
    from mypy_boto3_dynamodb import DynamoDBClient

DEFAULT_IDEMPOTENCY_SECONDS = 3600
IN_PROGRESS_RETRY_AFTER_SECONDS = 2
_OWNER: ContextVar[str | None] = ContextVar("multitool_idempotency_owner", default=None)


class IdempotencyKeyReused(ServiceError):
    """The caller's Idempotency-Key was already used with a different body (HTTP 422)."""

    code = "idempotency_key_reused"
    status = HTTPStatus.UNPROCESSABLE_ENTITY


class RequestInProgress(ServiceError):
    """The first request with this Idempotency-Key is still running (HTTP 409 + Retry-After)."""

    code = "request_in_progress"
    status = HTTPStatus.CONFLICT

    def __init__(self, message: str, retry_after: int = IN_PROGRESS_RETRY_AFTER_SECONDS) -> None:
        super().__init__(message)
        self.retry_after = retry_after

    def headers(self) -> dict[str, str]:
        return {RETRY_AFTER: str(max(1, self.retry_after))}


class IdempotencyUnavailable(ServiceError):
    """The idempotency store could not be read or written: retry as is (HTTP 503)."""

    code = "idempotency_unavailable"
    status = HTTPStatus.SERVICE_UNAVAILABLE

    def public_message(self) -> str:
        return f"{self} Retry in a few seconds with the same Idempotency-Key."

    def headers(self) -> dict[str, str]:
        return {RETRY_AFTER: str(IN_PROGRESS_RETRY_AFTER_SECONDS)}


def _replayed(response: Any, idempotent_data: DataRecord) -> Any:
    """Powertools' hook for a response served from the store: counted, the turn not run again."""
    metrics.add_metric(name="ChatReplays", unit="Count", value=1)
    logger.info("Chat response replayed for a repeated Idempotency-Key")
    return response


class OwnedRecords:
    """The DynamoDB client Powertools writes its records through, adding the requester's ``sub`` as
    ``owner`` to each record it puts or updates: a record holds the reply a retry replays, and the
    owner index (:data:`multitool.ports.tables.OWNER_INDEX`) is how ``multitool erase`` finds a
    user's records (their key is a hash of the user id and the Idempotency-Key, which the erase
    cannot know). Powertools' update is one ``SET`` list (``persistence/dynamodb.py``), so the
    owner is one more assignment in the same write; every other call goes to the client as is."""

    def __init__(self, client: DynamoDBClient) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def put_item(self, **request: Any) -> Any:
        owner = _OWNER.get()
        if owner is not None:
            request["Item"] = {**request["Item"], OWNER_ATTRIBUTE: {"S": owner}}
        return self._client.put_item(**request)

    def update_item(self, **request: Any) -> Any:
        owner = _OWNER.get()
        if owner is not None:
            request["UpdateExpression"] = f"{request['UpdateExpression']}, #mtOwner = :mtOwner"
            request["ExpressionAttributeNames"] = {
                **request.get("ExpressionAttributeNames", {}),
                "#mtOwner": OWNER_ATTRIBUTE,
            }
            request["ExpressionAttributeValues"] = {
                **request.get("ExpressionAttributeValues", {}),
                ":mtOwner": {"S": owner},
            }
        return self._client.update_item(**request)


@contextmanager
def _owned_by(user_id: str | None) -> Iterator[None]:
    token = _OWNER.set(user_id)
    try:
        yield
    finally:
        _OWNER.reset(token)


class ChatIdempotency:
    """Powertools idempotency over the idempotency table (Powertools' default attribute names).

    The record key is the user id and the Idempotency-Key; the body hash is the
    payload Powertools validates, so the same key with another body is refused
    instead of silently answering a different question.
    """

    def __init__(
        self,
        table_name: str,
        client: DynamoDBClient,
        *,
        expires_after_seconds: int = DEFAULT_IDEMPOTENCY_SECONDS,
    ) -> None:
        self.table_name = table_name
        self.client = client
        self.expires_after_seconds = expires_after_seconds

    @functools.cached_property
    def persistence(self) -> DynamoDBPersistenceLayer:
        from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

        layer = DynamoDBPersistenceLayer(table_name=self.table_name, boto3_client=self.client)
        layer.client = OwnedRecords(self.client)  # type: ignore[assignment]
        return layer

    @functools.cached_property
    def config(self) -> IdempotencyConfig:
        from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig

        return IdempotencyConfig(
            event_key_jmespath="[userId, idempotencyKey]",
            payload_validation_jmespath="bodyHash",
            raise_on_no_idempotency_key=True,
            expires_after_seconds=self.expires_after_seconds,
            hash_function="sha256",
            response_hook=_replayed,
        )

    def wrap(self, function: Callable[..., str]) -> Callable[..., str]:
        """``function`` made idempotent on its ``request_key`` keyword argument; its text result is
        stored. Powertools wraps it at its first call (see the module)."""

        @functools.cache
        def idempotent() -> Callable[..., str]:
            from aws_lambda_powertools.utilities.idempotency import idempotent_function

            wrapped: Callable[..., str] = idempotent_function(
                function,
                data_keyword_argument="request_key",
                persistence_store=self.persistence,
                config=self.config,
            )
            return wrapped

        @functools.wraps(function)
        def once(*args: Any, **kwargs: Any) -> str:
            return idempotent()(*args, **kwargs)

        return once

    def call(self, wrapped: Callable[..., str], *args: Any, request_key: dict[str, str]) -> str:
        """``wrapped(*args, request_key=...)`` (made by :meth:`wrap`), the store's refusals as typed errors.

        Raises :class:`IdempotencyKeyReused`, :class:`RequestInProgress` and :class:`IdempotencyUnavailable`.
        """
        from aws_lambda_powertools.utilities.idempotency.exceptions import (
            IdempotencyAlreadyInProgressError,
            IdempotencyInconsistentStateError,
            IdempotencyPersistenceLayerError,
            IdempotencyValidationError,
        )

        try:
            with _owned_by(request_key.get("userId")):
                return wrapped(*args, request_key=request_key)
        except IdempotencyValidationError:
            raise IdempotencyKeyReused(
                "This Idempotency-Key was already used with a different request body. "
                "Use a new key for a new request."
            ) from None
        except IdempotencyAlreadyInProgressError:
            raise RequestInProgress(
                "A request with this Idempotency-Key is still in progress. Retry shortly."
            ) from None
        except (IdempotencyPersistenceLayerError, IdempotencyInconsistentStateError) as error:
            logger.warning("Idempotency store failed", extra={"error_type": type(error).__name__})
            raise IdempotencyUnavailable("Requests cannot be deduplicated right now.") from None

    def register_lambda_context(self, context: LambdaContext | None) -> None:
        """Bound an in-progress record by the invocation's remaining time (a crashed turn frees its key)."""
        if context is not None:
            self.config.register_lambda_context(context)
