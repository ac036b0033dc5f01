"""scigame: science cards compiled into paired original/counterfactual
discovery games for LLM agents."""

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("scigame")
except PackageNotFoundError:  # running from a source tree without an install
    __version__ = "0.0.0+source"

__all__ = ["__version__"]
