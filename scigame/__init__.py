"""scigame: science cards compiled into paired original/counterfactual
discovery games for LLM agents.

    card = scigame.load_card("cards/historical/gravitation.sci")
    card.simulate("original", {"m1": 10.0, "m2": 20.0, "r": 2.0})
    card.score(predictor, "counterfactual")
"""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("scigame")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0+source"

__all__ = ["__version__", "load_card", "CompiledCard", "CardError", "Rejection"]


def __getattr__(name: str):
    # lazy, so `scigame lint` does not pay for numba and the runtime
    if name in ("load_card", "CompiledCard", "CardError"):
        from . import card
        return getattr(card, name)
    if name == "Rejection":
        from .oracle import Rejection
        return Rejection
    raise AttributeError(f"module 'scigame' has no attribute {name!r}")
