"""``typedax.distributed`` (issue 25 item 5): processes that compute as one.

Two processes on loopback (``tests/_distributed_worker.py``, 2 host devices
each, a port chosen now, 60 s at most) join through jaxlib's coordination
service; each sees all 4 devices and its own 2, holds its half of a sharded
array, and a ``psum`` over the 4 devices (``shard_map``) and a sum XLA's
partitioner reduces across them (``jit`` with shardings) give both the
whole sum. Errors as JAX's: a second ``initialize``, one after the backend
started, bad arguments (compared with JAX's own checks), the value of an
array other processes hold part of."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

import typedax as tdx
from _distributed_worker import BAD_ARGUMENTS

WORKER = Path(__file__).parent / "_distributed_worker.py"
TIMEOUT_S = 60
NUM_PROCESSES = 2


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _run_processes() -> list[dict[str, object]]:
    """Start the workers, wait for both (``TIMEOUT_S`` in all), return their reports."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("JAX_") and "_proxy" not in k.lower()}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent.parent), env.get("PYTHONPATH", "")])
    env["TYPEDAX_PLATFORM"] = "cpu"  # host devices over loopback (under make test-gpu too: one GPU, two processes)
    logs = [(tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")) for _ in range(NUM_PROCESSES)]
    procs = [  # output to files: a pipe nobody reads could block a worker
        subprocess.Popen([sys.executable, str(WORKER), str(i), str(NUM_PROCESSES), str(port)],
                         stdout=out, stderr=err, text=True, env=env)
        for i, (out, err) in enumerate(logs)
    ]
    deadline = time.monotonic() + TIMEOUT_S
    timed_out = False
    for p in procs:
        try:
            p.wait(timeout=max(deadline - time.monotonic(), 0.1))
        except subprocess.TimeoutExpired:
            timed_out = True
            break
    for p in procs:
        if p.poll() is None:
            p.kill()
    outputs: list[tuple[int, str, str]] = []
    for p, files in zip(procs, logs):
        texts = []
        for f in files:
            f.seek(0)
            texts.append(f.read())
            f.close()
        outputs.append((p.wait(), texts[0], texts[1]))
    for i, (code, out, err) in enumerate(outputs):
        assert code == 0 and not timed_out, (
            f"process {i} exited with {code}" + (f" (killed after {TIMEOUT_S} s)" if timed_out else "")
            + f":\n{out}\n{err[-3000:]}"
        )
    return [json.loads(out.strip().splitlines()[-1]) for _, out, _ in outputs]


Reports = list[dict[str, object]]


@pytest.mark.first
def test_two_processes_on_loopback() -> None:
    """One test, so that the processes start once (a module fixture would
    start them in each pytest-xdist worker that runs one of its tests)."""
    reports = _run_processes()
    for check in (_devices_of_every_process, _each_process_holds_its_shards, _psum_across_processes,
                  _multihost_utils, _errors_in_the_processes, _value_held_by_each_process):
        check(reports)


def _devices_of_every_process(reports: Reports) -> None:
    everyone = reports[0]["devices"]
    assert isinstance(everyone, list) and len(everyone) == 4
    mine: list[int] = []
    for i, r in enumerate(reports):
        assert r["devices"] == everyone  # one global list, in one order
        assert r["process_index"] == i and r["process_count"] == NUM_PROCESSES
        assert r["device_count"] == 4 and r["local_device_count"] == 2
        local = r["local_devices"]
        assert isinstance(local, list) and len(local) == 2 and set(local) <= set(everyone)
        mine += local
    assert sorted(mine) == sorted(everyone)  # each device belongs to one process


def _each_process_holds_its_shards(reports: Reports) -> None:
    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    for r in reports:
        assert r["fully_addressable"] is False
        shards = r["shards"]
        assert isinstance(shards, list) and len(shards) == 2
        everyone, local = r["devices"], r["local_devices"]
        assert isinstance(everyone, list) and isinstance(local, list)
        for device, start, data in shards:
            assert device in local and start == everyone.index(device)  # row k on mesh device k
            np.testing.assert_array_equal(np.asarray(data), x[start:start + 1])


def _psum_across_processes(reports: Reports) -> None:
    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    for r in reports:
        # each process holds 2 of the 4 rows: only a sum across processes gives this
        np.testing.assert_array_equal(np.asarray(r["psum"]), x.sum(0, keepdims=True))
        np.testing.assert_array_equal(np.asarray(r["jit_sum"]), x.sum(0))
        # from each process's own rows only
        assert r["local_data_shape"] == [4, 2]
        np.testing.assert_array_equal(np.asarray(r["local_data_psum"]), x.sum(0, keepdims=True))
        np.testing.assert_array_equal(np.asarray(r["single_device_arrays_psum"]), x.sum(0, keepdims=True))


def _multihost_utils(reports: Reports) -> None:
    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    for r in reports:
        assert r["allgather"] == [[0, 10], [1, 11]]  # stacked: one row per process
        assert r["allgather_tiled"] == [0, 10, 1, 11]
        np.testing.assert_array_equal(np.asarray(r["allgather_global"]), x)  # the whole of a sharded array
        assert r["broadcast"] == {"a": 5.0}  # process 0's value
        assert r["assert_equal"] == "differ"


def _errors_in_the_processes(reports: Reports) -> None:
    from jax._src import distributed as jax_distributed

    for r in reports:
        assert r["second_initialize"] == "distributed.initialize should only be called once."
        assert "spans non-addressable (non process local) devices" in str(r["gather_error"])
        assert r["initialized_after_shutdown"] is False
        assert "typedax does not detect clusters" in str(r["detection"])  # JAX's Slurm/MPI/TPU detection
        assert r["remote_shards"] == 0 and str(r["remote_error"]).startswith("Fetching value for `jax.Array`")
        assert "shard_map over a mesh of every process's devices" in str(r["pmap_error"])
        refused = r["refused"]
        assert isinstance(refused, list)
        for bad, (kind, message) in zip(BAD_ARGUMENTS, refused):
            args: dict[str, object] = {"coordinator_address": "127.0.0.1:1", "num_processes": 2, "process_id": 0}
            args.update(bad)
            with pytest.raises((ValueError, TypeError)) as jax_error:  # JAX's checks, before it starts anything
                jax_distributed.State().initialize(**args, cluster_detection_method="deactivate")  # type: ignore[arg-type]  # wrong types on purpose
            assert (kind, message) == (type(jax_error.value).__name__, str(jax_error.value)), bad


def _value_held_by_each_process(reports: Reports) -> None:
    x = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    for r in reports:  # split within each process, replicated across: readable in each
        np.testing.assert_array_equal(np.asarray(r["within_process"]), x)


def test_initialize_after_the_backend_started() -> None:
    import jax

    tdx.devices()  # the backend is running
    with pytest.raises(RuntimeError, match=r"must be called before any typedax calls") as ours:
        tdx.distributed.initialize("127.0.0.1:1", 2, 0)
    jax.devices()
    with pytest.raises(RuntimeError, match=r"must be called before any JAX calls") as theirs:
        jax.distributed.initialize("127.0.0.1:1", 2, 0)
    assert str(ours.value).replace("typedax", "JAX") == str(theirs.value).replace("jax.", "JAX.")
    assert not tdx.distributed.is_initialized()


def test_one_process() -> None:
    tdx.distributed.shutdown()  # not initialized: does nothing, as JAX's
    assert tdx.process_index() == 0 and tdx.process_count() == 1
    assert tdx.local_devices() == tdx.devices() and tdx.local_device_count() == tdx.device_count()
    assert tdx.numpy.ones(3).is_fully_addressable



def test_arrays_from_local_data_in_one_process() -> None:
    import jax

    from typedax.sharding import NamedSharding, PartitionSpec as P

    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    s = NamedSharding(tdx.make_mesh((1,), ("i",)), P("i"))
    got = tdx.make_array_from_process_local_data(s, x)
    assert got.sharding == s and got.is_fully_addressable
    np.testing.assert_array_equal(np.asarray(got), x)
    js = jax.sharding.NamedSharding(jax.make_mesh((1,), ("i",)), jax.sharding.PartitionSpec("i"))  # type: ignore[no-untyped-call]  # untyped in jax
    with pytest.raises(ValueError) as theirs:
        jax.make_array_from_process_local_data(js, x, (4, 3))  # type: ignore[no-untyped-call]  # untyped in jax
    with pytest.raises(ValueError) as ours:
        tdx.make_array_from_process_local_data(s, x, (4, 3))
    assert str(ours.value) == str(theirs.value)

    pieces = tdx.make_array_from_single_device_arrays((2, 3), s, [tdx.device_put(x, tdx.devices()[0])])
    np.testing.assert_array_equal(np.asarray(pieces), x)
    with pytest.raises(ValueError, match="shape"):
        tdx.make_array_from_single_device_arrays((4, 3), s, [tdx.device_put(x)])
    with pytest.raises(ValueError, match="0 arrays for the 1 devices"):
        tdx.make_array_from_single_device_arrays((2, 3), s, [])


def test_gpu_client_options_of_a_process() -> None:
    """The CUDA client's options in a distributed run (no GPU needed: the
    composition is a pure function; the client itself is untested here)."""
    from typedax.lowering import jaxlib_api as jx

    cluster = jx.Cluster(None, 1, 4, (2, 3), None)  # type: ignore[arg-type]  # the client is not read
    env = {"XLA_PYTHON_CLIENT_PREALLOCATE": "false", "JAX_CUDA_VISIBLE_DEVICES": "0,1,2,3"}
    options = jx.cluster_client_options(jx.gpu_client_options(env), cluster)
    assert options == {
        "platform_name": "cuda", "allocator": "default", "preallocate": False,
        "node_id": 1, "num_nodes": 4, "visible_devices": [2, 3],  # local_device_ids win, as JAX's config update
    }
    assert jx.cluster_client_options({}, jx.Cluster(None, 0, 2, None, 5)) == {  # type: ignore[arg-type]  # the client is not read
        "node_id": 0, "num_nodes": 2, "partition_index": 5,
    }


def test_multihost_utils_in_one_process() -> None:
    from jax.experimental import multihost_utils as jax_utils

    from typedax.experimental import multihost_utils

    x = np.array([[1.0, 2.0]], dtype=np.float32)
    for tiled in (False, True):
        for value in (x, np.float32(3.0)):
            got, want = multihost_utils.process_allgather(value, tiled=tiled), jax_utils.process_allgather(value, tiled=tiled)
            assert isinstance(got, np.ndarray) and isinstance(want, np.ndarray)
            assert got.shape == want.shape
            np.testing.assert_array_equal(got, want)
    assert multihost_utils.broadcast_one_to_all({"a": 1}) == {"a": np.asarray(1)}
    multihost_utils.sync_global_devices("one")
    multihost_utils.assert_equal([x, 2])
