"""The runtime surface of generated simulators.

A generated simulator module imports these names and nothing else. The
list is the compiler's `RUNTIME_NAMES`, derived from the card-function
table (compiler/functions.py); `exported` is that contract, and
tests/test_functions.py checks that every name in it is defined here.

Importing a simulator imports no numba. `njit` wraps each kernel in a
`Kernel`, which runs a call in one of two ways that give the same bits:

- numba's compiled loop (`Kernel.dispatcher`), compiled or loaded from
  numba's disk cache on first use; numba and its compiler are imported then;
- for a few points while this kernel's numba code is not loaded, the
  kernel's own Python code on Python floats: the same operations in the
  same order, on the same libm (`math.sin` is the C library's `sin`, as in
  numba's loop). A call that would raise in Python (a division by zero, a
  domain error, an overflow in `**`, a negative number to a fractional
  power, which Python makes complex) is handed to numba instead, whose IEEE
  results (inf, NaN) are the law's.

So a one-point `scigame simulate` or an episode's observations never pay
numba's import. `tests/test_simrt.py` checks the two ways agree bit for bit
on every bundled card and every card in `benchmarks/feynman/`.

A world whose points cost libm calls may also have an array twin
(`env_<world>_array`, numpy ufuncs on whole arrays); `run_array` runs it over
cache-sized chunks on threads for large inputs (numpy releases the GIL in
its loops, and its vectorised transcendental functions beat libm's). Its
values are within a few units in the last place of the kernel's.
"""

from __future__ import annotations

import math
import threading
import types

import numpy as np

from .compiler.functions import RUNTIME_NAMES

exported = list(RUNTIME_NAMES)
__all__ = exported

#: From this many points on, a kernel call uses the array (or parallel) twin:
#: below it, starting threads costs more than it saves (and the episodes'
#: small calls stay single-threaded inside worker processes).
PARALLEL_MIN_POINTS = 32768

#: Up to this many points, a kernel whose numba code is not loaded yet runs
#: as Python (a few microseconds a point) rather than importing numba
#: (about half a second).
PYTHON_MAX_POINTS = 1024

#: Points per chunk of the array twin: its temporaries stay in the cache.
ARRAY_CHUNK = 16384

_NUMBA_LOCK = threading.RLock()
_PYTHON_ERRORS = (ArithmeticError, ValueError, TypeError)


def prange(*args):
    """`range` in Python; numba's `prange` once a kernel is compiled."""
    return range(*args)


class Kernel:
    """A generated (or runtime) function and numba's compiled version of it."""

    def __init__(self, py_func, options: dict):
        self.py_func = py_func
        self.options = options
        self._dispatcher = None
        # the Python run's own namespace: runtime names as Python functions
        # (fixed before numba replaces them in the module), and an `abs` that
        # refuses the complex number a negative base's fractional power is in
        # Python (numba's is NaN), rather than turning it into a float
        namespace = {**py_func.__globals__, "abs": math.fabs}
        self._python_func = types.FunctionType(py_func.__code__, namespace, py_func.__name__,
                                               py_func.__defaults__, py_func.__closure__)
        self.__name__ = py_func.__name__
        self.__doc__ = py_func.__doc__

    def __repr__(self) -> str:
        state = "compiled" if self._dispatcher is not None else "not loaded"
        return f"<Kernel {self.__name__} ({state})>"

    @property
    def signatures(self) -> list:
        """The argument types numba has compiled (or loaded) this kernel for."""
        return [] if self._dispatcher is None else self._dispatcher.signatures

    @property
    def dispatcher(self):
        """numba's dispatcher, made on first use (this imports numba)."""
        if self._dispatcher is None:
            with _NUMBA_LOCK:
                if self._dispatcher is None:
                    self._dispatcher = _jit(self)
        return self._dispatcher

    def __call__(self, *args):
        if self._dispatcher is None:
            if not any(isinstance(a, np.ndarray) for a in args):
                return self._python_func(*args)  # a helper (step, sign) on floats, from Python code
            # a generated module may lower the limit (a system's integration is too long for Python)
            limit = self.py_func.__globals__.get("PYTHON_MAX_POINTS", PYTHON_MAX_POINTS)
            if _few_floats(args, limit) and self._python(args):
                return None
        return self.dispatcher(*args)

    def _python(self, args) -> bool:
        """Run as Python on floats (the module's N_INPUTS input arrays as
        lists, the outputs written in place); False when Python raises where
        numba gives inf or NaN (numba then overwrites every output)."""
        n_in = self.py_func.__globals__.get("N_INPUTS")
        if not isinstance(n_in, int):
            return False
        try:
            self._python_func(*(a.tolist() for a in args[:n_in]), *args[n_in:])
        except _PYTHON_ERRORS:
            return False
        return True


def _few_floats(args, limit: int = PYTHON_MAX_POINTS) -> bool:
    """Float64 vectors of at most PYTHON_MAX_POINTS points, as run_kernel passes
    (other arrays get numba's typing: an integer array is computed in integers)."""
    return all(isinstance(a, np.ndarray) and a.dtype == np.float64 and a.ndim == 1 for a in args) \
        and args[-1].shape[0] <= limit


def njit(*args, **options):
    """`numba.njit` with its import deferred: `@njit(...)` or `@njit`."""
    if args and callable(args[0]):
        return Kernel(args[0], {})
    return lambda fn: Kernel(fn, options)


def _jit(kernel: Kernel):
    """Compile (or load from numba's cache) a kernel. The generated module's
    runtime names are numba's from now on: `prange` is numba's, and the
    helpers it calls are their dispatchers (numba types a call to a global
    by the global's value)."""
    import numba

    namespace = kernel.py_func.__globals__
    for name, value in list(namespace.items() if namespace is not globals() else ()):
        if value is prange:
            namespace[name] = numba.prange
        elif any(value is helper for helper in (step, sign)):
            namespace[name] = value.dispatcher
    return numba.njit(**kernel.options)(kernel.py_func)


def run_array(fn, xs, ys, threads: int | None = None) -> None:
    """Run an array twin over chunks of ARRAY_CHUNK points, on `threads`
    threads (default: the cores this process may use). The chunks are
    views; each writes its own slice of the outputs."""
    n = ys[0].shape[0]
    bounds = [(s, min(s + ARRAY_CHUNK, n)) for s in range(0, n, ARRAY_CHUNK)]

    errors: list[BaseException] = []

    def work(part):
        try:
            with np.errstate(all="ignore"):
                for s, e in part:
                    fn(*(x[s:e] for x in xs), *(y[s:e] for y in ys))
        except Exception as exc:  # raised in the caller's thread, below
            errors.append(exc)

    if threads is None:
        from .episode_context import available_cores
        threads = available_cores()
    threads = max(1, min(threads, len(bounds)))
    workers = [threading.Thread(target=work, args=(bounds[i::threads],)) for i in range(1, threads)]
    for t in workers:
        t.start()
    work(bounds[0::threads])
    for t in workers:
        t.join()
    if errors:
        raise errors[0]


@njit(cache=True, error_model="numpy")
def step(x):
    """1 for x > 0, else 0 (NaN stays NaN)."""
    if x != x:
        return x
    return 1.0 if x > 0.0 else 0.0


@njit(cache=True, error_model="numpy")
def sign(x):
    """-1, 0 or 1 (NaN stays NaN)."""
    if x != x:
        return x
    if x > 0.0:
        return 1.0
    if x < 0.0:
        return -1.0
    return 0.0
