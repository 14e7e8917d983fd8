"""Spectral solutions of two 1-D periodic PDEs with ``typedax.numpy.fft``,
each checked against its exact solution.

1. The heat equation ``u_t = nu u_xx`` on ``[0, 2 pi)``: each Fourier mode
   decays as ``exp(-nu k^2 t)``, so one ``rfft``, a multiplication and an
   ``irfft`` give ``u(x, t)`` for a sum of sines to rounding.
2. The Korteweg-de Vries equation ``u_t + 6 u u_x + u_xxx = 0`` on
   ``[-L/2, L/2)``, from a soliton ``u = c/2 sech^2(sqrt(c)/2 (x - x0))``,
   whose exact solution travels unchanged at speed ``c``. The
   pseudo-spectral method: derivatives in Fourier space (``rfft``/``irfft``),
   the product ``u^2`` in real space (2/3-rule dealiased); the stiff linear
   term ``u_xxx`` solved exactly by an integrating factor, the nonlinear
   term stepped by classical Runge-Kutta (RK4) -- every step one body of a
   ``lax.scan`` under ``jit``.

It prints the largest error against the exact solution and saves a plot
(``demo-output/spectral_pde/kdv.png``, when matplotlib is installed: ``pip
install -e '.[demo]'``).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax import Array, lax

OUT_DIR = Path("demo-output") / "spectral_pde"


def heat(n: int = 64, nu: float = 0.1, t: float = 2.0) -> float:
    """The heat equation's Fourier solution against the exact one; the
    largest error."""
    x = np.arange(n) * (2 * np.pi / n)
    modes = {1: 1.0, 3: -0.5, 7: 0.25}
    u0 = sum(a * np.sin(k * x) for k, a in modes.items())
    k = tnp.fft.rfftfreq(n, 1.0 / n)  # wavenumbers 0, 1, ..., n/2
    u = tnp.fft.irfft(tnp.fft.rfft(tnp.asarray(u0)) * tnp.exp(-nu * k**2 * t), n)
    exact = sum(a * np.exp(-nu * k_ * k_ * t) * np.sin(k_ * x) for k_, a in modes.items())
    return float(np.max(np.abs(np.asarray(u) - exact)))


def soliton(x: np.ndarray[Any, np.dtype[np.float64]], t: float, c: float, x0: float, length: float) -> np.ndarray[Any, np.dtype[np.float64]]:
    """The exact KdV soliton at time ``t`` (its centre wrapped into the period)."""
    centre = (x0 + c * t + length / 2) % length - length / 2
    z = x - centre
    z = (z + length / 2) % length - length / 2  # the nearest image on the circle
    return np.asarray(c / 2 / np.cosh(np.sqrt(c) / 2 * z) ** 2)


def kdv(n: int = 256, length: float = 40.0, c: float = 1.0, x0: float = -10.0, t_end: float = 4.0,
        dt: float = 0.005, snapshots: int = 4) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], float]:
    """Integrate KdV from the soliton to ``t_end``; the grid, the solution at
    ``snapshots + 1`` equally spaced times (rows), and the largest error
    against the exact soliton at those times."""
    x = (np.arange(n) / n - 0.5) * length
    k = tnp.asarray(2 * np.pi / length * np.arange(n // 2 + 1))
    dealias = tnp.asarray(np.arange(n // 2 + 1) < n / 3)  # the 2/3 rule
    steps = round(t_end / dt / snapshots)

    def nonlinear(v_hat: Array, t: Array) -> Array:
        # the integrating factor: u_hat = exp(i k^3 t) v_hat solves the linear part exactly
        phase = tnp.exp(1j * k**3 * t)
        u = tnp.fft.irfft(phase * v_hat, n)
        n_hat = -3j * k * tnp.where(dealias, tnp.fft.rfft(u * u), 0)  # -6 u u_x = -3 (u^2)_x
        return n_hat / phase

    def rk4(carry: tuple[Array, Array], _: None) -> tuple[tuple[Array, Array], None]:
        v, t = carry
        k1 = nonlinear(v, t)
        k2 = nonlinear(v + dt / 2 * k1, t + dt / 2)
        k3 = nonlinear(v + dt / 2 * k2, t + dt / 2)
        k4 = nonlinear(v + dt * k3, t + dt)
        return (v + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4), t + dt), None

    @tdx.jit
    def advance(v: Array, t: Array) -> tuple[Array, Array]:
        (v, t), _ = lax.scan(rk4, (v, t), None, length=steps)
        return v, t

    v, t = tnp.fft.rfft(tnp.asarray(soliton(x, 0.0, c, x0, length))), tnp.asarray(0.0)
    rows, err = [np.asarray(tnp.fft.irfft(v, n))], 0.0
    for _ in range(snapshots):
        v, t = advance(v, t)
        u = np.asarray(tnp.fft.irfft(tnp.exp(1j * k**3 * t) * v, n))
        err = max(err, float(np.max(np.abs(u - soliton(x, float(t), c, x0, length)))))
        rows.append(u)
    return x, np.stack(rows), err


def plot(x: np.ndarray[Any, Any], rows: np.ndarray[Any, Any], t_end: float, c: float, x0: float, length: float,
         out_dir: Path) -> Path | None:
    """Save the numerical snapshots over the exact soliton; None without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only, no window
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib is not installed: no plot; `pip install -e '.[demo]'` adds it)")
        return None
    out_dir.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    times = np.linspace(0.0, t_end, len(rows))
    for i, (t, u) in enumerate(zip(times, rows)):
        ax.plot(x, soliton(x, float(t), c, x0, length), color="0.7", lw=3, label="exact" if i == 0 else None)
        ax.plot(x, u, lw=1, label=f"t = {t:g}")
    ax.set_xlabel("x")
    ax.set_ylabel("u")
    ax.set_title("KdV soliton: pseudo-spectral (typedax.numpy.fft) vs exact")
    ax.legend(fontsize=7)
    path = out_dir / "kdv.png"
    fig.savefig(path, dpi=80, bbox_inches="tight")
    plt.close(fig)
    return path


def main(figures: bool = True, out_dir: Path = OUT_DIR, n: int = 256, t_end: float = 4.0) -> float:
    """Run both; the KdV error (returned for the tests)."""
    print(f"heat equation, Fourier solution vs exact: max |error| = {heat():.2e}")
    c, x0, length = 1.0, -10.0, 40.0
    x, rows, err = kdv(n=n, length=length, c=c, x0=x0, t_end=t_end)
    dtype = np.asarray(rows).dtype
    print(f"KdV soliton (N = {n}, {dtype}), integrating-factor RK4 in lax.scan to t = {t_end:g}: "
          f"max |error| = {err:.2e} (peak height {c / 2:g})")
    if not math.isfinite(err) or err > 1e-3:
        raise RuntimeError(f"the KdV solution strayed from the exact soliton: max |error| = {err}")
    if figures:
        path = plot(x, rows, t_end, c, x0, length, out_dir)
        if path is not None:
            print(f"saved the plot to {path.resolve()}")
    return err


if __name__ == "__main__":
    main(figures="--no-figures" not in sys.argv[1:])
