"""Temporal curation: extract an anchored draft card, then review it."""

from __future__ import annotations

import sys

import click

from ..options import llm_options
from .common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE


def _curation_client(model: str, llm):
    """A ChatClient for `openai:MODEL`, or a usage error."""
    from ..llm.client import ChatClient

    kind, _, name = model.partition(":")
    if kind != "openai" or not name:
        raise click.BadParameter(f"{model!r}: expected openai:MODEL", param_hint="--model")
    return ChatClient(llm.config(name))


def _run_llm(coro_factory, client):
    """Run one curation coroutine; endpoint trouble becomes a message and an exit code."""
    import asyncio

    from ..curation import CurationError
    from ..llm.client import AuthFailure, EndpointFault

    async def go():
        try:
            return await coro_factory()
        finally:
            await client.close()

    try:
        return asyncio.run(go())
    except AuthFailure as exc:
        click.echo(f"scigame: the endpoint refused the credentials: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    except EndpointFault as exc:
        click.echo(f"scigame: the endpoint failed: {exc}", err=True)
        sys.exit(EXIT_FINDINGS)
    except CurationError as exc:
        click.echo(f"scigame: {exc}", err=True)
        sys.exit(EXIT_FINDINGS)


def _curation_options(f):
    """--model, then the endpoint's options (handed over as `llm`)."""
    f = llm_options("OpenAI-compatible endpoint.", timeout=300.0, sampling=False,
                    retries_help="Retries of an infrastructure fault per call.")(f)
    return click.option("--model", required=True, help="openai:MODEL")(f)


@click.command()
@click.argument("source", metavar="SOURCE.txt", type=click.Path(exists=True, dir_okay=False))
@_curation_options
@click.option("--out", "out_dir", default="drafts", show_default=True, type=click.Path(file_okay=False),
              help="Folder for <card>.sci and <card>.provenance.json.")


def curate(source, model, llm, out_dir):
    """Extract a Temporal draft card from a source text with an LLM.

    The source is numbered line by line; the LLM writes one card and
    anchors every number and claim to source lines. The anchors are
    verified and the card linted; problems are sent back (at most twice).
    Writes OUT/<card>.sci and OUT/<card>.provenance.json. Exit status:
    0 verified draft, 1 failed, 2 usage error.
    """
    from ..curation import curate as run_curate

    client = _curation_client(model, llm)
    result = _run_llm(lambda: run_curate(source, client, out_dir), client)
    if not result.ok:
        click.echo(f"scigame: curation of {source} failed after {result.corrections} corrections; "
                   "the last draft still has these problems:", err=True)
        for p in result.problems:
            click.echo(f"  - {p}", err=True)
        sys.exit(EXIT_FINDINGS)
    click.echo(f"draft {result.draft_path} (provenance {result.provenance_path}); "
               f"{result.corrections} correction{'s' if result.corrections != 1 else ''}, "
               f"${result.usage.cost_usd:.4f}")
    click.echo(f"next: scigame review {result.draft_path} --source {source} --model MODEL")
    sys.exit(EXIT_OK)


@click.command()
@click.argument("draft", metavar="DRAFT.sci", type=click.Path(exists=True, dir_okay=False))
@click.option("--source", "source", required=True, metavar="SOURCE.txt",
              type=click.Path(exists=True, dir_okay=False), help="The source text the draft claims to follow.")
@_curation_options


def review(draft, source, model, llm):
    """Review a draft card against its source with an independent LLM call.

    Prints the verdict and reasons and writes <card>.review.json next to
    the draft. Exit status: 0 only when the reviewer accepts and the draft
    lints clean (no errors, no warnings); 1 otherwise; 2 usage error.
    """
    from ..curation import review as run_review
    from ..curation import write_review

    client = _curation_client(model, llm)
    result = _run_llm(lambda: run_review(draft, source, client), client)
    path = write_review(result)
    click.echo(f"verdict: {result.verdict}")
    for r in result.reasons:
        click.echo(f"  - {r}")
    click.echo("checks: " + ", ".join(f"{k} {v}" for k, v in result.checks.items()))
    for p in result.lint:
        click.echo(f"lint: {p}", err=True)
    for p in result.problems:
        click.echo(f"problem: {p}", err=True)
    if result.verdict == "accept" and not result.accepted:
        click.echo("scigame: the reviewer accepted, but the draft is not clean (see above): not accepted",
                   err=True)
    click.echo(f"review written to {path}")
    sys.exit(EXIT_OK if result.accepted else EXIT_FINDINGS)


#: The commands of this module, for scigame.cli.
COMMANDS = [curate, review]
