"""scigame: science cards compiled into paired original/counterfactual
discovery games for LLM agents.

    card = scigame.load_card("cards/historical/gravitation.sci")
    card.simulate("original", {"m1": 10.0, "m2": 20.0, "r": 2.0})
    card.score(predictor, "counterfactual")

Everything a script or a player needs is a name of this package (see
`__all__` and docs/runtime.md): cards and the checker, predictors and
scores, the records a player exchanges, players, the runner, the store and
the summaries. Each name is imported when first used, so `import scigame`
stays cheap (no numpy, numba or sympy until a name needs them).
"""

from importlib import import_module

from . import blas_threads  # noqa: F401  (first: one BLAS thread, so that runs repeat bit for bit)

#: Each public name and the module that defines it.
_EXPORTS = {
    # cards: check, load, simulate, score
    "check_file": "scigame.compiler", "check_source": "scigame.compiler", "render": "scigame.compiler",
    "load_card": "scigame.card", "CompiledCard": "scigame.card", "CardError": "scigame.card",
    "Rejection": "scigame.oracle",
    # predictors and their scores
    "PredictorInvalid": "scigame.predictor", "validate_predictor": "scigame.predictor",
    "evaluate_predictor": "scigame.predictor", "Score": "scigame.scoring",
    # what a player sees and answers
    "Player": "scigame.players.base", "EpisodeState": "scigame.players.base",
    "PlayerFault": "scigame.players.base", "PlayerGaveUp": "scigame.players.base",
    "make_player": "scigame.players",
    "Action": "scigame.records", "Hypothesis": "scigame.records", "Experiment": "scigame.records",
    "Submission": "scigame.records", "Observation": "scigame.records", "Usage": "scigame.records",
    # runs and their records
    "EvalConfig": "scigame.runner", "RunReport": "scigame.runner", "run_eval": "scigame.runner",
    "Episode": "scigame.records", "EpisodeKey": "scigame.records", "Outcome": "scigame.records",
    "load_episode": "scigame.records", "Store": "scigame.store",
    "summarize": "scigame.summary", "summarize_run": "scigame.summary",
}

__all__ = ["__version__", *_EXPORTS]


def _version() -> str:
    # importlib.metadata costs 50-100 ms: paid only when the version is asked for
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("scigame")
    except PackageNotFoundError:  # running from a source tree without an install
        return "0.0.0+source"


def __getattr__(name: str):
    # lazy, so `scigame lint` does not pay for numba and the runtime
    if name == "__version__":
        globals()[name] = value = _version()
        return value
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'scigame' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS, "__version__"})
