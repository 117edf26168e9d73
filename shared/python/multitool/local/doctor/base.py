"""The checks' common ground: one client per service, and every AWS error mapped to a finding in one place."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
    ReadTimeoutError,
)

from multitool.deployment import Runtime
from multitool.local.doctor.findings import (
    ACCESS_DENIED,
    THROTTLED,
    ClientFor,
    Finding,
    Status,
    Target,
    runtime_of_outputs,
)


class Checks:
    """The target, one client per service from ``client_for(service_name)``, and the error mapping."""

    def __init__(self, target: Target, client_for: ClientFor, *, now: datetime | None = None) -> None:
        self.target = target
        self._client_for = client_for
        self._clients: dict[str, Any] = {}
        self._now = now or datetime.now(UTC)

    def _client(self, service: str) -> Any:
        if service not in self._clients:
            self._clients[service] = self._client_for(service)
        return self._clients[service]

    def _runtime(self, outputs: Mapping[str, str] | None) -> Runtime:
        """The runtime given, else the deployed stack's (by its outputs), else the deploy context's."""
        if self.target.runtime is not None:
            return self.target.runtime
        return self.target.context_runtime if outputs is None else runtime_of_outputs(outputs)

    # -- errors, mapped in one place -------------------------------------------------------------

    def _ask(
        self,
        check: str,
        action: str,
        call: Callable[[], dict[str, Any]],
        known: Mapping[str, Finding | Callable[[ClientError], Finding] | None],
        *,
        unreachable: Finding | None = None,
    ) -> Any:
        """``call()``'s answer, or the Finding its error means: ``known`` by error code first (None
        for an error that means "absent"), then access denied, throttling and no endpoint."""
        try:
            return call()
        except ClientError as error:
            code = error_code(error)
            if code in known:
                meaning = known[code]
                return meaning(error) if callable(meaning) else meaning
            if code in ACCESS_DENIED:
                return Finding(
                    check,
                    Status.WARN,
                    f"not checked: the caller may not call {action}.",
                    f"allow {action} for your role, or run `multitool doctor` as an administrator.",
                )
            if code in THROTTLED:
                return Finding(
                    check,
                    Status.WARN,
                    f"not checked: {action} was throttled.",
                    "run `multitool doctor` again in a minute.",
                )
            return self._unexpected(check, action, error)
        except NoCredentialsError:
            raise  # the caller check's own answer; later checks never get here without credentials
        except (EndpointConnectionError, ConnectTimeoutError, ReadTimeoutError) as error:
            if unreachable is not None and isinstance(error, EndpointConnectionError):
                return unreachable
            return self._unreachable(check, action.partition(":")[0], error)
        except BotoCoreError as error:
            return self._unreachable(check, action.partition(":")[0], error)

    def _unexpected(self, check: str, action: str, error: ClientError) -> Finding:
        return Finding(
            check,
            Status.FAIL,
            f"{action} answered {error_code(error)}: {error_message(error)}",
            "read the message above; run `multitool doctor` again once it is resolved.",
        )

    def _unreachable(self, check: str, service: str, error: BotoCoreError) -> Finding:
        return Finding(
            check,
            Status.WARN,
            f"not checked: {service} in {self.target.region} could not be reached ({type(error).__name__}).",
            "check the network and the region name, then run `multitool doctor` again.",
        )


def error_code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", "Unknown"))


def error_message(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Message", "")).rstrip(".") or "no message"


def day_of(value: Any) -> str:
    return value.date().isoformat() if isinstance(value, datetime) else str(value)
