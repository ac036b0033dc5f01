"""The runtime surface of generated system simulators: one DOP853 integrator
for every system card.

A system card's simulator (compiler/system_emit.py) holds only what is the
card's: one small numba function `model(world, kind, t, y, p, k)` over a
point's inputs in SI (`p`) and its states (`y`) that writes into `k` the
states at time 0 (kind INITIAL), their rates at time `t` (RATES) or the
outputs in declared units (OUTPUTS), for each world; its kernels hand it to
`run_system`, which integrates each point with `integrate`.

`integrate` takes `model` as a first-class function (numba's
`FunctionType`, called through a pointer), so it is compiled once per
machine (numba's disk cache beside this file), not once per card and
world: every system card, both its worlds and every submitted law share
it, and a card's cold compile is its own `model`. The method is Hairer's
DOP853 with scipy's coefficients and step-size control (the error norm
combines the 5th- and 3rd-order estimates, scaled per state by
`atol_j + rtol·|y_j|`); the accuracy, the states' absolute scales and the
step cap are the card's (compiler/system_emit.py says how they are
chosen). A point that needs more than `max_steps` steps, whose step
shrinks to rounding, or whose states stop being finite gives NaN outputs:
the oracle refuses it as a rejected observation that says why.

Importing this module imports numba and compiles (or loads) `integrate`:
a system's integration is far too long to run as Python, unlike a static
card's few points (scigame/simrt.py).
"""

from __future__ import annotations

import math
import threading

import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic

#: From this many points on, `run_system(..., parallel=True)` runs the
#: prange driver (below it, threads cost more than they save).
PARALLEL_POINTS = 1024

_F = types.float64[::1]
_P = types.CPointer(types.float64)
#: model(world, kind, t, y, p, k), y, p and k pointers to float64: kind
#: INITIAL writes the states at time 0 into k, RATES the rates at (t, y),
#: OUTPUTS the outputs of the states y (pointers, not arrays: a call passes
#: three addresses, no array structs or reference counts)
MODEL = types.void(types.int64, types.int64, types.float64, _P, _P, _P)
INITIAL, RATES, OUTPUTS = 0, 1, 2

_EPS = 2.220446049250313e-16


@intrinsic
def _at(typingctx, arr, offset):
    """The address of element `offset` of a C-contiguous array's data."""
    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        return builder.gep(data, [args[1]])
    return types.CPointer(arr.dtype)(arr, types.intp), codegen


def _select(op):
    """Python's max (op '>') or min ('<') of two floats, `b if b op a else
    a` (the same NaN rule), as one comparison and select: the builtins'
    overloads are compiled functions of their own, seven of them costing a
    cold compile about 0.3 s."""
    @intrinsic
    def pick(typingctx, a, b):
        def codegen(context, builder, signature, args):
            return builder.select(builder.fcmp_ordered(op, args[1], args[0]), args[1], args[0])
        return types.float64(types.float64, types.float64), codegen
    return pick


_max, _min = _select(">"), _select("<")


def _coefficients():
    """DOP853's tableau: scipy's own (the coefficients solve_ivp uses), read
    from its file, scipy/integrate/_ivp/dop853_coefficients.py, which needs
    only numpy: importing scipy.integrate for it would cost a second. Row s
    of the first array makes stage s (row 12, the solution's weights B, the
    state at the step's end)."""
    import importlib.util
    from pathlib import Path

    import scipy
    path = Path(scipy.__file__).resolve().parent / "integrate" / "_ivp" / "dop853_coefficients.py"
    spec = importlib.util.spec_from_file_location("scigame_dop853_coefficients", path)
    c = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(c)
    n = c.N_STAGES
    ab = np.zeros((n + 1, n))
    ab[:n] = c.A[:n, :n]
    ab[n] = c.B[:n]
    return ab, np.ascontiguousarray(c.C[:n]), np.ascontiguousarray(c.E5), np.ascontiguousarray(c.E3)


_AB, _C, _E5, _E3 = _coefficients()


#: Options of the driver's own functions, which only the driver calls.
_INNER = {"cache": True, "error_model": "numpy", "nogil": True, "no_cpython_wrapper": True,
          "no_cfunc_wrapper": True}


@njit(**_INNER)
def _start(p, tend, model, world, y, ytmp, atol, K, group, caps, rtol):
    """The rate at the start (K[0]); each state's absolute tolerance (rtol
    times the largest initial size, or initial rate times the time span,
    among the states of its dimension; at most its cap, a negative cap:
    none); Hairer's initial step (scipy's select_initial_step, order 8).
    `p` is the address of the point's inputs."""
    ns = y.shape[0]
    model(world, RATES, 0.0, _at(y, 0), p, _at(K, 0))
    for j in range(ns):
        d = 0.0
        for m in range(ns):
            if group[m] == group[j]:
                d = _max(_max(d, abs(y[m])), abs(K[0, m]) * tend)
        if d > 0.0:
            atol[j] = _min(rtol * d, caps[j]) if caps[j] >= 0.0 else rtol * d
        else:
            atol[j] = 1e-300
    d0, d1 = 0.0, 0.0
    for j in range(ns):
        sc = atol[j] + abs(y[j]) * rtol
        d0 += (y[j] / sc) ** 2
        d1 += (K[0, j] / sc) ** 2
    d0, d1 = math.sqrt(d0 / ns), math.sqrt(d1 / ns)
    h0 = _min(1e-6 if (d0 < 1e-5 or d1 < 1e-5) else 0.01 * d0 / d1, tend)
    for j in range(ns):
        ytmp[j] = y[j] + h0 * K[0, j]
    model(world, RATES, h0, _at(ytmp, 0), p, _at(K, ns))  # the probe's rate (overwritten by the first stage)
    d2 = 0.0
    for j in range(ns):
        sc = atol[j] + abs(y[j]) * rtol
        d2 += ((K[1, j] - K[0, j]) / sc) ** 2
    d2 = math.sqrt(d2 / ns) / h0
    if d1 <= 1e-15 and d2 <= 1e-15:
        h1 = _max(1e-6, h0 * 1e-3)
    else:
        h1 = (0.01 / _max(d1, d2)) ** (1.0 / 9.0)
    h = _min(_min(100.0 * h0, h1), tend)
    return h if h > 0.0 else tend * 1e-6


_DRIVER = types.void(types.float64[:, ::1], _F, types.FunctionType(MODEL), types.int64, types.float64[:, ::1],
                     types.int64[::1], _F, types.float64, types.int64, types.float64[:, ::1])

#: Rows of the driver's work array W: the stages' rates K (rows 0-12), then
#: the state y, the trial state and each state's absolute tolerance (the
#: caller allocates it: np.empty in the driver is three more compiled
#: functions, about 0.15 s of a cold compile).
WORK_ROWS = 16


@njit(_DRIVER, cache=True, error_model="numpy", nogil=True)
def integrate(P, tend_, model, world, Y, group, caps, rtol, max_steps, K):
    """Each point (row of P, inputs in SI) from time 0 to its time input by
    DOP853 steps (twelve stages; the error norm of the 5th- and 3rd-order
    estimates), then its outputs into its row of Y: NaN where the
    integration gives up. `K`: the work array (WORK_ROWS by the states)."""
    ns = group.shape[0]
    y, ytmp, atol = K[13], K[14], K[15]
    for i in range(P.shape[0]):
        p, tend = _at(P, i * P.shape[1]), tend_[i]
        model(world, INITIAL, 0.0, _at(y, 0), p, _at(y, 0))
        done = not (tend > 0.0)
        h = 0.0 if done else _start(p, tend, model, world, y, ytmp, atol, K, group, caps, rtol)
        t, steps, rejected = 0.0, 0, False
        while not done and steps < max_steps and h > 4.0 * _EPS * abs(t):
            steps += 1
            t_new = _min(t + h, tend)
            hh = t_new - t
            for s in range(1, 13):
                for j in range(ns):
                    acc = 0.0
                    for m in range(s):
                        acc += _AB[s, m] * K[m, j]
                    ytmp[j] = y[j] + hh * acc
                model(world, RATES, t_new if s == 12 else t + _C[s] * hh, _at(ytmp, 0), p, _at(K, s * ns))
            e5, e3 = 0.0, 0.0
            for j in range(ns):
                sc = atol[j] + _max(abs(y[j]), abs(ytmp[j])) * rtol
                q5, q3 = 0.0, 0.0
                for m in range(13):
                    q5 += _E5[m] * K[m, j]
                    q3 += _E3[m] * K[m, j]
                e5 += (q5 / sc) ** 2
                e3 += (q3 / sc) ** 2
            en = 0.0 if (e5 == 0.0 and e3 == 0.0) else hh * e5 / math.sqrt((e5 + 0.01 * e3) * ns)
            if en < 1.0:
                factor = 10.0 if en == 0.0 else _min(10.0, 0.9 * en ** (-0.125))
                t = t_new
                for j in range(ns):
                    y[j] = ytmp[j]
                    K[0, j] = K[12, j]
                h = hh * (_min(1.0, factor) if rejected else factor)
                rejected = False
                done = t >= tend
            else:
                h = hh * (_max(0.2, 0.9 * en ** (-0.125)) if en == en else 0.2)
                rejected = True
        model(world, OUTPUTS, tend, _at(y, 0), p, _at(Y, i * Y.shape[1]))
        if not done:
            for j in range(Y.shape[1]):
                Y[i, j] = math.nan


def _integrate_parallel(P, tend, model, world, Y, group, caps, rtol, max_steps, K):
    for i in prange(P.shape[0]):
        integrate(P[i:i + 1], tend[i:i + 1], model, world, Y[i:i + 1], group, caps, rtol, max_steps,
                  np.empty(K.shape))


_LOCK = threading.Lock()
_PARALLEL: list = []


def _parallel():
    """The prange twin of `integrate` (the same bits), compiled (or loaded
    from numba's cache) on first use: a process that integrates a few
    points never compiles it."""
    with _LOCK:
        if not _PARALLEL:
            _PARALLEL.append(njit(_DRIVER, cache=True, error_model="numpy", nogil=True,
                                  parallel=True)(_integrate_parallel))
        return _PARALLEL[0]


def run_system(parallel: bool, xs, factors, time_index: int, ys, model, world: int, group, caps,
               rtol: float, max_steps: int) -> None:
    """Integrate each point of the input arrays `xs` (declared units; times
    `factors` is SI) to its time input (`xs[time_index]`) and write the
    outputs of `world` into the arrays `ys`. `parallel`: the prange driver
    from PARALLEL_POINTS points on."""
    n = ys[0].shape[0] if ys else 0
    if n == 0:
        return
    P = np.empty((n, len(xs)))
    for j, (x, f) in enumerate(zip(xs, factors)):
        P[:, j] = x if f == 1.0 else np.asarray(x, dtype=np.float64) * f
    tend = np.ascontiguousarray(P[:, time_index])
    Y = np.empty((n, len(ys)))
    driver = _parallel() if parallel and n >= PARALLEL_POINTS else integrate
    driver(P, tend, model, int(world), Y, group, caps, float(rtol), int(max_steps),
           np.empty((WORK_ROWS, group.shape[0])))
    for j, y in enumerate(ys):
        y[:] = Y[:, j]


exported = ["math", "np", "njit", "MODEL", "run_system"]
__all__ = exported
