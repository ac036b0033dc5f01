"""Levenberg–Marquardt exactly as `scipy.optimize.least_squares(fun, x0,
method="lm", max_nfev=N)` runs it, without its set-up around MINPACK.

The search refines thousands of small fits per episode (a few constants,
a few dozen readings). For them least_squares' own Python (argument
checks, the VectorFunction and its wrappers, approx_derivative's options
and bounds, the Jacobian it evaluates once more after MINPACK returns)
cost about as much as the residuals themselves. `solve_lm` hands MINPACK's
`_lmder` (the routine least_squares calls) the same residuals and the same
forward-difference Jacobian, computed by the same floating-point
operations in the same order (the step is scipy's own
`_compute_absolute_step`), and answers a repeated point from the last one
evaluated exactly as least_squares' VectorFunction does (`np.array_equal`),
so MINPACK takes the same steps to the same bits. Only x is returned.
`tests/test_baseline_lm.py` compares it with least_squares bit for bit.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

#: MINPACK's defaults as least_squares passes them (ftol, xtol, gtol; step bound factor).
_TOL = 1e-8
_FACTOR = 100.0


class _Residuals:
    """least_squares' VectorFunction for one fit: the last point evaluated,
    its residuals and its Jacobian, recomputed only when a different point
    (by np.array_equal) is asked for."""

    def __init__(self, fun: Callable[[np.ndarray], np.ndarray], x0: np.ndarray):
        self._fun = fun
        self.x = x0.astype(float)
        self.f = self._eval(self.x.copy())
        self.J = self._jacobian()

    def _eval(self, x: np.ndarray) -> np.ndarray:
        f = self._fun(x)
        # np.atleast_1d(f) without its wrapper: an array of at least one dimension is returned as it is
        return f if type(f) is np.ndarray and f.ndim else np.atleast_1d(f)

    def _jacobian(self) -> np.ndarray:
        """approx_derivative(method='2-point', f0=self.f) at self.x, unbounded."""
        x0, f0 = self.x.copy(), self.f
        h = _step(x0, f0)
        moved = x0 + h  # x0[i] + h[i] for every i at once: the same sums, elementwise
        dx = moved - x0
        jt = np.empty((x0.size, f0.size))
        for i in range(x0.size):
            x1 = x0.copy()  # a fresh float64 copy, as approx_derivative's x1.astype(x0.dtype)
            x1[i] = moved[i]
            jt[i] = (self._eval(x1) - f0) / dx[i]
        return np.atleast_2d(jt.T)

    def _move(self, x) -> bool:
        x = np.asarray(x)  # np.array_equal(x, self.x) without its wrappers: shapes, then every element
        if x.shape == self.x.shape and bool((x == self.x).all()):
            return False
        self.x = np.atleast_1d(np.asarray(x)).astype(float)
        self.f = self.J = None
        return True

    def fun(self, x) -> np.ndarray:
        self._move(x)
        if self.f is None:
            self.f = self._eval(self.x.copy())
        return self.f.copy()

    def jac(self, x) -> np.ndarray:
        self._move(x)
        if self.J is None:
            if self.f is None:
                self.f = self._eval(self.x.copy())
            self.J = self._jacobian()
        return self.J.astype(self.J.dtype)


def _step(x0: np.ndarray, f0: np.ndarray) -> np.ndarray:
    """scipy's _compute_absolute_step(None, x0, f0, "2-point"), the forward
    difference's step: for float64 constants and residuals (every fit here)
    its own operations in its order, with its relative step (_eps_for_method,
    which scipy caches by dtype) looked up once instead of at every Jacobian;
    else scipy's function itself (both found by solve_lm: _SCIPY)."""
    if x0.dtype != np.float64 or f0.dtype != np.float64:
        return _SCIPY["step"](None, x0, f0, "2-point")
    sign_x0 = (x0 >= 0).astype(float) * 2 - 1
    return _SCIPY["rstep"] * sign_x0 * np.maximum(1.0, np.abs(x0))


#: scipy's absolute step function and its relative step for float64 (_step), set by solve_lm.
_SCIPY: dict = {}


def solve_lm(fun: Callable[[np.ndarray], np.ndarray], x0: np.ndarray, max_nfev: int) -> np.ndarray:
    """least_squares(fun, x0, method="lm", max_nfev=max_nfev).x, for a real
    x0 of at least one constant and a `fun` that returns more residuals than
    that; raises ValueError where least_squares would."""
    try:
        from scipy.optimize._minpack import _lmder
        from scipy.optimize._numdiff import _compute_absolute_step, _eps_for_method
    except ImportError:  # a scipy whose private names moved: its own least_squares, the same method
        from scipy.optimize import least_squares
        return least_squares(fun, x0, method="lm", x_scale="jac", max_nfev=max_nfev).x
    if not _SCIPY:
        _SCIPY.update(step=_compute_absolute_step,
                      rstep=_eps_for_method(np.dtype(np.float64), np.dtype(np.float64), "2-point"))

    x0 = np.atleast_1d(x0).astype(float)
    if x0.ndim != 1 or x0.size == 0 or max_nfev <= 0:
        raise ValueError("solve_lm needs a vector of constants and a positive max_nfev")
    if not np.all((x0 >= -np.inf) & (x0 <= np.inf)):
        raise ValueError("Initial guess is outside of provided bounds")  # a NaN, as least_squares says
    res = _Residuals(fun, x0)
    f0 = res.fun(x0)
    res.jac(x0)
    if f0.ndim != 1 or not np.all(np.isfinite(f0)):
        raise ValueError("Residuals are not finite in the initial point.")
    if f0.size < x0.size:
        raise ValueError("Method 'lm' doesn't work when the number of residuals is less than the number of variables.")
    x, _, _ = _lmder(res.fun, res.jac, x0.astype(x0.dtype), (), True, False, _TOL, _TOL, _TOL, max_nfev, _FACTOR, None)
    return x
