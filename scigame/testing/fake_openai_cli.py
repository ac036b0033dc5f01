"""`python -m scigame.testing.fake_openai`: the fake server from a shell
(see scigame/testing/fake_openai.py)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Optional, Sequence, Union

from .fake_openai import (EXIT_OK, EXIT_USAGE, LOOPBACK_HOSTS, REFUSALS, FakeOpenAI, Reply, Responder,
                          ScriptError, echo_responder, load_script)


def _parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m scigame.testing.fake_openai",
        description="Serve scripted OpenAI chat-completions answers on the loopback interface "
                    "until Ctrl-C. Prints the base URL on stdout.")
    parser.add_argument("--host", default="127.0.0.1", help=f"one of {', '.join(LOOPBACK_HOSTS)} (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port to bind; 0 picks a free one (default 8765)")
    parser.add_argument("--api-key", default=None,
                        help="accept only `Authorization: Bearer KEY` (default: accept any key)")
    parser.add_argument("--script", metavar="REPLIES.json",
                        help="a JSON list of replies played in order (default: a fixed note for every request)")
    parser.add_argument("--responder", choices=["echo", "scientist", "coder"], default="echo",
                        help="without --script: `scientist` answers player turns with the built-in "
                             "baseline and grades judge requests (a free dry run); `coder` is the "
                             "scientist fitting with run_python (--tools python); `echo` (default) "
                             "answers a fixed note")
    parser.add_argument("--refuse-schema", choices=REFUSALS, default=None,
                        help="refuse every request asking for json_schema structured outputs: a "
                             "schema-specific 400, a plain 'Bad Request' 400, or a 422 (older servers)")
    parser.add_argument("--quiet", action="store_true", help="do not log requests on stderr")
    return parser.parse_args(argv)


def serve(argv: Optional[Sequence[str]] = None) -> int:
    """Serve until Ctrl-C (or SIGTERM); returns the exit code."""
    args = _parse_args(argv)
    if args.host not in LOOPBACK_HOSTS:
        print(f"fake-openai: refusing to bind {args.host!r}: only loopback addresses "
              f"({', '.join(LOOPBACK_HOSTS)}) are allowed here", file=sys.stderr)
        return EXIT_USAGE
    responder: Union[Responder, list[Reply]] = echo_responder
    if args.responder in ("scientist", "coder"):
        from .responders import RESPONDERS
        responder = RESPONDERS[args.responder]
    if args.script:
        try:
            responder = load_script(args.script)
        except ScriptError as exc:
            print(f"fake-openai: {exc}", file=sys.stderr)
            return EXIT_USAGE
    log = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    server = FakeOpenAI(responder, host=args.host, port=args.port, api_key=args.api_key, log=log,
                        refuse_schema=args.refuse_schema)
    try:
        server.start()
    except OSError as exc:
        print(f"fake-openai: cannot bind {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE

    done = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: done.set())
    print(server.base_url, flush=True)
    print("fake-openai: serving; point the openai client at the URL above. Ctrl-C stops.",
          file=sys.stderr, flush=True)
    try:
        while not done.wait(0.5):
            pass
    finally:
        server.stop()
    print(f"fake-openai: stopped after {len(server.requests)} request(s)", file=sys.stderr, flush=True)
    return EXIT_OK
