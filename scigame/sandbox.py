"""Running a model's Python in a sandbox (`--tools python`).

A model that may run code could read the card (its law is in it, compiled
or not), call out to the network, or take the machine down. Each call runs
in a fresh bubblewrap (`bwrap`) sandbox:

- its own network namespace (no network at all: not even the endpoint the
  player talks to), its own PID, IPC and UTS namespaces;
- read-only: /usr (and the /bin, /lib symlinks into it), the loader's cache,
  the Python interpreter's own installation (bound at /opt/python) and the
  folders that hold numpy, scipy and sympy (bound at /opt/site/N). Nothing
  else of the host: not the user's home, the project checkout, the card
  files, the build cache, the run folder or another episode;
- the only writable place is /scratch, a memory file system of bounded size
  that starts each call empty but for the episode's observations
  (read-only files bound in); the root is remounted read-only;
- an empty environment (the bootstrap sets HOME, TMPDIR and one-thread BLAS
  itself), no standard input;
- resource limits set before the code runs, soft and hard alike, so the code
  cannot raise them: CPU seconds, address space, processes, open files, file
  size, no core dumps. Run as root, bwrap is given no user namespace and the
  bootstrap drops to an unprivileged uid of its own (root is exempt from the
  process limit);
- output (stdout and stderr together) is kept up to a byte cap, the rest
  counted and dropped with a note;
- a wall-clock deadline kills the whole process tree: bwrap's process group
  is killed, and with it (--die-with-parent, the PID namespace) every process
  inside.

Where bwrap is missing or cannot build its namespaces, `sandbox_problem()`
says so in one line and nothing is ever run unsandboxed.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Optional

#: Modules the code may import (with the standard library), and those they need.
PACKAGES = ("numpy", "scipy", "sympy", "mpmath")

INSTALL_HINT = "install it (Debian/Ubuntu: apt-get install bubblewrap)"


@dataclass(frozen=True)
class Limits:
    """What one call may use."""

    cpu_seconds: float = 10.0
    wall_seconds: float = 20.0
    memory_bytes: int = 1 << 30  # address space of each process (processes × this bounds the whole call)
    processes: int = 8
    open_files: int = 64
    file_bytes: int = 16 << 20  # the largest file it may write
    scratch_bytes: int = 64 << 20  # all of /scratch
    output_bytes: int = 16 << 10  # output kept for the model


@dataclass
class SandboxResult:
    """What came of one call: the output the model sees and, when the code
    did not run to its end, why (`error`)."""

    output: str
    error: str
    exit_status: Optional[int]
    cpu_seconds: float
    wall_seconds: float
    dropped_bytes: int = 0


class SandboxUnavailable(RuntimeError):
    """No sandbox can be built here; the message says what to install or allow."""


# The first thing that runs inside: limits, the unprivileged uid, the paths, then the code.
_BOOTSTRAP = r"""
import os, resource, sys
cfg = __import__("json").loads(sys.argv[1])
for name, value in cfg["limits"]:
    resource.setrlimit(getattr(resource, name), (value, value))
if os.getuid() == 0:
    uid = cfg["uid"]
    os.setgroups([]); os.setresgid(uid, uid, uid); os.setresuid(uid, uid, uid)
os.environ.clear()
os.environ.update(HOME="/scratch", TMPDIR="/scratch", LANG="C.UTF-8", OPENBLAS_NUM_THREADS="1",
                  OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
sys.path[:] = ["/scratch"] + cfg["path"]
sys.argv = ["run_python"]
sys.stdout.reconfigure(line_buffering=True)  # printed lines and a traceback reach the pipe in order
report = cfg["report"]
del cfg, name, value
child = os.fork()
if child == 0:  # the model's code runs in a child, so that its CPU time is measured from here
    os.close(report)
    try:
        code = open("/tool/call.py", encoding="utf-8").read()
        exec(compile(code, "<run_python>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
    except SystemExit as stop:
        sys.stdout.flush(); os._exit(stop.code if isinstance(stop.code, int) else 1)
    except BaseException:  # the traceback without this bootstrap's own frame
        kind, exc, tb = sys.exc_info()
        __import__("traceback").print_exception(kind, exc, tb.tb_next)
        sys.stdout.flush(); sys.stderr.flush(); os._exit(1)
    sys.stdout.flush(); sys.stderr.flush(); os._exit(0)
_, status, usage = os.wait4(child, 0)
os.write(report, ("%r" % (usage.ru_utime + usage.ru_stime)).encode())
code = os.waitstatus_to_exitcode(status)
os._exit(code if code >= 0 else 128 - code)
"""


@lru_cache(maxsize=1)
def _interpreter() -> tuple[str, str]:
    """(the interpreter's installation prefix, the binary's path inside it)."""
    prefix = os.path.realpath(sys.base_prefix)
    binary = os.path.realpath(sys.executable)
    if not binary.startswith(prefix + os.sep):
        # a venv's python is a link into the base installation; anything else cannot be bound alone
        raise SandboxUnavailable(f"the Python interpreter {binary} lies outside its installation {prefix}")
    return prefix, os.path.relpath(binary, prefix)


@lru_cache(maxsize=1)
def _site_dirs() -> tuple[tuple[str, str], ...]:
    """(host folder, sandbox folder) of every folder that holds one of PACKAGES,
    and the sandbox's sys.path (the interpreter's standard library first)."""
    prefix, _ = _interpreter()
    found: list[str] = []
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        folder = os.path.realpath(os.path.dirname(list(spec.submodule_search_locations)[0]))
        if folder not in found:
            found.append(folder)
    mapped = []
    for i, folder in enumerate(found):
        inside = (f"/opt/python/{os.path.relpath(folder, prefix)}" if folder.startswith(prefix + os.sep)
                  else f"/opt/site/{i}")
        mapped.append((folder, inside))
    return tuple(mapped)


def _sys_path() -> list[str]:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    std = [f"/opt/python/lib/{version}", f"/opt/python/lib/{version}/lib-dynload"]
    return std + [inside for _, inside in _site_dirs()]


def _rlimits(limits: Limits, cpu: float) -> list[tuple[str, int]]:
    return [("RLIMIT_CPU", max(1, int(cpu + 0.999))), ("RLIMIT_AS", limits.memory_bytes),
            ("RLIMIT_NPROC", limits.processes), ("RLIMIT_NOFILE", limits.open_files),
            ("RLIMIT_FSIZE", limits.file_bytes), ("RLIMIT_CORE", 0)]


def _bwrap_args(work: Path, files: Mapping[str, Path], limits: Limits) -> list[str]:
    """bwrap's command line (without the interpreter's)."""
    prefix, _ = _interpreter()
    as_root = os.geteuid() == 0
    # as root a user namespace would map the sandbox's uid to root, whom the process limit spares
    namespaces = (["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup",
                   "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"] if as_root else ["--unshare-all"])
    args = [shutil.which("bwrap") or "bwrap", *namespaces, "--die-with-parent", "--new-session", "--clearenv",
            "--ro-bind", "/usr", "/usr"]
    for link in ("bin", "sbin", "lib", "lib64", "lib32", "libx32"):
        target = Path("/") / link
        if target.is_symlink():
            args += ["--symlink", os.readlink(target), f"/{link}"]
        elif target.is_dir():
            args += ["--ro-bind", str(target), f"/{link}"]
    args += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
             "--ro-bind", prefix, "/opt/python"]
    for host, inside in _site_dirs():
        if not inside.startswith("/opt/python/"):
            args += ["--ro-bind", host, inside]
    # bwrap makes the folders above a bind point for its own user only (0700)
    args += ["--chmod", "0755", "/opt"] + (["--chmod", "0755", "/opt/site"] if any(
        not inside.startswith("/opt/python/") for _, inside in _site_dirs()) else [])
    args += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(limits.scratch_bytes), "--tmpfs", "/scratch", "--chmod", "1777", "/scratch",
             "--ro-bind", str(work), "/tool"]
    for name, path in files.items():
        args += ["--ro-bind", str(path), f"/scratch/{name}"]
    return args + ["--remount-ro", "/", "--chdir", "/scratch"]


def _sandbox_uid(work: Path) -> int:
    """An unprivileged uid of the call's own (root runs only): sandboxes in flight at once do not
    share a process count."""
    return 100_000 + int.from_bytes(hashlib.sha256(str(work).encode()).digest()[:4], "big") % 900_000


def run_code(code: str, files: Mapping[str, bytes], limits: Limits = Limits(),
             cpu_seconds: Optional[float] = None, wall_seconds: Optional[float] = None) -> SandboxResult:
    """Run `code` in a fresh sandbox with `files` (name -> bytes) in /scratch;
    `cpu_seconds` / `wall_seconds` tighten the limits for this call. Blocks
    until the code ends or is killed. Raises SandboxUnavailable when bwrap is missing."""
    if shutil.which("bwrap") is None:
        raise SandboxUnavailable(f"--tools python needs bubblewrap (bwrap) to sandbox the model's code: {INSTALL_HINT}")
    cpu = min(limits.cpu_seconds, cpu_seconds if cpu_seconds is not None else limits.cpu_seconds)
    wall = min(limits.wall_seconds, wall_seconds if wall_seconds is not None else limits.wall_seconds)
    with tempfile.TemporaryDirectory(prefix="scigame-tool-") as tmp:
        work = Path(tmp)
        (work / "call.py").write_text(code, encoding="utf-8")
        paths = {}
        for name, data in files.items():
            (work / name).write_bytes(data)
            paths[name] = work / name
        for path in work.iterdir():
            path.chmod(0o644)  # readable by the sandbox's own uid
        work.chmod(0o755)
        _, binary = _interpreter()
        read_end, write_end = os.pipe()
        try:
            cfg = json.dumps({"limits": _rlimits(limits, cpu), "uid": _sandbox_uid(work), "path": _sys_path(),
                              "report": write_end})
            argv = _bwrap_args(work, paths, limits) + [f"/opt/python/{binary}", "-I", "-S", "-c", _BOOTSTRAP, cfg]
            return _supervise(argv, limits, cpu, wall, (read_end, write_end))
        finally:
            os.close(read_end)  # the write end is closed by _supervise, once the sandbox holds it


def _supervise(argv: list[str], limits: Limits, cpu: float, wall: float, report: tuple[int, int]) -> SandboxResult:
    """Start the sandbox, keep its output up to the cap, kill it at the deadline.
    The bootstrap writes the code's CPU seconds to `report`; a call that
    leaves none (killed, or the code killed its bootstrap) is charged its whole CPU limit."""
    started = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                env={}, start_new_session=True, close_fds=True, pass_fds=(report[1],))
    finally:
        os.close(report[1])
    kept, dropped, timed_out = bytearray(), 0, False
    fd = proc.stdout.fileno()
    deadline = started + wall
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                _kill_tree(proc)
                deadline = float("inf")  # drain what the dead tree left in the pipe
                left = 1.0
            ready, _, _ = select.select([fd], [], [], min(left, 1.0))
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            room = limits.output_bytes - len(kept)
            kept += chunk[:max(room, 0)]
            dropped += max(len(chunk) - max(room, 0), 0)
    finally:
        proc.stdout.close()
        _kill_tree(proc)  # nothing of the call outlives it, whatever happened
        proc.wait()
    used = _reported_cpu(report[0], cpu)
    text = kept.decode("utf-8", errors="replace")
    if dropped:
        text += f"\n[output truncated: {dropped} more bytes not shown (the cap is {limits.output_bytes} bytes)]"
    error = _verdict(proc.returncode, timed_out, used, cpu, wall, text)
    if error.startswith(_CPU_STOP):
        used = cpu  # stopped at the limit: the limit is what it used
    if dropped and not error:
        error = f"the output passed the cap of {limits.output_bytes} bytes: {dropped} bytes were dropped"
    return SandboxResult(output=text, error=error, exit_status=proc.returncode, cpu_seconds=round(used, 3),
                         wall_seconds=round(time.monotonic() - started, 3), dropped_bytes=dropped)


def _reported_cpu(fd: int, cpu: float) -> float:
    os.set_blocking(fd, False)
    try:
        return min(float(os.read(fd, 64).decode("ascii")), cpu)
    except (OSError, ValueError):
        return cpu


def _kill_tree(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


_CPU_STOP = "stopped: the call used its CPU time limit"


def _verdict(code: int, timed_out: bool, used: float, cpu: float, wall: float, text: str) -> str:
    """Why a call did not run to its end, for the model ("" when it did).
    bwrap reports a child killed by signal N as exit status 128 + N."""
    if timed_out:
        return f"stopped: the call ran past its wall-clock limit of {wall:g} s"
    signo = -code if code < 0 else code - 128 if code > 128 else 0
    if signo in (signal.SIGXCPU, signal.SIGKILL) and used >= cpu - 0.5:
        return f"{_CPU_STOP} of {cpu:g} s"
    if signo == signal.SIGXFSZ:
        return "stopped: the code wrote a file larger than the file size limit"
    if signo:
        return f"stopped by signal {signal.Signals(signo).name if signo in signal.Signals._value2member_map_ else signo}"
    if code == 0:
        return ""
    last = _exception_line(text)
    if text.startswith("bwrap:"):
        return f"the sandbox could not start: {text.splitlines()[0][:300]}"
    return f"the code exited with status {code}" + (f": {last[:300]}" if last else "")


def _exception_line(text: str) -> str:
    """The `Kind: message` line of the last traceback in the output, else its last line."""
    lines = text.splitlines()
    start = max((i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last)")),
                default=None)
    if start is not None:
        found = next((line for line in lines[start + 1:] if line and not line.startswith(" ")), "")
        if found:
            return found
    return next((line for line in reversed(lines) if line.strip() and not line.startswith("[output")), "")


@lru_cache(maxsize=1)
def sandbox_problem() -> Optional[str]:
    """Why no sandbox can run here (one line naming what to install or
    allow), or None. Tried once per process with a call that prints."""
    try:
        result = run_code("import numpy, scipy, sympy\nprint('ok')", {}, Limits(wall_seconds=60.0))
    except (SandboxUnavailable, OSError) as exc:
        return str(exc)
    if result.output.strip() == "ok" and not result.error:
        return None
    first = (result.output.strip().splitlines() or [result.error or "no output"])[0][:300]
    if first.startswith("bwrap:"):
        return (f"--tools python needs bubblewrap, and bubblewrap cannot build its sandbox here ({first}); "
                "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or run where it can")
    return f"--tools python: the sandboxed interpreter cannot import numpy, scipy and sympy ({first})"
