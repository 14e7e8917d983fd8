"""Control flow: the tutorial's Part 5 (``cond``), a differentiable ODE
simulation written with ``scan``, and Newton's method with ``while_loop``."""

from __future__ import annotations

import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax import lax
from typedax.core.errors import ReverseModeError
from typedax import Array, ArrayLike

STEPS = 200
DT = 0.05


def tutorial_part5() -> None:
    print("== the tutorial's Part 5")
    print("cond(True, lambda: 3, lambda: 4) =", lax.cond(True, lambda: 3, lambda: 4))
    _, out_tan = tdx.jvp(lambda x: lax.cond(True, lambda: x * x, lambda: 0.0), (1.0,), (1.0,))
    print("jvp tangent:", out_tan)
    xs = np.array([1.0, 2.0, 3.0])
    print("vmap:", tdx.vmap(lambda x: lax.cond(True, lambda: x + 1.0, lambda: 0.0), (0,))(xs))
    print("jit:", tdx.jit(lambda: lax.cond(False, lambda: 1, lambda: 2))())
    _, f_lin = tdx.linearize(lambda x: lax.cond(True, lambda: x, lambda: 0.0), 1.0)
    print("linearize:", f_lin(3.14))
    _, f_lin = tdx.linearize(tdx.jit(lambda x: lax.cond(True, lambda: x, lambda: 0.0)), 1.0)
    print("linearize of jit:", f_lin(3.14))
    print("grad:", tdx.grad(lambda x: lax.cond(True, lambda: x * x, lambda: 0.0))(1.0))


# -- a damped pendulum, integrated with scan (semi-implicit Euler) -----------------


def pendulum_energy(damping: ArrayLike) -> Array:
    """The pendulum's energy after ``STEPS`` steps, as a function of damping."""

    def step(state: tuple[Array, Array], _: None) -> tuple[tuple[Array, Array], Array]:
        theta, omega = state
        omega = omega - DT * (lax.sin(theta) + damping * omega)
        theta = theta + DT * omega
        return (theta, omega), theta

    (theta, omega), _ = lax.scan(step, (1.0, 0.0), None, length=STEPS)
    return 0.5 * omega * omega + (1.0 - lax.cos(theta))


def pendulum_reference(damping: float) -> float:
    theta, omega = 1.0, 0.0
    for _ in range(STEPS):
        omega = omega - DT * (np.sin(theta) + damping * omega)
        theta = theta + DT * omega
    return float(0.5 * omega * omega + 1.0 - np.cos(theta))


def simulation() -> None:
    print(f"\n== a damped pendulum, {STEPS} steps of lax.scan; d energy / d damping")
    d = 0.3
    energy = float(np.asarray(pendulum_energy(d)))
    print(f"energy(damping={d}) = {energy:.10f} (Python loop: {pendulum_reference(d):.10f})")
    g = float(np.asarray(tdx.grad(pendulum_energy)(d)))
    g_jit = float(np.asarray(tdx.jit(tdx.grad(pendulum_energy))(d)))
    eps = 1e-6
    fd = (pendulum_reference(d + eps) - pendulum_reference(d - eps)) / (2 * eps)
    print(f"grad = {g:.10f}, jit(grad) = {g_jit:.10f}, finite differences = {fd:.10f}")
    assert abs(g - fd) < 1e-6 and abs(g_jit - fd) < 1e-6


# -- Newton's method with while_loop ----------------------------------------------


def cube_root(a: ArrayLike) -> Array:
    """The real root of x**3 = a, by Newton's method until the step is tiny."""

    def keep_going(state: tuple[Array, Array, Array]) -> Array:
        _, step, i = state
        return lax.select(lax.lt(i, 50), lax.gt(lax.abs(step), 1e-12), False)

    def newton(state: tuple[Array, Array, Array]) -> tuple[Array, Array, Array]:
        x, _, i = state
        step = (x * x * x - a) / (3.0 * x * x)
        return x - step, step, i + 1

    x, _, _ = lax.while_loop(keep_going, newton, (tnp.ones_like(a), 1.0, 0))
    return x


def newton() -> None:
    print("\n== Newton's method with lax.while_loop: cube roots")
    for a in (2.0, 27.0, 1000.0):
        x = float(np.asarray(cube_root(a)))
        xj = float(np.asarray(tdx.jit(cube_root)(a)))
        print(f"cbrt({a}) = {x:.12f} (jit {xj:.12f}, NumPy {np.cbrt(a):.12f})")
    batch = np.array([8.0, 0.125, 64.0])
    print("vmap over", batch, "->", tdx.vmap(cube_root)(batch))
    _, t = tdx.jvp(cube_root, (8.0,), (1.0,))
    print(f"jvp at 8: {float(np.asarray(t)):.12f} (exact 1/(3 cbrt(8)^2) = {1 / 12:.12f})")
    try:
        tdx.grad(cube_root)(8.0)
    except ReverseModeError as e:
        print("grad through while_loop:", str(e).split(":")[0] + ": ...")


def main() -> None:
    tutorial_part5()
    simulation()
    newton()


if __name__ == "__main__":
    main()
