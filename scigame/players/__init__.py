"""Players: `baseline` (built in), `replay:RUN_DIR`, and (with the LLM
issue) `openai:MODEL`. `make_player(spec)` turns a --player value into a
factory that creates one fresh player per episode."""

from __future__ import annotations

from .base import EpisodeState, Player, PlayerFactory, PlayerFault, PlayerGaveUp, PlayerSpecError

__all__ = ["EpisodeState", "Player", "PlayerFactory", "PlayerFault", "PlayerGaveUp",
           "make_player", "PlayerSpecError"]


def make_player(spec: str, **options) -> tuple[str, PlayerFactory]:
    """(stored player name, factory) for a --player value. `options` are
    LLMConfig fields for `openai:MODEL` (base_url, api_key_env, ...) plus
    `models` (a registry file), and `tools` ("none" or "python") with
    `tool_caps` (a scigame.llm.tools.ToolCaps) for the LLM and replay
    players. A factory may have `aclose()`, which the runner awaits at the
    end of a run. `--tools python` is refused (SandboxUnavailable) where no
    sandbox can be built, before any episode."""
    kind, _, arg = spec.partition(":")
    tools = _tool_caps(kind, options.pop("tools", None) or "none", options.pop("tool_caps", None))
    if kind == "openai":
        if not arg:
            raise PlayerSpecError("openai needs a model: --player openai:MODEL")
        from ..llm.client import ChatClient, LLMConfig
        from ..llm.player import OpenAIPlayer
        from ..llm.registry import load_registry
        models = options.pop("models", None)
        config = LLMConfig(model=arg, **{k: v for k, v in options.items() if v is not None})
        config.api_key()  # fail now, before any episode, if the key is missing
        client = ChatClient(config, load_registry(models))

        def factory() -> Player:
            return OpenAIPlayer(client, tools)

        factory.aclose = client.close  # type: ignore[attr-defined]
        factory.warnings = lambda: client.warnings  # type: ignore[attr-defined]
        factory.model = arg  # type: ignore[attr-defined]
        return f"openai:{arg}", factory
    if kind == "baseline" and not arg:
        from .baseline import BaselinePlayer
        return "baseline", BaselinePlayer
    if kind == "replay":
        if not arg:
            raise PlayerSpecError("replay needs a run folder: --player replay:RUN_DIR")
        from .replay import ReplayLibrary
        library = ReplayLibrary(arg, tools)
        return f"replay:{library.source_player}", library.factory
    raise PlayerSpecError(f"unknown player {spec!r}: use `baseline`, `openai:MODEL` or `replay:RUN_DIR`")


def _tool_caps(kind: str, mode: str, caps):
    """The ToolCaps of a player with `--tools MODE` (None for none), its sandbox checked."""
    if mode == "none":
        return None
    if mode != "python":
        raise PlayerSpecError(f"unknown tool mode {mode!r}: use none or python")
    if kind not in ("openai", "replay"):
        raise PlayerSpecError("--tools python needs a player that calls tools: openai:MODEL (or replay:RUN_DIR)")
    from ..llm.tools import ToolCaps
    from ..sandbox import SandboxUnavailable, sandbox_problem
    problem = sandbox_problem()
    if problem:
        raise SandboxUnavailable(problem)
    return caps if caps is not None else ToolCaps()
