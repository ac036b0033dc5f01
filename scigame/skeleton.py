"""`scigame new NAME`: a commented card skeleton that lints.

The skeleton is a complete, working card (a power law `y = k * x^p` with a
changed exponent as its counterfactual) whose texts say `TODO`, so lint
passes with W303 warnings that list what the author still has to write;
the comments explain each statement. It is laid out as `scigame fmt` lays
cards out.
"""

from __future__ import annotations

import re

NAME = re.compile(r"^[a-z_][a-z0-9_]*$")

_TEMPLATE = '''# TODO: one line on the relation this card describes.
# Write the card, then run `scigame lint {name}.sci` until it shows no warning
# and `scigame fmt {name}.sci` to lay it out; docs/adding-a-card.md explains each step.
card {name} "TODO: a short title" {{
  # Where the card belongs (historical or temporal), its field, and where the law is published.
  collection {collection}
  field      physics
  source     "TODO: authors, journal, volume, page (year)"
{temporal}
  # What both worlds' players read: the apparatus and what is measured, never the law.
  background """
    TODO: describe the set-up: what the experimenter can set, and what is read.
  """
  conditions "TODO: where the relation holds (remove this line if nothing needs saying)"

  # The controllable inputs (unit, domain) and the observables (resolution, tolerance).
  input  x [m] in 0.1 .. 10  "TODO: what x is"
  output y [N] resolution 0.001 tolerance abs 0.005 rel 1%  "TODO: what y is"

  # Constants of the law, hidden from the player.
  param k = 2 [N/m]  "TODO: what k is"
  param p = 1        "exponent of x"

  # One law per output; the exponent is written so that the units balance for any p.
  law y = k * x^p / 1 [m]^(p - 1)

  # The counterfactual world: one deliberate, dimensionally sound change of the law.
  counterfactual "TODO: say what changes, e.g. exponent change: y grows with the square of x" {{
    set p = 2
  }}

  # Protocol settings (these are the usual ones).
  fixed design 4 sobol seed 1
  evaluation 256 seed 7
  identification interpolate no
  adaptive threshold 0.9 max_steps 64
}}
'''

_TEMPORAL = '''  doi        "TODO: the DOI or arXiv id, copied from the source"
  # Temporal cards also need `published YYYY-MM-DD` and `preprint YYYY-MM-DD` (lint warns until they are there).
'''


def skeleton(name: str, collection: str = "historical") -> str:
    """The skeleton text of a card called `name` (lower_snake_case)."""
    if not NAME.match(name):
        raise ValueError(f"{name!r} is not a card name: use lower_snake_case letters, digits and _")
    return _TEMPLATE.format(name=name, collection=collection,
                            temporal=_TEMPORAL if collection == "temporal" else "")
