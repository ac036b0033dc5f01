"""The built-in baseline player: a classical scientist in miniature.

No network and no language model. It reads only the public task (with the
SI dimension vector and factor of every input and output, computed by the
compiler) and the observations, and

* in **Identification** weighs the members of the given family by their
  likelihood (identify.py);
* in **Discovery** reduces the inputs to dimensionless groups (dims.py),
  searches laws over the predictor language's operators in increasing
  complexity with fitted constants (search.py, fitting.py), and keeps the
  simplest law that predicts held-out points within the tolerance
  (select.py);
* in **Adaptive** runs controlled experiments (one input at a time,
  separability and symmetry), then measures where its leading hypotheses
  disagree most (design.py), and submits when its confidence reaches τ;
* explains its answer in words (explain.py).

Every act is deterministic for a given state.
"""

from .player import EVIDENCE_WINDOW, MISSES_TO_GIVE_UP, BaselinePlayer

__all__ = ["BaselinePlayer", "EVIDENCE_WINDOW", "MISSES_TO_GIVE_UP"]
