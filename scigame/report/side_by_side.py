"""The `collections` table: the Historical and the Temporal collection side
by side in every cell of the other axes (finished episodes, strict ESR, weak
ESR and mean PS, with 95% intervals where the rows carry them), as the
paper's Table 2 shows them. `scigame report` builds it from the pooled runs,
`scigame eval` from its run's summary; the pivot is
`scigame.summary.by_collection`."""

from __future__ import annotations

from ..summary import COLLECTIONS, CONTROLS, GROUP, SIDE_BY_SIDE, by_collection
from .tables import Column, Table, _axis_columns, _cells

_LABELS = {"finished": ("n", "int"), "strict_esr": ("strict ESR", "rate"), "weak_esr": ("weak ESR", "rate"),
           "mean_ps": ("mean PS", "mean")}


def side_by_side(rows: list[dict], group: tuple[str, ...] = GROUP) -> Table:
    """The table of summary rows grouped by `group` (which includes `collection`)."""
    # the controls only where some cell sets them to other than their default
    rest = tuple(a for a in group if a != "collection"
                 and (a not in CONTROLS or any(r.get(a, CONTROLS[a]) != CONTROLS[a] for r in rows)))
    pivoted = sorted(by_collection(rows, SIDE_BY_SIDE, group), key=lambda r: tuple(str(r[a]) for a in rest))
    cols = _axis_columns(rest) + [Column(f"{c}_{k}", f"{c.capitalize()} {_LABELS[k][0]}", _LABELS[k][1])
                                  for c in COLLECTIONS for k in SIDE_BY_SIDE]
    return Table("collections", "Historical and Temporal side by side", cols, pivoted)


def collections_table(runs) -> Table:
    return side_by_side(_cells(runs, runs.axes), runs.axes)
