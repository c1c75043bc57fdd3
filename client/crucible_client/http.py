"""The HTTP core: one session, the token, the API's error shape raised as ``ApiError``."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import requests

from crucible_client.schema_types import ApiError as ApiErrorBody

API = "/api/v1"
# Statuses a GET may be sent again after: the server restarting, or asking us to slow down.
RETRIED_STATUSES = {429, 502, 503, 504}
PAGE_SIZE = 100


class ApiError(Exception):
    """The API refused a request; ``errors`` is its ``{"errors": [...]}`` body as sent, each
    with ``field``, ``code`` and ``message``. ``status`` is None when nothing answered."""

    def __init__(self, status: int | None, errors: list[ApiErrorBody], message: str) -> None:
        super().__init__(message)
        self.status = status
        self.errors = errors

    @property
    def codes(self) -> list[str]:
        return [error.get("code", "") for error in self.errors]


class Unreachable(ApiError):
    """Nothing answered at the platform's address (refused, reset, timed out)."""


class Http:
    def __init__(
        self, url: str, token: str | None = None, *, timeout_s: float = 30.0, retries: int = 3
    ) -> None:
        self.url = url.rstrip("/")
        self.timeout_s = timeout_s
        self.retries = retries
        self.session = requests.Session()
        self.session.headers["Accept"] = "application/json"
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"

    @property
    def token(self) -> str | None:
        header = self.session.headers.get("Authorization")
        return str(header).removeprefix("Bearer ") if header else None

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        data: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        stream: bool = False,
        timeout_s: float | None = None,
    ) -> requests.Response:
        """The response of a 2xx; ``ApiError`` otherwise. GETs are retried with backoff while
        the platform is unreachable or restarting; writes are sent once. ``timeout_s`` (else
        the client's) bounds the wait for an answer."""
        attempts = self.retries + 1 if method == "GET" else 1
        for attempt in range(attempts):
            try:
                response = self.session.request(
                    method, self.url + path, params=params, json=json, data=data,
                    headers=headers, stream=stream, timeout=timeout_s or self.timeout_s,
                )  # fmt: skip
            except requests.RequestException as error:
                if attempt + 1 == attempts:
                    raise Unreachable(
                        None, [], f"Crucible at {self.url} is unreachable: {error}"
                    ) from None
            else:
                if response.status_code < 400:
                    return response
                if response.status_code not in RETRIED_STATUSES or attempt + 1 == attempts:
                    raise error_of(response)
            time.sleep(min(0.5 * 2**attempt, 8.0))
        raise AssertionError("unreachable")  # the loop returns or raises

    def json(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.request(method, path, **kwargs)
        return response.json() if response.content else None

    def get(self, path: str, **params: Any) -> Any:
        return self.json("GET", path, params=clean(params))

    def post(self, path: str, body: Any = None) -> Any:
        return self.json("POST", path, json=body)

    def pages(self, path: str, **params: Any) -> Iterator[Any]:
        """Every row of a paginated list, a page at a time (``page_size`` rows, default 100)."""
        params.setdefault("page_size", PAGE_SIZE)
        page = 1
        while True:
            answer = self.get(path, **params, page=page)
            if isinstance(answer, list):  # an unpaginated list
                yield from answer
                return
            yield from answer["results"]
            if not answer.get("next"):
                return
            page += 1

    def download(self, path: str, to: Path, **params: Any) -> Path:
        """Stream a file to ``to`` (a directory: the server's file name inside it)."""
        response = self.request("GET", path, params=clean(params), stream=True)
        if to.is_dir():
            disposition = response.headers.get("Content-Disposition", "")
            name = disposition.partition("filename=")[2].strip('"; ') or Path(path).name
            to = to / Path(name).name
        with open(to, "wb") as out:
            for chunk in response.iter_content(1 << 20):
                out.write(chunk)
        return to


def clean(params: Mapping[str, Any]) -> dict[str, Any]:
    """Query parameters without the ones left unset; lists joined with commas."""
    return {
        key: ",".join(map(str, value)) if isinstance(value, (list, tuple)) else value
        for key, value in params.items()
        if value is not None
    }


def error_of(response: requests.Response) -> ApiError:
    try:
        errors = response.json().get("errors", [])
    except (ValueError, AttributeError):
        errors = []
    if not isinstance(errors, list):
        errors = []
    reasons = "; ".join(
        f"{e.get('field')}: {e.get('message')}" if e.get("field") else str(e.get("message"))
        for e in errors
        if isinstance(e, dict)
    )
    method = response.request.method if response.request is not None else ""
    where = response.request.path_url if response.request is not None else ""
    return ApiError(
        response.status_code,
        errors,
        f"{method} {where} answered {response.status_code}: {reasons or response.reason}",
    )
