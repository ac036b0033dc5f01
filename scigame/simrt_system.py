"""The runtime surface of generated system simulators: one DOP853 integrator
for every system card.

A system card's simulator (compiler/system_emit.py) holds only what is the
card's: one small numba C function (`cfunc`) `model(world, kind, t, y, p,
k)` over a point's inputs in SI (`p`) and its states (`y`) that writes into
`k` the states at time 0 (kind INITIAL), their rates at time `t` (RATES) or
the outputs in declared units (OUTPUTS), for each world; its kernels hand it
to `run_system`, which integrates each point with `integrate`.

`integrate` takes the model's address and calls it through a pointer, so it
is compiled once per machine (numba's disk cache beside this file), not once
per card and world: every system card, both its worlds and every submitted
law share it. The first system card a machine builds compiles it, so it is
kept small to compile: its arguments are integers (counts and the addresses
of flat buffers) and floats (no array or first-class-function unboxing, no
array indexing); its loops over states are LLVM IR that numba takes whole
(`_stage`, `_norms`, `_copy`); each point's start (tolerances and first
step) is computed over all points at once in numpy (`start`). The method is
Hairer's DOP853 with scipy's coefficients and step-size control (the error
norm combines the 5th- and 3rd-order estimates, scaled per state by
`atol_j + rtol·|y_j|`); the accuracy, the states' absolute scales and the
step cap are the card's (compiler/system_emit.py says how they are
chosen). A point that needs more than `max_steps` steps, whose step
shrinks to rounding, or whose states stop being finite gives NaN outputs:
the oracle refuses it as a rejected observation that says why.

Importing this module imports numba and compiles (or loads) `integrate` and
`evaluate`:
a system's integration is far too long to run as Python, unlike a static
card's few points (scigame/simrt.py).
"""

from __future__ import annotations

import math
import threading

import numpy as np
from llvmlite import ir
from numba import cfunc, get_num_threads, get_thread_id, njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

#: From this many points on, `run_system(..., parallel=True)` runs the
#: prange driver (below it, threads cost more than they save).
PARALLEL_POINTS = 1024

_I = types.int64
_P = types.CPointer(types.float64)
#: model(world, kind, t, y, p, k), y, p and k pointers to float64: kind
#: INITIAL writes the states at time 0 into k, RATES the rates at (t, y),
#: OUTPUTS the outputs of the states y (pointers, not arrays: a call passes
#: three addresses, no array structs or reference counts). A card's `model`
#: is a numba `cfunc` of this signature; the driver calls it at its address.
MODEL = types.void(_I, _I, types.float64, _P, _P, _P)
INITIAL, RATES, OUTPUTS = 0, 1, 2

_EPS = 2.220446049250313e-16


@intrinsic
def _ptr(typingctx, address):
    """The float64 pointer at an integer address (an array's `ctypes.data`)."""
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(_P))
    return _P(_I), codegen


@intrinsic
def _call(typingctx, model, world, kind, t, y, p, k):
    """Call the model whose address is `model` (a C function of MODEL's
    signature) with the other arguments."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.VoidType(), [context.get_value_type(a) for a in MODEL.args])
        builder.call(builder.inttoptr(args[0], fnty.as_pointer()), args[1:])
        return context.get_dummy_value()
    return types.void(_I, *MODEL.args), codegen


@intrinsic
def _at(typingctx, ptr, offset):
    """The address `offset` elements on from a float64 pointer."""
    def codegen(context, builder, signature, args):
        return builder.gep(args[0], [args[1]])
    return _P(_P, types.intp), codegen


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


def _table(builder, name: str, values):
    """A float64 constant table in the module (its rows one after another),
    as a pointer to its first element."""
    name = f"scigame_dop853_{name}"
    table = builder.module.globals.get(name)
    if table is None:
        flat = [float(v) for v in np.ravel(values)]
        table = cgutils.global_constant(builder.module, name,
                                        ir.Constant(ir.ArrayType(ir.DoubleType(), len(flat)), flat))
    return builder.bitcast(table, ir.DoubleType().as_pointer())


@intrinsic
def _copy(typingctx, dst, src, n):
    """Copy n float64 from src to dst (one statement to numba, not a loop)."""
    def codegen(context, builder, signature, args):
        cgutils.raw_memcpy(builder, args[0], args[1], args[2], 8)
        return context.get_dummy_value()
    return types.void(_P, _P, _I), codegen


# The driver's loops over states, as LLVM IR that numba takes as one
# statement each (`_copy`, `_stage`, `_norms`): written in Python, numba types
# and lowers every statement of them, and those loops were a third of the
# first system card's compile of the driver. The arithmetic is the loops' own,
# in their order (no fused multiply-adds: the same bits).

@intrinsic
def _stage(typingctx, K, ytmp, y, hh, s, ns):
    """The trial state of stage s: ytmp[j] = y[j] + hh * (the sum over m < s
    of _AB[s, m] * K[m * ns + j], from 0.0 in m's order) for each state j."""
    def codegen(context, builder, signature, args):
        K, ytmp, y, hh, s, ns = args
        ab = _table(builder, "ab", _AB)
        acc = cgutils.alloca_once(builder, ir.DoubleType())
        with cgutils.for_range(builder, ns) as lj:
            j = lj.index
            builder.store(ir.Constant(ir.DoubleType(), 0.0), acc)
            with cgutils.for_range(builder, s) as lm:
                m = lm.index
                a = builder.load(builder.gep(ab, [builder.add(builder.mul(s, ir.Constant(s.type, _AB.shape[1])), m)]))
                k = builder.load(builder.gep(K, [builder.add(builder.mul(m, ns), j)]))
                builder.store(builder.fadd(builder.load(acc), builder.fmul(a, k)), acc)
            yj = builder.load(builder.gep(y, [j]))
            builder.store(builder.fadd(yj, builder.fmul(hh, builder.load(acc))), builder.gep(ytmp, [j]))
        return context.get_dummy_value()
    return types.void(_P, _P, _P, types.float64, _I, _I), codegen


@intrinsic
def _norms(typingctx, K, y, ytmp, atol, rtol, ns):
    """The sums over states of (q5_j / sc_j)^2 and (q3_j / sc_j)^2, q5_j and
    q3_j the 5th- and 3rd-order error estimates (sums over the 13 stages from
    0.0), sc_j = atol_j + _max(|y_j|, |ytmp_j|) * rtol: as a pair."""
    def codegen(context, builder, signature, args):
        K, y, ytmp, atol, rtol, ns = args
        d = ir.DoubleType()
        e5t, e3t = _table(builder, "e5", _E5), _table(builder, "e3", _E3)
        fabs = builder.module.declare_intrinsic("llvm.fabs", [d])
        e5, e3, q5, q3 = (cgutils.alloca_once(builder, d) for _ in range(4))
        zero = ir.Constant(d, 0.0)
        builder.store(zero, e5)
        builder.store(zero, e3)
        with cgutils.for_range(builder, ns) as lj:
            j = lj.index
            a = builder.call(fabs, [builder.load(builder.gep(y, [j]))])
            b = builder.call(fabs, [builder.load(builder.gep(ytmp, [j]))])
            sc = builder.fadd(builder.load(builder.gep(atol, [j])),
                              builder.fmul(builder.select(builder.fcmp_ordered(">", b, a), b, a), rtol))
            builder.store(zero, q5)
            builder.store(zero, q3)
            with cgutils.for_range(builder, ir.Constant(ns.type, _E5.shape[0])) as lm:
                m = lm.index
                k = builder.load(builder.gep(K, [builder.add(builder.mul(m, ns), j)]))
                builder.store(builder.fadd(builder.load(q5), builder.fmul(builder.load(builder.gep(e5t, [m])), k)), q5)
                builder.store(builder.fadd(builder.load(q3), builder.fmul(builder.load(builder.gep(e3t, [m])), k)), q3)
            r5, r3 = builder.fdiv(builder.load(q5), sc), builder.fdiv(builder.load(q3), sc)
            builder.store(builder.fadd(builder.load(e5), builder.fmul(r5, r5)), e5)
            builder.store(builder.fadd(builder.load(e3), builder.fmul(r3, r3)), e3)
        return context.make_tuple(builder, signature.return_type, [builder.load(e5), builder.load(e3)])
    return types.UniTuple(types.float64, 2)(_P, _P, _P, _P, types.float64, _I), codegen


#: Rows of the driver's work array W (the caller allocates it: np.empty in
#: the driver is three more compiled functions): the stages' rates K (rows
#: 0-12), the state y, the trial state and each state's absolute tolerance.
WORK_ROWS = 16

#: evaluate's arguments: the model's address, the world, the kind, the number
#: of points, inputs a point and states, the addresses of each point's time,
#: inputs (SI, a row a point), states and the rows the model writes.
_EVALUATE = types.void(_I, _I, _I, _I, _I, _I, _I, _I, _I, _I)


@njit(_EVALUATE, cache=True, error_model="numpy", nogil=True, no_cfunc_wrapper=True, no_rewrites=True)
def evaluate(model, world, kind, n, n_in, ns, T_, P_, Y_, K_):
    """The model of `kind` at each point: its time, inputs and states to its row of K."""
    T, P, Y, K = _ptr(T_), _ptr(P_), _ptr(Y_), _ptr(K_)
    for i in range(n):
        _call(model, world, kind, T[i], _at(Y, i * ns), _at(P, i * n_in), _at(K, i * ns))


#: integrate's arguments: the model's address, the world, the number of
#: points, inputs and outputs a point, the time input's column, the
#: addresses of the inputs P (SI, a row a point), the outputs Y, the work
#: array W and each point's start (its states at time 0, their rates,
#: their absolute tolerances and the first step: `start`), the number of
#: states, rtol and the step cap. Integers and addresses only (of float64
#: arrays, C order, that the caller holds for the call: run_system): a call
#: unboxes no arrays, and the driver indexes flat buffers through pointers
#: (a third less to compile than array arguments).
_DRIVER = types.void(_I, _I, _I, _I, _I, _I, _I, _I, _I, _I, _I, types.float64, _I)


@njit(_DRIVER, cache=True, error_model="numpy", nogil=True, no_cfunc_wrapper=True, no_rewrites=True)
def integrate(model, world, n, n_in, time_index, P_, Y_, n_out, W, START, ns, rtol, max_steps):
    """Each point (row of P, inputs in SI) from time 0 to its time input by
    DOP853 steps (twelve stages; the error norm of the 5th- and 3rd-order
    estimates) from its start (a row of START: `start`), then its outputs
    into its row of Y: NaN where the integration gives up."""
    P, Y, K, S = _ptr(P_), _ptr(Y_), _ptr(W), _ptr(START)
    y = _at(K, 13 * ns)
    ytmp, atol = _at(y, ns), _at(y, 2 * ns)
    for i in range(n):
        p, first = _at(P, i * n_in), _at(S, i * (3 * ns + 1))
        tend = p[time_index]
        _copy(y, first, ns)
        _copy(K, _at(first, ns), ns)
        _copy(atol, _at(first, 2 * ns), ns)
        h = first[3 * ns]
        done = not (tend > 0.0)
        t, steps, rejected = 0.0, 0, False
        while not done and steps < max_steps and h > 4.0 * _EPS * abs(t):
            steps += 1
            t_new = _min(t + h, tend)
            hh = t_new - t
            for s in range(1, 13):
                _stage(K, ytmp, y, hh, s, ns)
                _call(model, world, RATES, t_new if s == 12 else t + _C[s] * hh, ytmp, p, _at(K, s * ns))
            e5, e3 = _norms(K, y, ytmp, atol, rtol, ns)
            en = 0.0 if (e5 == 0.0 and e3 == 0.0) else hh * e5 / math.sqrt((e5 + 0.01 * e3) * ns)
            if en < 1.0:
                factor = 10.0 if en == 0.0 else _min(10.0, 0.9 * en ** (-0.125))
                t = t_new
                _copy(y, ytmp, ns)
                _copy(K, _at(K, 12 * ns), ns)
                h = hh * (_min(1.0, factor) if rejected else factor)
                rejected = False
                done = t >= tend
            else:
                h = hh * (_max(0.2, 0.9 * en ** (-0.125)) if en == en else 0.2)
                rejected = True
        out = _at(Y, i * n_out)
        _call(model, world, OUTPUTS, tend, y, p, out)
        if not done:
            for j in range(n_out):
                out[j] = math.nan


def _integrate_parallel(model, world, n, n_in, time_index, P, Y, n_out, W, START, ns, rtol, max_steps):
    """`integrate` a point at a time over threads, each in its own rows of W
    (WORK_ROWS by the states a thread)."""
    for i in prange(n):
        integrate(model, world, 1, n_in, time_index, P + 8 * i * n_in, Y + 8 * i * n_out, n_out,
                  W + 8 * get_thread_id() * WORK_ROWS * ns, START + 8 * i * (3 * ns + 1), ns, rtol, max_steps)


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


def _pick(op):
    """`_max` and `_min` over arrays: `b if b op a else a` elementwise (the same NaN rule)."""
    return lambda a, b: np.where(op(b, a), b, a)


_amax, _amin = _pick(np.greater), _pick(np.less)


def _root9(x):
    """x ** (1/9) by the C library's pow, as the driver computed it (numpy's
    vectorised power may differ in the last bit)."""
    return np.fromiter((math.pow(v, 1.0 / 9.0) for v in x.tolist()), np.float64, x.shape[0])


def start(model: int, world: int, P, tend, group, caps, rtol: float):
    """Each point's start, a row of [states at time 0, their rates, their
    absolute tolerances, the first step]: the states from the model, their
    rates at time 0; each state's absolute tolerance (rtol times the largest
    initial size, or initial rate times the time span, among the states of
    its dimension; at most its cap, a negative cap: none); Hairer's initial
    step (scipy's select_initial_step, order 8), 0 where the time is not
    positive. Over all points at once in numpy, each sum in the order of the
    per-point numba loop it replaces (the same bits): that loop was a third
    of the code the first system card compiles. The model runs through
    `evaluate`."""
    n, n_in, ns = P.shape[0], P.shape[1], len(group)
    out = np.empty((n, 3 * ns + 1))
    y0, k0 = np.empty((n, ns)), np.empty((n, ns))
    zero = np.zeros(n)
    evaluate(model, world, INITIAL, n, n_in, ns, zero.ctypes.data, P.ctypes.data, y0.ctypes.data, y0.ctypes.data)
    evaluate(model, world, RATES, n, n_in, ns, zero.ctypes.data, P.ctypes.data, y0.ctypes.data, k0.ctypes.data)
    with np.errstate(all="ignore"):
        atol = np.empty((n, ns))
        for j in range(ns):
            d = zero
            for m in range(ns):
                if group[m] == group[j]:
                    d = _amax(_amax(d, np.abs(y0[:, m])), np.abs(k0[:, m]) * tend)
            scaled = _amin(rtol * d, caps[j]) if caps[j] >= 0.0 else rtol * d
            atol[:, j] = np.where(d > 0.0, scaled, 1e-300)
        sc = atol + np.abs(y0) * rtol
        d0, d1, d2 = zero, zero, zero
        for j in range(ns):
            q0, q1 = y0[:, j] / sc[:, j], k0[:, j] / sc[:, j]
            d0, d1 = d0 + q0 * q0, d1 + q1 * q1
        d0, d1 = np.sqrt(d0 / ns), np.sqrt(d1 / ns)
        h0 = _amin(np.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1), tend)
        y1, k1 = y0 + h0[:, None] * k0, np.empty((n, ns))
        evaluate(model, world, RATES, n, n_in, ns, h0.ctypes.data, P.ctypes.data, y1.ctypes.data, k1.ctypes.data)
        for j in range(ns):
            q2 = (k1[:, j] - k0[:, j]) / sc[:, j]
            d2 = d2 + q2 * q2
        d2 = np.sqrt(d2 / ns) / h0
        h1 = np.where((d1 <= 1e-15) & (d2 <= 1e-15), _amax(1e-6, h0 * 1e-3), _root9(0.01 / _amax(d1, d2)))
        h = _amin(_amin(100.0 * h0, h1), tend)
        out[:, 3 * ns] = np.where(tend > 0.0, np.where(h > 0.0, h, tend * 1e-6), 0.0)
    out[:, :ns], out[:, ns:2 * ns], out[:, 2 * ns:3 * ns] = y0, k0, atol
    return out


def run_system(parallel: bool, xs, factors, time_index: int, ys, model, world: int, group, caps,
               rtol: float, max_steps: int) -> None:
    """Integrate each point of the input arrays `xs` (declared units; times
    `factors` is SI) to its time input (`xs[time_index]`) and write the
    outputs of `world` into the arrays `ys`. `model`: the card's cfunc.
    `parallel`: the prange driver from PARALLEL_POINTS points on."""
    n = ys[0].shape[0] if ys else 0
    if n == 0:
        return
    P = np.empty((n, len(xs)))
    for j, (x, f) in enumerate(zip(xs, factors)):
        P[:, j] = x if f == 1.0 else np.asarray(x, dtype=np.float64) * f
    Y = np.empty((n, len(ys)))
    ns = len(group)
    first = start(model.address, int(world), P, np.ascontiguousarray(P[:, time_index]), group, caps, float(rtol))
    use_threads = parallel and n >= PARALLEL_POINTS
    driver = _parallel() if use_threads else integrate
    W = np.empty(((get_num_threads() if use_threads else 1) * WORK_ROWS, ns))
    driver(model.address, int(world), n, len(xs), int(time_index), P.ctypes.data, Y.ctypes.data, len(ys),
           W.ctypes.data, first.ctypes.data, ns, float(rtol), int(max_steps))
    for j, y in enumerate(ys):
        y[:] = Y[:, j]


exported = ["math", "np", "cfunc", "MODEL", "run_system"]
__all__ = exported
