"""Frazil's Arrow path on the cluster: a job whose rows travel as ArrowBatches across a keyed
exchange between two TaskManagers into an Iceberg table (FrazilArrowSink), kill -9 of a
TaskManager after committed checkpoints, a new TaskManager takes over, every row once (arrow);
the same with unaligned checkpoints that persist batches in flight and restore them (arrow-unaligned,
Flink 2.1: on 1.20 FLINK-37870 turns unaligned checkpoints off upstream of IcebergSink); the same
into a table with write.distribution-mode=hash, whose batches the sink splits by partition natively
and keys by partition path, a second Arrow exchange (arrow-hash)."""

from __future__ import annotations

import re
import time

from ..checks import (check_logs_installed, check_table, committed_records, iceberg_commits,
                      local_table_metadata, parquet_files_on_disk)
from ..common import CheckFailed, log, require
from ..flink import Cluster
from ..inputs import Inputs, start_cluster
from ..moments import wait_between_checkpoints, wait_committed_in_flight_checkpoint

KEYED_VERTEX = "keyed batches"
# With write.distribution-mode=hash: the sink's split step (chained to the keyed batches) and the
# writers' vertex, which receives the parts keyed by partition path.
PARTS_VERTEX = "ArrowBatch → partition parts"
WRITER_VERTEX = "ArrowBatch → RowData"
# Bytes a subtask's input gates received over TCP from another TaskManager (Flink's shuffle
# metrics); local channels count in numBytesInLocal instead.
REMOTE_BYTES = "Shuffle.Netty.Input.numBytesInRemote"
SETTINGS = {
    # Subtask metrics over REST within a second (Flink's default fetches every 10 s).
    "metrics.fetcher.update-interval": 1000,
    # Every checkpoint's statistics, so the restored one's persisted in-flight data is there.
    "web.checkpoints.history": 1000,
}


def scenario_arrow(inputs: Inputs) -> dict:
    """Aligned checkpoints every 2 s; kill -9 between two checkpoints after two commits.
    ~45 s of input, so that the restarted job has checkpoints to take before its input ends: a
    run whose quiet moment came with 600 of 60,000 rows left lost exactly those rows, Iceberg's
    IcebergSink skipping the end-of-input commit after a restore (docs/upstream-issues.md).
    Checkpoints every 2 s with at least 1 s between them: under load a checkpoint can take longer
    than the interval and the next one starts right away, so without the pause (at load 15) the
    quiet moment came only after 27 checkpoints, near the end of the input."""
    return arrow_with_kill(inputs, "arrow", rows=90_000, rows_per_second=2_000,
                           unaligned=False, checkpoint_ms=2000)


def scenario_arrow_unaligned(inputs: Inputs) -> dict:
    """Unaligned checkpoints with slow keyed subtasks (batches queue in the exchange); kill -9
    once a committed checkpoint has persisted batches in flight; the restart restores them."""
    require(inputs.flink not in ("1.20", "2.0"),
            f"arrow-unaligned needs Flink 2.1: on {inputs.flink}, FLINK-37870 disables unaligned "
            "checkpoints upstream of a committing sink (docs/upstream-issues.md)")
    return arrow_with_kill(inputs, "arrow-unaligned", rows=40_000, rows_per_second=3_000,
                           unaligned=True, keyed_micros_per_row=1_500)


def scenario_arrow_hash(inputs: Inputs) -> dict:
    """arrow into a table with write.distribution-mode=hash: FrazilArrowSink splits each batch by
    partition (bucket(id, 4)) natively and keys whole parts to the writers, so batches cross two
    Arrow exchanges; both must carry bytes between the TaskManagers."""
    return arrow_with_kill(inputs, "arrow-hash", rows=90_000, rows_per_second=2_000,
                           unaligned=False, checkpoint_ms=2000, distribution="hash")


def remote_bytes_in(cluster: Cluster, job_id: str, vertex_prefix: str) -> dict[int, dict]:
    """{subtask: {"taskmanager", "remote_bytes"}} of a vertex's running subtasks (REST)."""
    found = {}
    for vertex in cluster.rest(f"/jobs/{job_id}")["vertices"]:
        if not vertex["name"].startswith(vertex_prefix):
            continue
        base = f"/jobs/{job_id}/vertices/{vertex['id']}"
        for sub in cluster.rest(base)["subtasks"]:
            values = cluster.rest(f"{base}/subtasks/{sub['subtask']}/metrics?get={REMOTE_BYTES}")
            found[sub["subtask"]] = {"taskmanager": sub["taskmanager-id"],
                                     "remote_bytes": int(float(values[0]["value"]))
                                     if values else None}
    return found


def wait_batches_cross(cluster: Cluster, job_id: str, vertices: list[str],
                       least_bytes: int = 64 * 1024, timeout: float = 60) -> dict[str, dict]:
    """Waits until every subtask of each vertex (by name prefix), on two TaskManagers at least,
    has received `least_bytes` over TCP from another TaskManager (a 500-row batch is ~30 KB in
    IPC): batches really crossed processes. Returns {vertex: {subtask: ...}}."""
    deadline = time.monotonic() + timeout
    seen = {}
    while time.monotonic() < deadline:
        cluster.check_alive()
        seen = {v: remote_bytes_in(cluster, job_id, v) for v in vertices}
        if all(len({s["taskmanager"] for s in subtasks.values()}) >= 2
               and all((s["remote_bytes"] or 0) >= least_bytes for s in subtasks.values())
               for subtasks in seen.values()):
            return seen
        time.sleep(0.5)
    raise CheckFailed(f"job {job_id}: not every subtask of {vertices} received batches from "
                      f"another TaskManager within {timeout:.0f} s ({REMOTE_BYTES}): {seen}")


def keyed_log_lines(cluster: Cluster, names: list[str]) -> list[str]:
    """The keyed subtasks' closing lines ("... N batches, M rows") in the named TaskManager logs."""
    lines = []
    for name in names:
        text = (cluster.home.log / f"{name}.log").read_text(errors="replace")
        lines += [m.group(0) for m in re.finditer(rf"{KEYED_VERTEX} -> .*?: \d+ batches, \d+ rows",
                                                  text)]
    return lines


def arrow_with_kill(inputs: Inputs, scenario: str, rows: int, rows_per_second: int,
                    unaligned: bool, keyed_micros_per_row: int = 0,
                    distribution: str = "none", checkpoint_ms: int = 1000) -> dict:
    """Two TaskManagers of one slot, the Arrow job at parallelism 2 (each TaskManager runs a
    source, a batcher and a keyed subtask; batches go both ways), periodic checkpoints; once batches
    have crossed and checkpoints are committed, kill -9 the source's TaskManager and start a new
    one. The job must restart and finish, the table hold every row once, all files Frazil's."""
    cluster = start_cluster(inputs, scenario, settings=SETTINGS)
    table = "db." + scenario.replace("-", "_")
    try:
        job_id = cluster.run_job(
            scenario, inputs.arrow_job_jar, "ArrowBatchJob",
            ["--warehouse", str(cluster.home.warehouse), "--table", table, "--rows", str(rows),
             "--checkpoint-ms", str(checkpoint_ms),
             "--checkpoint-min-pause-ms", str(checkpoint_ms // 2),
             "--rows-per-second", str(rows_per_second),
             "--batch-rows", "500", "--unaligned", str(unaligned).lower(),
             "--keyed-micros-per-row", str(keyed_micros_per_row),
             "--distribution", distribution], detached=True)
        names = [v["name"] for v in cluster.rest(f"/jobs/{job_id}")["vertices"]]
        split = any(PARTS_VERTEX in n for n in names)
        require(split == (distribution == "hash"),
                f"the sink {'did not split' if not split else 'split'} batches by partition with "
                f"write.distribution-mode={distribution}: vertices {names}")
        exchanges = [KEYED_VERTEX, WRITER_VERTEX] if split else [KEYED_VERTEX]
        crossed = wait_batches_cross(cluster, job_id, exchanges)
        log(f"received batches over TCP: {crossed}")
        victim = cluster.taskmanager_of(job_id, "Source: ids")
        commits_of = lambda: iceberg_commits(cluster.home.warehouse, table)  # noqa: E731
        if unaligned:
            moment = wait_committed_in_flight_checkpoint(cluster, job_id, commits_of, 2)
        else:
            moment = wait_between_checkpoints(cluster, job_id, commits_of, 2,
                                              interval_ms=checkpoint_ms)
        files_before = parquet_files_on_disk(cluster.home.warehouse, table)
        committed_before = committed_records(local_table_metadata(cluster.home.warehouse, table))
        cluster.kill_taskmanager(victim)
        log(f"{victim} ran a source subtask; killed at {moment}, {committed_before} of {rows} "
            "rows committed")
        cluster.start_taskmanager(f"taskmanager-{len(cluster.taskmanagers) + 1}")
        state = cluster.wait_for_job(job_id, timeout=300)
        restarts = cluster.restarts(job_id)
        log(f"job {job_id}: {state} after {restarts} restart(s)")
        require(state == "FINISHED", f"job {job_id} ended {state}")
        require(restarts >= 1, f"job {job_id} reports {restarts} restarts; the kill went unnoticed")
        checkpoints = cluster.rest(f"/jobs/{job_id}/checkpoints")
        restored = ((checkpoints.get("latest") or {}).get("restored") or {}).get("id")
        require(restored is not None, f"job {job_id} restored no checkpoint after the kill")
        history = {c["id"]: c for c in checkpoints.get("history", [])}
        restored_in_flight = history.get(restored, {}).get("persisted_data")
        types = {}
        for c in history.values():
            if c["status"] == "COMPLETED":
                types[c["checkpoint_type"]] = types.get(c["checkpoint_type"], 0) + 1
        if unaligned:
            require(history.get(restored, {}).get("checkpoint_type") == "UNALIGNED_CHECKPOINT"
                    and (restored_in_flight or 0) > 0,
                    f"the restored checkpoint {restored} is not unaligned with batches in flight "
                    f"({history.get(restored)}): nothing was restored into the exchanges")
        facts = check_table(cluster, inputs.job_jar, table, rows)
        on_disk = parquet_files_on_disk(cluster.home.warehouse, table)
        survivors = [n for n in cluster.taskmanagers if n != victim]
        return {"table": facts, "killed": victim, "kill_moment": moment, "restarts": restarts,
                "batches_over_tcp_before_kill": crossed,
                "rows_committed_before_kill": committed_before,
                "restored_checkpoint": restored,
                "restored_in_flight_bytes": restored_in_flight,
                "checkpoints_completed": checkpoints["counts"]["completed"],
                "completed_checkpoint_types": types,
                "parquet_files_on_disk_before_kill": files_before,
                "parquet_files_on_disk": on_disk,
                "uncommitted_files_on_disk": on_disk - facts["data_files"],
                "keyed_subtasks": keyed_log_lines(cluster, survivors),
                "frazil_wrote_lines": check_logs_installed(cluster, survivors)}
    finally:
        cluster.stop()
