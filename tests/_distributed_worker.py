"""One process of ``tests/test_distributed.py``'s distributed run:
``python tests/_distributed_worker.py PROCESS_ID NUM_PROCESSES PORT``.

Joins the run on loopback with 2 host devices, checks the errors JAX raises
for a second ``initialize``, computes a ``psum`` over a mesh of every
process's devices (``shard_map``) and a data-parallel sum that XLA's
partitioner reduces across processes (``jit`` with shardings), and prints
what it saw as one JSON line (the test compares the processes' reports)."""

from __future__ import annotations

import json
import sys
import time

import numpy as np

import typedax as tdx
from typedax import lax
from typedax.experimental import multihost_utils
from typedax.sharding import Mesh, NamedSharding, PartitionSpec as P

LOCAL_DEVICES = 2


#: bad arguments to ``initialize`` (keyword arguments over the good ones),
#: each refused before anything starts; ``test_distributed`` compares the
#: errors with JAX's
BAD_ARGUMENTS: tuple[dict[str, object], ...] = (
    {"process_id": 2},
    {"process_id": -1},
    {"process_id": "0"},
    {"num_processes": "2"},
    {"num_processes": None},
    {"process_id": None},
    {"coordinator_address": None},
)


def _refused(process_id: int, num_processes: int, port: int) -> list[list[str]]:
    """The error class and message of each of ``BAD_ARGUMENTS``."""
    out: list[list[str]] = []
    for bad in BAD_ARGUMENTS:
        args: dict[str, object] = {
            "coordinator_address": f"127.0.0.1:{port}", "num_processes": num_processes, "process_id": process_id,
        }
        args.update(bad)
        try:
            tdx.distributed.initialize(**args)  # type: ignore[arg-type]  # wrong types on purpose
        except (ValueError, TypeError) as e:
            out.append([type(e).__name__, str(e)])
        else:
            out.append(["none", ""])
    return out


def main(process_id: int, num_processes: int, port: int) -> dict[str, object]:
    tdx.config.update("jax_num_cpu_devices", LOCAL_DEVICES)
    refused = _refused(process_id, num_processes, port)
    detection = ""
    try:
        tdx.distributed.initialize(f"127.0.0.1:{port}", num_processes, process_id, cluster_detection_method="slurm")
    except NotImplementedError as e:
        detection = str(e)
    start = time.perf_counter()
    tdx.distributed.initialize(f"127.0.0.1:{port}", num_processes, process_id, initialization_timeout=30)
    report: dict[str, object] = {"initialize_s": time.perf_counter() - start, "refused": refused, "detection": detection}
    try:
        tdx.distributed.initialize(f"127.0.0.1:{port}", num_processes, process_id)
    except RuntimeError as e:
        report["second_initialize"] = str(e)
    start = time.perf_counter()
    report["devices"] = [d.id for d in tdx.devices()]
    report["local_devices"] = [d.id for d in tdx.local_devices()]
    report["backend_s"] = time.perf_counter() - start
    report["process_index"] = tdx.process_index()
    report["process_count"] = tdx.process_count()
    report["device_count"] = tdx.device_count()
    report["local_device_count"] = tdx.local_device_count()

    n = tdx.device_count()
    mesh = tdx.make_mesh((n,), ("i",))
    x = np.arange(2.0 * n, dtype=np.float32).reshape(n, 2)  # every process holds the same global value
    xs = tdx.device_put(x, NamedSharding(mesh, P("i")))
    report["shards"] = [[s.device.id, s.index[0].start, s.data.tolist()] for s in xs.addressable_shards]
    report["fully_addressable"] = xs.is_fully_addressable
    start = time.perf_counter()
    psum = tdx.jit(tdx.shard_map(lambda a: lax.psum(a, "i"), mesh=mesh, in_specs=P("i"), out_specs=P()))
    total = psum(xs)
    report["psum"] = np.asarray(total).tolist()
    report["psum_s"] = time.perf_counter() - start
    # each process passes only its own rows (its sub-batch), as a data loader per host would
    k = tdx.local_device_count()
    mine = x[tdx.process_index() * k:(tdx.process_index() + 1) * k]  # this process's devices' rows
    local = tdx.make_array_from_process_local_data(NamedSharding(mesh, P("i")), mine)
    report["local_data_shape"] = list(local.shape)
    report["local_data_psum"] = np.asarray(psum(local)).tolist()
    rows = [tdx.device_put(x[tdx.devices().index(d):tdx.devices().index(d) + 1], d) for d in tdx.local_devices()]
    pieces = tdx.make_array_from_single_device_arrays((n, 2), NamedSharding(mesh, P("i")), rows[::-1])
    report["single_device_arrays_psum"] = np.asarray(psum(pieces)).tolist()
    summed = tdx.jit(lambda a: a.sum(0), out_shardings=NamedSharding(mesh, P()))(xs)
    report["jit_sum"] = np.asarray(summed).tolist()
    pid = tdx.process_index()
    report["allgather"] = multihost_utils.process_allgather(np.array([pid, 10 + pid]))
    report["allgather_tiled"] = multihost_utils.process_allgather(np.array([pid, 10 + pid]), tiled=True)
    report["allgather_global"] = multihost_utils.process_allgather(xs, tiled=True)
    report["broadcast"] = multihost_utils.broadcast_one_to_all({"a": np.float32(5 + pid)})
    multihost_utils.sync_global_devices("after the psum")
    try:
        multihost_utils.assert_equal(np.array([pid]), "differ")
    except AssertionError as e:
        report["assert_equal"] = str(e)[:6]
    try:
        np.asarray(xs)
    except RuntimeError as e:
        report["gather_error"] = str(e)
    # an array on another process's device: no piece here, no value
    other = next(d for d in tdx.devices() if d not in tdx.local_devices())
    remote = tdx.device_put(np.ones(3, np.float32), other)
    report["remote_shards"] = len(remote.addressable_shards)
    try:
        np.asarray(remote)
    except RuntimeError as e:
        report["remote_error"] = str(e)[:40]
    # split within each process, replicated across them: every process holds the whole value
    grid = Mesh(np.array(tdx.devices(), dtype=object).reshape(num_processes, -1), ("processes", "local"))
    report["within_process"] = np.asarray(tdx.device_put(x, NamedSharding(grid, P("local")))).tolist()
    try:
        tdx.pmap(lambda a: a)(np.ones((2, 1)))
    except NotImplementedError as e:
        report["pmap_error"] = str(e)
    tdx.distributed.shutdown()
    report["initialized_after_shutdown"] = tdx.distributed.is_initialized()
    return report


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])), default=lambda o: np.asarray(o).tolist()), flush=True)
