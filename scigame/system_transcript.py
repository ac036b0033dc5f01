"""A system card's part of a transcript: how the system is written, and its
observations as trajectories (readings at one set of starting inputs, in
time order), so a reader follows each run of the system through time."""

from __future__ import annotations

from typing import Iterable


def _fmt(v) -> str:
    return f"{v:.6g}" if isinstance(v, (int, float)) else str(v)[:40]


def system_lines(task: dict) -> list[str]:
    """The system as the player was shown it (its law hidden)."""
    sysv = task.get("system")
    if not sysv:
        return []
    law = sysv["law"]
    lines = [f"System in time `{sysv['time']}`; the law {law['name']}("
             + ", ".join(a["name"] for a in law["arguments"]) + f") [{law['unit']}] is hidden."]
    for s in sysv["states"]:
        lines.append(f"  state {s['name']} [{s['unit']}] starts at {s['initial']}; d{s['name']}/dt = {s['rate']}")
    for let in sysv.get("lets", []):
        lines.append(f"  let {let['name']} = {let['text']}")
    return lines


def trajectories(task: dict, observations: Iterable) -> list[tuple[tuple, list]]:
    """Observations (objects with `.inputs` and `.outputs`) grouped by their
    inputs other than the time: (the starting inputs as sorted (name, value)
    pairs, the group's observations in time order), groups in order of first
    appearance. Empty for a card without a system."""
    sysv = task.get("system")
    if not sysv:
        return []
    time = sysv["time"]
    groups: dict[tuple, list] = {}
    for ob in observations:
        key = tuple(sorted((k, round(float(v), 12)) for k, v in ob.inputs.items() if k != time))
        groups.setdefault(key, []).append(ob)
    return [(key, sorted(obs, key=lambda o: float(o.inputs.get(time, 0.0)))) for key, obs in groups.items()]


def trajectory_lines(task: dict, observations: Iterable) -> list[str]:
    """The trajectories as text lines, one a group."""
    lines = []
    for key, obs in trajectories(task, observations):
        time = task["system"]["time"]
        start = ", ".join(f"{k}={_fmt(v)}" for k, v in key)
        steps = "; ".join(f"{time}={_fmt(o.inputs.get(time))}: " + ", ".join(f"{k}={_fmt(v)}" for k, v in o.outputs.items())
                          for o in obs)
        lines.append(f"Trajectory from {start}: {steps}")
    return lines
