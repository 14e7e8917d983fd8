"""JAX's "Introduction to parallel programming" guide
(``docs/sharded-computation.md``, as at JAX 0.10: jax-ml/jax d3f9ee6825^)
ported to typedax on 8 host devices (issue 25's porting acceptance; run by
``tests/test_sharding.py`` in a process with ``XLA_FLAGS`` set).

Every code cell of its automatic (``jit`` on sharded arrays), explicit
(``typeof``, ``set_mesh``) and manual (``shard_map``, ``psum``, the
three-way layer) sections runs, in order and in one namespace as a
notebook runs them, under each library's imports; a cell's printed lines
and the ``repr`` of its last expression (what the notebook displays) are
compared with JAX's, cell by cell. After some cells the test also prints
what the guide only shows in pictures or leaves implicit -- the result's
``sharding``, ``typeof`` and shape (``PROBES``); the same lines under both.

Changes to the guide's text:

- the imports (``import typedax as jax``, ``typedax.numpy as jnp``,
  ``typedax.sharding``);
- cell 1's ``jax.config.update('jax_num_cpu_devices', 8)`` is left out:
  the 8 devices come from ``XLA_FLAGS``, set before either library starts
  (the setting itself is tested in ``tests/test_sharding.py``);
- ``jax.debug.visualize_array_sharding`` needs ``rich``, which is not
  installed (JAX raises without it): both libraries call ``layout`` in its
  place, which prints which devices hold which index of the array -- the
  picture's content, as text (typedax's own, a plain-text table, is
  checked against JAX's device placement below);
- 32-bit types, JAX's default, for typedax (``enable_x64=False``).

``make_mesh`` makes Explicit axes by default in both (JAX 0.10's
default), so the guide's bare ``jax.make_mesh((2, 4), ('x', 'y'))`` makes
the same mesh in both and the guide runs verbatim in each; a second run
gives those calls Auto axes in both (the guide as written before JAX 0.10,
when its automatic section's meshes were Auto).

The older revision's "Semi-automated sharding with constraints" cells (the
guide before its explicit section replaced them, jax-ml/jax 2e808f2836):
``with_sharding_constraint`` inside ``jit``, are ``EXTRA_CELLS``; its
memory-kind cells (``pinned_host``) are not ported. The guide has no
training loop: the data- and tensor-parallel MLPs are
``tests/sharded/test_parallel_mlp.py``'s.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import os
import re
import textwrap

import pytest

if "--xla_force_host_platform_device_count=8" not in os.environ.get("XLA_FLAGS", ""):
    pytest.skip("needs 8 host devices: tests/test_sharding.py runs it so", allow_module_level=True)

import jax
import numpy as np

import typedax as tdx
import typedax.numpy as tnp
from typedax.core.errors import ShardingError
from typedax.sharding import NamedSharding, P, set_mesh

jax.config.update("jax_use_shardy_partitioner", False)  # type: ignore[no-untyped-call]  # jax's config is untyped; GSPMD, as typedax compiles

#: The guide's code cells, numbered as in the guide (cell 1 without its
#: ``jax.config.update``; ``layout`` for ``jax.debug.visualize_array_sharding``).
CELLS: dict[int, str] = {
    1: """
        import jax
    """,
    2: """
        jax.devices()
    """,
    3: """
        import numpy as np
        import jax.numpy as jnp

        arr = jnp.arange(32.0).reshape(4, 8)
        arr.devices()
    """,
    4: """
        arr.sharding
    """,
    5: """
        jax.debug.visualize_array_sharding(arr)
    """,
    6: """
        from jax.sharding import PartitionSpec as P

        mesh = jax.make_mesh((2, 4), ('x', 'y'))
        sharding = jax.sharding.NamedSharding(mesh, P('x', 'y'))
        print(sharding)
    """,
    7: """
        arr_sharded = jax.device_put(arr, sharding)

        print(arr_sharded)
        jax.debug.visualize_array_sharding(arr_sharded)
    """,
    # 1. Automatic parallelism via jit
    8: """
        @jax.jit
        def f_elementwise(x):
          return 2 * jnp.sin(x) + 1

        result = f_elementwise(arr_sharded)

        print("shardings match:", result.sharding == arr_sharded.sharding)
    """,
    9: """
        @jax.jit
        def f_contract(x):
          return x.sum(axis=0)

        result = f_contract(arr_sharded)
        jax.debug.visualize_array_sharding(result)
        print(result)
    """,
    # 2. Explicit sharding
    10: """
        some_array = np.arange(8)
        print(f"JAX-level type of some_array: {jax.typeof(some_array)}")
    """,
    11: """
        @jax.jit
        def foo(x):
          print(f"JAX-level type of x during tracing: {jax.typeof(x)}")
          return x + x

        foo(some_array)
    """,
    12: """
        from jax.sharding import AxisType

        mesh = jax.make_mesh((2, 4), ("X", "Y"),
                             axis_types=(AxisType.Explicit, AxisType.Explicit))
    """,
    13: """
        replicated_array = np.arange(8).reshape(4, 2)
        sharded_array = jax.device_put(replicated_array, jax.NamedSharding(mesh, P("X", None)))

        print(f"replicated_array type: {jax.typeof(replicated_array)}")
        print(f"sharded_array type: {jax.typeof(sharded_array)}")
    """,
    14: """
        arg0 = jax.device_put(np.arange(4).reshape(4, 1),
                              jax.NamedSharding(mesh, P("X", None)))
        arg1 = jax.device_put(np.arange(8).reshape(1, 8),
                              jax.NamedSharding(mesh, P(None, "Y")))

        @jax.jit
        def add_arrays(x, y):
          ans = x + y
          print(f"x sharding: {jax.typeof(x)}")
          print(f"y sharding: {jax.typeof(y)}")
          print(f"ans sharding: {jax.typeof(ans)}")
          return ans

        with jax.set_mesh(mesh):
          add_arrays(arg0, arg1)
    """,
    # 3. Manual parallelism with shard_map
    15: """
        mesh = jax.make_mesh((8,), ('x',))

        f_elementwise_sharded = jax.shard_map(
            f_elementwise,
            mesh=mesh,
            in_specs=P('x'),
            out_specs=P('x'))

        arr = jax.device_put(jnp.arange(32), jax.NamedSharding(mesh, P('x')))
        f_elementwise_sharded(arr)
    """,
    16: """
        x = jax.device_put(jnp.arange(32), jax.NamedSharding(mesh, P('x')))
        print(f"global shape: {x.shape=}")

        def f(x):
          print(f"device local shape: {x.shape=}")
          return x * 2

        y = jax.shard_map(f, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)
    """,
    17: """
        def f(x):
          return jnp.sum(x, keepdims=True)

        jax.shard_map(f, mesh=mesh, in_specs=P('x'), out_specs=P('x'))(x)
    """,
    18: """
        def f(x):
          sum_in_shard = x.sum()
          return jax.lax.psum(sum_in_shard, 'x')

        jax.shard_map(f, mesh=mesh, in_specs=P('x'), out_specs=P())(x)
    """,
    # Comparing the three approaches
    19: """
        @jax.jit
        def layer(x, weights, bias):
          return jax.nn.sigmoid(x @ weights + bias)
    """,
    20: """
        import numpy as np
        rng = np.random.default_rng(0)

        x = rng.normal(size=(32,))
        weights = rng.normal(size=(32, 4))
        bias = rng.normal(size=(4,))

        layer(x, weights, bias)
    """,
    21: """
        mesh = jax.make_mesh((8,), ('x',))
        x_sharded = jax.device_put(x, jax.NamedSharding(mesh, P('x')))
        weights_sharded = jax.device_put(weights, jax.NamedSharding(mesh, P()))

        layer(x_sharded, weights_sharded, bias)
    """,
    22: """
        explicit_mesh = jax.make_mesh((8,), ('X',), axis_types=(AxisType.Explicit,))

        x_sharded = jax.device_put(x, jax.NamedSharding(explicit_mesh, P('X')))
        weights_sharded = jax.device_put(weights, jax.NamedSharding(explicit_mesh, P()))

        @jax.jit
        def layer_auto(x, weights, bias):
          print(f"x sharding: {jax.typeof(x)}")
          print(f"weights sharding: {jax.typeof(weights)}")
          print(f"bias sharding: {jax.typeof(bias)}")
          out = layer(x, weights, bias)
          print(f"out sharding: {jax.typeof(out)}")
          return out

        with jax.set_mesh(explicit_mesh):
          layer_auto(x_sharded, weights_sharded, bias)
    """,
    23: """
        from functools import partial

        @jax.jit
        @partial(jax.shard_map, mesh=mesh,
                 in_specs=(P('x'), P('x', None), P(None)),
                 out_specs=P(None))
        def layer_sharded(x, weights, bias):
          return jax.nn.sigmoid(jax.lax.psum(x @ weights, 'x') + bias)

        rep_s = jax.NamedSharding(mesh, P())
        sharded_s = jax.NamedSharding(mesh, P('x'))
        x, weights, bias = jax.device_put((x, weights, bias), (sharded_s, sharded_s, rep_s))
        layer_sharded(x, weights, bias)
    """,
}

#: The older revision's with_sharding_constraint cells (2e808f2836), run
#: after the cell named: ``f_contract_2`` on cell 9's 2x4 mesh, and
#: ``layer_auto`` distributing unsharded inputs on cell 21's 8-device mesh.
EXTRA_CELLS: dict[int, str] = {
    9: """
        @jax.jit
        def f_contract_2(x):
          out = x.sum(axis=0)
          sharding = jax.sharding.NamedSharding(mesh, P('x'))
          return jax.lax.with_sharding_constraint(out, sharding)

        result = f_contract_2(arr_sharded)
        jax.debug.visualize_array_sharding(result)
        print(result)
    """,
    21: """
        sharding = jax.sharding.NamedSharding(mesh, P('x'))

        @jax.jit
        def layer_auto(x, weights, bias):
          x = jax.lax.with_sharding_constraint(x, sharding)
          weights = jax.lax.with_sharding_constraint(weights, sharding)
          return layer(x, weights, bias)

        layer_auto(x, weights, bias)  # pass in unsharded inputs
    """,
}

#: Lines the test adds after a cell (after its extra cell, if any): what the
#: guide shows as a picture or leaves unprinted.
PROBES: dict[int, str] = {
    7: "print(arr_sharded.sharding, jax.typeof(arr_sharded), arr_sharded.is_fully_replicated)",
    8: "print(result.sharding, jax.typeof(result))",
    9: "print(result.sharding, jax.typeof(result), result.shape)",
    13: "print(sharded_array.sharding)",
    15: """
        out = f_elementwise_sharded(arr)
        print(out.sharding, jax.typeof(out), out.dtype)
    """,
    16: "print(y.sharding, y.shape, np.asarray(y).tolist())",
    18: """
        out = jax.shard_map(f, mesh=mesh, in_specs=P('x'), out_specs=P())(x)
        print(out.sharding, out.shape)
    """,
    21: """
        out = layer(x_sharded, weights_sharded, bias)
        print(out.sharding, jax.typeof(out), x_sharded.sharding)
        layout(x_sharded)
    """,
    23: """
        print(x.sharding, weights.sharding, bias.sharding, type(x).__name__ != 'tuple')
        out = layer_sharded(x, weights, bias)
        print(out.sharding, out.shape)
        layout(weights)
    """,
}

IMPORTS = {
    "jax": {},
    "typedax": {
        "import jax\n": "import typedax as jax\n",
        "import jax.numpy as jnp": "import typedax.numpy as jnp",
        "from jax.sharding import": "from typedax.sharding import",
    },
}

#: The guide's ``make_mesh`` calls without ``axis_types`` (cells 6, 15, 21).
BARE_MESH = re.compile(r"jax\.make_mesh\((\((?:\d+, )*\d+,?\)), (\((?:'\w+', )*'\w+',?\))\)")


def layout(a: object) -> None:
    """``visualize_array_sharding``'s content as text: each shard's index
    and the devices holding it."""
    held: dict[str, list[int]] = {}
    for s in a.addressable_shards:  # type: ignore[attr-defined]  # a jax.Array or a typedax Array
        key = ", ".join(":" if i == slice(None) else f"{i.start}:{i.stop}" for i in s.index)
        held.setdefault(key, []).append(s.device.id)
    print(" | ".join(f"[{k}] on {sorted(v)}" for k, v in held.items()))


def sources(lib: str, cell: int, axis_types: str | None) -> list[str]:
    """Cell ``cell``'s code, then its extra cell and probes (each run as a
    cell of its own), under ``lib``'s imports; bare ``make_mesh`` calls
    given ``axis_types`` ('Explicit' or 'Auto') if asked."""
    chunks = [textwrap.dedent(m[cell]).strip("\n") + "\n" for m in (CELLS, EXTRA_CELLS, PROBES) if cell in m]
    return [_edit(lib, code, axis_types) for code in chunks]


def _edit(lib: str, code: str, axis_types: str | None) -> str:
    for old, new in IMPORTS[lib].items():
        code = code.replace(old, new)
    code = code.replace("jax.debug.visualize_array_sharding(", "layout(")
    if axis_types is not None:
        code = BARE_MESH.sub(
            lambda m: f"jax.make_mesh({m[1]}, {m[2]}, axis_types=(jax.sharding.AxisType.{axis_types},) * "
                      f"{m[1].count(',') - m[1].endswith(',)') + 1})",
            code)
    return code


def run_cell(code: str, name: str, namespace: dict[str, object]) -> str:
    """What a notebook shows for the cell: its printed lines, then the
    ``repr`` of its last expression (unless ``None``); an exception's type
    and first line in their place."""
    out = io.StringIO()
    body = ast.parse(code)
    last = body.body.pop() if body.body and isinstance(body.body[-1], ast.Expr) else None
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(body, name, "exec"), namespace)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), name, "eval"), namespace)  # type: ignore[attr-defined]  # an ast.Expr
                if value is not None:
                    print(repr(value))
    except Exception as e:  # the cell's failure is its output: compared as JAX's
        out.write(f"{builtin_class(e)}: {str(e).splitlines()[0] if str(e) else ''}\n")
    return out.getvalue()


def builtin_class(e: Exception) -> str:
    """The nearest built-in class of ``e`` (JAX's ``ValueError``, typedax's
    ``ShardingError``, a ``ValueError``: tests/test_error_classes.py)."""
    return next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins" and c is not Exception)


@functools.cache
def run_guide(lib: str, axis_types: str | None) -> dict[int, str]:
    """Each cell's output, the cells run in order in one namespace."""
    namespace: dict[str, object] = {"layout": layout}
    setting = tdx.config.context(enable_x64=False) if lib == "typedax" else contextlib.nullcontext()
    try:
        with setting:
            return {c: "".join(run_cell(code, f"<{lib}:cell {c}>", namespace) for code in sources(lib, c, axis_types))
                    for c in CELLS}
    finally:
        jax.set_mesh(None)
        set_mesh(None)


@pytest.mark.parametrize("cell", list(CELLS))
def test_the_guide_verbatim_in_both(cell: int) -> None:
    """The guide verbatim in both: bare ``make_mesh`` calls make Explicit axes."""
    assert run_guide("typedax", None)[cell] == run_guide("jax", None)[cell]


@pytest.mark.parametrize("cell", list(CELLS))
def test_the_guide_on_auto_meshes(cell: int) -> None:
    """The guide with its bare ``make_mesh`` calls given Auto axes, in both."""
    assert run_guide("typedax", "Auto")[cell] == run_guide("jax", "Auto")[cell]


def failing(outs: dict[int, str]) -> set[int]:
    return {c for c, text in outs.items() if re.search(r"^\w+(Error|Exception): ", text, re.M)}


def test_the_guide_runs_cleanly() -> None:
    """On Auto meshes no cell fails, and the layer's values are the
    guide's; verbatim (Explicit meshes) only the older revision's
    ``with_sharding_constraint`` cells fail (as in JAX: a constraint names
    Auto axes only, ``reshard`` moves Explicit ones)."""
    outs = run_guide("typedax", "Auto")
    assert not failing(outs), outs
    assert failing(run_guide("typedax", None)) == failing(run_guide("jax", None)) == set(EXTRA_CELLS)
    assert "Array(496, dtype=int32)" in outs[18] and "device local shape: x.shape=(4,)" in outs[16]
    assert "[0:2, 0:2] on [0] | [0:2, 2:4] on [1]" in outs[7] and "[28:32, :] on [7]" in outs[23]
    assert "[0:2] on [0, 4] | [2:4] on [1, 5]" in outs[9]  # "the first two elements ... on devices 0 and 4"
    rng = np.random.default_rng(0)
    x, w, b = rng.normal(size=(32,)), rng.normal(size=(32, 4)), rng.normal(size=(4,))
    expected = 1 / (1 + np.exp(-(x @ w + b)))
    for c in (20, 21, 22, 23):  # the layer, unsharded, sharded by jit (twice), explicitly and by shard_map
        for printed in re.findall(r"Array\(\[([^\]]*)\]", outs[c]):
            np.testing.assert_allclose(np.array(printed.split(","), dtype=np.float64), expected, rtol=1e-6)


def test_device_put_of_a_pytree() -> None:
    """``device_put`` maps over a pytree, the placement one for all leaves
    or a pytree prefix of them (cell 23), as JAX's."""
    mesh = tdx.make_mesh((8,), ("x",))
    rep, split = NamedSharding(mesh, P()), NamedSharding(mesh, P("x"))
    a, (b, c) = tdx.device_put((tnp.ones(8), (tnp.zeros(8), tnp.arange(16.0))), (split, rep))
    assert a.sharding == split and b.sharding == rep and c.sharding == rep
    d = tdx.device_put({"u": tnp.ones(8), "v": tnp.arange(16.0)}, split)
    assert d["u"].sharding == split and d["v"].sharding == split
    (e,) = tdx.device_put([tnp.arange(16.0)], split)  # (numpy leaves: cell 23)
    assert e.sharding == split and np.array_equal(np.asarray(e), np.arange(16.0))
    with pytest.raises(ShardingError, match="not a pytree prefix"):
        tdx.device_put((np.ones(8), np.ones(8)), (split, split, rep))
    with pytest.raises(ShardingError, match="not a pytree prefix"):
        tdx.device_put(np.ones(8), (split,))  # type: ignore[call-overload]  # the error under test
    with pytest.raises(ShardingError, match="expected a device or a sharding"):
        tdx.device_put((np.ones(8),), ("x",))


WSC_EXPLICIT = """
    mesh = jax.make_mesh((2, 4), ('x', 'y'), axis_types=(AxisType.Explicit, AxisType.Auto))
    x = jax.device_put(np.arange(32.).reshape(8, 4), jax.NamedSharding(mesh, P('x', None)))
    for spec in [P('x', 'y'), P(None, 'y'), P('x')]:
      try:
        out = jax.jit(lambda v: jax.lax.with_sharding_constraint(v * 2, jax.NamedSharding(mesh, spec)))(x)
        print(out.sharding.mesh, jax.typeof(out), float(out.sum()))
      except Exception as e:
        print(builtin_class(e), e)
    emesh = jax.make_mesh((2, 4), ('x', 'y'), axis_types=(AxisType.Explicit,) * 2)
    with jax.set_mesh(emesh):
      z = jax.reshard(np.arange(32.).reshape(8, 4), P('x', None))
      for spec in [P('x'), P('x', None), P(None, 'y'), P('y')]:
        for f in [jax.jit(lambda v: jax.lax.with_sharding_constraint(v, spec)),
                  lambda v: jax.lax.with_sharding_constraint(v, spec)]:
          try:
            out = f(z)
            print(out.sharding, jax.typeof(out))
          except Exception as e:
            print(builtin_class(e), e)
"""


def run_snippet(code: str) -> list[str]:
    """``code``'s output under JAX's and typedax's imports (a fresh namespace each)."""
    outs = []
    for lib in ("jax", "typedax"):
        header = "import numpy as np\nimport jax\nfrom jax.sharding import PartitionSpec as P, AxisType\n"
        namespace: dict[str, object] = {"builtin_class": builtin_class, "layout": layout}
        setting = tdx.config.context(enable_x64=False) if lib == "typedax" else contextlib.nullcontext()
        try:
            with setting:
                outs.append(run_cell(_edit(lib, header + textwrap.dedent(code), None), f"<{lib}:snippet>", namespace))
        finally:
            jax.set_mesh(None)
            set_mesh(None)
    return outs


def test_with_sharding_constraint_on_explicit_axes_as_jax() -> None:
    """A constraint names Auto axes only (``ValueError``), keeps an array's
    type on Explicit ones (under ``jit``), and under a mesh whose axes are all Explicit
    asserts the array's type (``AssertionError``): JAX's checks, which the
    older revision's cells meet on JAX 0.10's default meshes."""
    theirs, ours = run_snippet(WSC_EXPLICIT)
    assert ours == theirs
    assert theirs.count("ValueError") == 2 and theirs.count("AssertionError") == 4


def test_jit_output_on_a_mixed_mesh_as_jax() -> None:
    theirs, ours = run_snippet("""
        mesh = jax.make_mesh((2, 4), ('x', 'y'), axis_types=(AxisType.Explicit, AxisType.Auto))
        x = jax.device_put(np.arange(32.).reshape(8, 4), jax.NamedSharding(mesh, P('x', None)))
        out = jax.jit(lambda v: jax.lax.with_sharding_constraint(v * 2, jax.NamedSharding(mesh, P(None, 'y'))))(x)
        print(out.sharding.spec, jax.typeof(out))
    """)
    assert ours == theirs


def test_visualize_array_sharding_draws_the_layout(capsys: pytest.CaptureFixture[str]) -> None:
    """typedax's ``visualize_array_sharding`` (JAX's needs ``rich``): a row
    of the table per block row, each block naming the devices holding it,
    as JAX's ``devices_indices_map`` places them (cells 5, 7 and 9)."""
    x = np.arange(32.0, dtype=np.float32).reshape(4, 8)
    mesh, jmesh = tdx.make_mesh((2, 4), ("x", "y")), jax.make_mesh((2, 4), ("x", "y"))
    for spec, f in [(P(), None), (P("x", "y"), None), (P("x", "y"), lambda v: v.sum(axis=0)), (P(None, "y"), None),
                    (P("y"), None)]:
        ours = tdx.device_put(x, NamedSharding(mesh, spec))
        theirs = jax.device_put(x, jax.NamedSharding(jmesh, jax.P(*spec)))  # type: ignore[no-untyped-call]  # jax's P is untyped
        if f is not None:
            ours, theirs = tdx.jit(f)(ours), jax.jit(f)(theirs)
        tdx.debug.visualize_array_sharding(ours)
        rows = [[c.strip() for c in line.strip("\u2502").split("\u2502")]
                for line in capsys.readouterr().out.splitlines() if "CPU" in line]
        grid: dict[tuple[int, ...], list[int]] = {}
        for d, index in theirs.sharding.devices_indices_map(theirs.shape).items():
            key = tuple(((s.start or 0) // ((s.stop or n) - (s.start or 0))) for s, n in zip(index, theirs.shape))
            grid.setdefault(key if len(key) == 2 else (0, *key), []).append(d.id)
        expected = [["CPU " + ",".join(map(str, sorted(grid[r, c]))) for c in range(1 + max(k[1] for k in grid))]
                    for r in range(1 + max(k[0] for k in grid))]
        assert rows == expected, (spec, rows, expected)
    with pytest.raises(ValueError, match="only works for shapes with 1 and 2 dimensions"):
        tdx.debug.visualize_array_sharding(tnp.ones((2, 2, 2)))
    with pytest.raises(TypeError, match="needs a concrete array"):
        tdx.jit(tdx.debug.visualize_array_sharding)(tnp.ones(2))
