"""One chat call to an OpenAI-compatible endpoint, robust enough for a
10,000-episode campaign.

- Infrastructure faults (connection errors, timeouts, 429, 5xx, a body
  that is not a chat completion) are retried with exponential backoff and
  jitter, honouring Retry-After; they never count against the model. A
  fault that outlasts the retries raises `PlayerFault`: the episode is left
  unfinished and a resume plays it again.
- Authentication and permission errors raise `AuthFailure`: the run stops.
- Structured outputs (a JSON Schema) are asked for where the endpoint
  supports them; an endpoint that rejects `response_format` is asked again
  without it (the caller then extracts and validates JSON itself).
- Tokens (input, cached, output, reasoning) are counted per call and priced
  from the model registry.
"""

from __future__ import annotations

import asyncio
import os
import random
from dataclasses import dataclass
from typing import Any, Optional

import openai

from ..players.base import PlayerFault
from ..records import Usage
from .registry import Registry, load_registry


class AuthFailure(RuntimeError):
    """The endpoint refused our credentials: nothing else will work."""


@dataclass
class LLMConfig:
    """How to reach and call one model."""

    model: str
    base_url: Optional[str] = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 120.0
    max_retries: int = 6
    backoff_base: float = 1.0  # seconds; doubled per retry, with jitter
    backoff_max: float = 60.0
    temperature: Optional[float] = None
    max_tokens: Optional[int] = None
    reasoning_effort: Optional[str] = None
    structured: bool = True  # ask for JSON-Schema structured outputs

    def api_key(self) -> str:
        key = os.environ.get(self.api_key_env)
        if not key:
            raise AuthFailure(f"no API key: the environment variable {self.api_key_env} is not set "
                              "(choose another with --api-key-env)")
        return key


@dataclass
class Completion:
    text: str
    finish_reason: str
    usage: Usage


_RETRYABLE = (openai.APIConnectionError, openai.APITimeoutError, openai.RateLimitError,
              openai.InternalServerError, openai.APIResponseValidationError)


class ChatClient:
    """Chat completions with retries, timeouts and token accounting."""

    def __init__(self, config: LLMConfig, registry: Registry | None = None):
        self.config = config
        self.registry = registry or load_registry()
        self._client: Optional[openai.AsyncOpenAI] = None
        self._structured_ok = config.structured

    def _ensure(self) -> openai.AsyncOpenAI:
        if self._client is None:
            self._client = openai.AsyncOpenAI(api_key=self.config.api_key(), base_url=self.config.base_url,
                                              timeout=self.config.timeout, max_retries=0)
        return self._client

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    def _delay(self, attempt: int, exc: Exception) -> float:
        retry_after = None
        response = getattr(exc, "response", None)
        if response is not None:
            try:
                retry_after = float(response.headers.get("retry-after"))
            except (TypeError, ValueError):
                retry_after = None
        backoff = min(self.config.backoff_max, self.config.backoff_base * 2 ** attempt)
        delay = backoff * (0.5 + random.random() / 2)  # jitter: spread retries of concurrent episodes
        return max(delay, retry_after or 0.0)

    async def complete(self, messages: list[dict], schema: Optional[dict] = None,
                       schema_name: str = "action") -> Completion:
        """One completion; retries infrastructure faults (see module doc)."""
        client = self._ensure()
        cfg = self.config
        kwargs: dict[str, Any] = {"model": cfg.model, "messages": messages}
        if cfg.temperature is not None:
            kwargs["temperature"] = cfg.temperature
        if cfg.max_tokens is not None:
            kwargs["max_completion_tokens"] = cfg.max_tokens
        if cfg.reasoning_effort is not None:
            kwargs["reasoning_effort"] = cfg.reasoning_effort
        retries = 0
        attempt = 0
        while True:
            call = dict(kwargs)
            if schema is not None and self._structured_ok:
                call["response_format"] = {"type": "json_schema",
                                           "json_schema": {"name": schema_name, "schema": schema, "strict": False}}
            try:
                response = await client.chat.completions.create(**call)
                if not getattr(response, "choices", None):
                    raise _BadCompletion(f"the endpoint answered without a completion: {str(response)[:200]}")
            except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
                raise AuthFailure(f"{cfg.model} at {cfg.base_url or 'api.openai.com'}: {exc.message}") from None
            except openai.BadRequestError as exc:
                text = str(exc.message).lower()
                if "response_format" in call and self._structured_ok and any(
                        w in text for w in ("response_format", "json_schema", "schema", "structured")):
                    self._structured_ok = False  # this endpoint has no structured outputs: plain JSON
                    continue
                raise PlayerFault(f"the endpoint rejected the request: {exc.message}") from None
            except (*_RETRYABLE, _BadCompletion, ValueError) as exc:  # ValueError: a body that is not JSON
                if attempt >= cfg.max_retries:
                    raise PlayerFault(f"{type(exc).__name__} after {attempt + 1} attempts: {exc}") from None
                await asyncio.sleep(self._delay(attempt, exc))
                attempt += 1
                retries += 1
                continue
            except openai.APIStatusError as exc:  # other 4xx: not the model's fault, not retryable
                raise PlayerFault(f"HTTP {exc.status_code} from the endpoint: {exc.message}") from None
            return self._completion(response, retries)

    def _completion(self, response, retries: int) -> Completion:
        choice = response.choices[0]
        text = choice.message.content or ""
        u = response.usage
        usage = Usage(calls=1, retries=retries)
        if u is not None:
            cached = getattr(getattr(u, "prompt_tokens_details", None), "cached_tokens", None) or 0
            reasoning = getattr(getattr(u, "completion_tokens_details", None), "reasoning_tokens", None) or 0
            usage = Usage(calls=1, retries=retries, input_tokens=u.prompt_tokens or 0, cached_tokens=cached,
                          output_tokens=u.completion_tokens or 0, reasoning_tokens=reasoning)
        usage = usage.model_copy(update={"cost_usd": self.registry.cost(self.config.model, usage)})
        return Completion(text=text, finish_reason=choice.finish_reason or "", usage=usage)


async def gather_until_auth_failure(tasks: list["asyncio.Task"]) -> str:
    """Await every task; on the first AuthFailure cancel the rest (nothing
    else would work) and return its message, else return ""."""
    try:
        await asyncio.gather(*tasks)
    except AuthFailure as exc:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return str(exc)
    return ""


class _BadCompletion(Exception):
    """A 200 answer that holds no completion (a broken proxy, a bad gateway)."""
