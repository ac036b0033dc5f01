"""LLM calls per second against the fake server with a fixed latency.

    python benchmarks/llm_concurrency.py [--latency 0.2] [--calls 64]

The server answers every chat completion after `latency` seconds; the real
`openai` client (through scigame's ChatClient, retries and accounting
included) sends `calls` requests at concurrency 1, 8 and 32. The ideal rate
is concurrency / latency; the ratio shows the overhead of the client, the
server and the event loop, measured in one run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--calls", type=int, default=64)
    args = ap.parse_args()

    from scigame.llm.client import ChatClient, LLMConfig
    from scigame.testing.fake_openai import FakeOpenAI, Reply

    def slow(_request):
        time.sleep(args.latency)
        return Reply(content='{"ok": true}')

    os.environ["SCIGAME_BENCH_KEY"] = "k"
    print(f"latency {args.latency * 1000:.0f} ms, {args.calls} calls per level")
    print(f"{'concurrency':>11}{'calls/s':>10}{'ideal':>9}{'achieved':>10}")
    with FakeOpenAI(slow, api_key=None) as server:
        for level in (1, 8, 32):
            calls = args.calls if level > 1 else max(8, args.calls // 8)

            async def run():
                client = ChatClient(LLMConfig(model="fake-model", base_url=server.base_url,
                                              api_key_env="SCIGAME_BENCH_KEY", timeout=30, max_retries=0))
                gate = asyncio.Semaphore(level)

                async def one():
                    async with gate:
                        await client.complete([{"role": "user", "content": "hi"}])

                await one()  # warm the connection pool
                t0 = time.perf_counter()
                await asyncio.gather(*(one() for _ in range(calls)))
                elapsed = time.perf_counter() - t0
                await client.close()
                return calls / elapsed

            rate = asyncio.run(run())
            ideal = level / args.latency
            print(f"{level:>11}{rate:>10.1f}{ideal:>9.1f}{rate / ideal:>10.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
