"""`scigame mcp`: serve a run plan's episodes to an external agent over the
Model Context Protocol (scigame/mcp_server.py)."""

from __future__ import annotations

import sys

import click

from .common import EXIT_USAGE, default_eval_paths
from .evaluate import eval_cmd

#: The run plan's options, the very ones `scigame eval` takes (one definition).
PLAN_OPTIONS = ("paths", "settings", "environments", "protocols", "budgets", "repetitions", "max_steps", "seed", "out",
                "window", "noises", "contexts", "distractors")


def _plan_params():
    return [p for p in eval_cmd.params if p.name in PLAN_OPTIONS]


@click.command(name="mcp", params=_plan_params())
@click.option("--player-name", default=None, metavar="NAME",
              help="The name the agent's episodes are stored under [default: mcp:<the MCP client's name>].")
@click.option("--http", "http_port", type=click.IntRange(1, 65535), default=None, metavar="PORT",
              help="Serve streamable HTTP on 127.0.0.1:PORT (path /mcp) instead of stdio.")
def mcp_cmd(player_name, http_port, paths, **plan):
    """Serve the episodes of a run plan to an agent over MCP.

    PATHS and the matrix options are `scigame eval`'s; episodes are played
    one at a time, in plan order, by the client's tool calls (task,
    experiment, budget, submit) and stored in the run folder (default
    runs/mcp) like any player's. Rerunning the same command resumes.
    """
    from ..options import LLMOptions, check_output_folder, eval_config, resolve_config

    try:
        from ..mcp_server import build_server
    except ImportError as exc:
        click.echo(f"scigame: `scigame mcp` needs the mcp package ({exc}): pip install 'scigame[mcp]'", err=True)
        sys.exit(EXIT_USAGE)
    config = eval_config({**plan, "out": plan["out"] or "runs/mcp", "player": "mcp"}, paths, LLMOptions(),
                         default_eval_paths())
    resolved = resolve_config(config)
    check_output_folder(config.out, "--out")
    server = build_server(config, player_name, resolved)
    if http_port is None:
        server.run("stdio")
    else:
        click.echo(f"scigame mcp: serving http://127.0.0.1:{http_port}/mcp (Ctrl-C stops)", err=True)
        server.run("streamable-http", host="127.0.0.1", port=http_port)


#: The commands of this module, for scigame.cli.
COMMANDS = [mcp_cmd]
