"""Waiting for the moment a scenario strikes: mid-way between two checkpoints with the last one
committed, or with a checkpoint in flight; and where a vertex's subtasks run."""

from __future__ import annotations

import time

from .common import CheckFailed, require
from .flink import Cluster


def wait_between_checkpoints(cluster: Cluster, job_id: str, commits_of, commits: int,
                             interval_ms: int = 1000, timeout: float = 120,
                             source_prefix: str = "Source: ids") -> dict:
    """Waits until the table has at least `commits` snapshots, the newest one committing the
    latest completed checkpoint (`commits_of()` returns both), and the job is mid-way between
    checkpoints: none in progress and the last one completed 300 to interval-300 ms ago. The
    source must still be running then."""
    deadline = time.monotonic() + timeout
    seen = None
    while time.monotonic() < deadline:
        cluster.check_alive()
        state = cluster.job_state(job_id)
        require(state == "RUNNING", f"job {job_id} is {state} before a quiet moment between "
                f"checkpoints came (too few rows for this machine's speed?); last seen {seen}")
        stats = cluster.rest(f"/jobs/{job_id}/checkpoints")
        latest = (stats.get("latest") or {}).get("completed") or {}
        since_ms = time.time() * 1000 - latest.get("latest_ack_timestamp", 0)
        if stats["counts"]["in_progress"] == 0 and 300 <= since_ms <= interval_ms - 300:
            snapshots, checkpoint = commits_of()
            seen = {"snapshots": snapshots, "last_committed_checkpoint": checkpoint,
                    "latest_completed_checkpoint": latest.get("id")}
            if snapshots >= commits and checkpoint == latest.get("id"):
                source = [v["status"] for v in cluster.rest(f"/jobs/{job_id}")["vertices"]
                          if v["name"].startswith(source_prefix)]
                require(source == ["RUNNING"], f"job {job_id}: the source is {source} after "
                        f"{snapshots} commits (too few rows for this machine's speed)")
                return {"checkpoints_completed": stats["counts"]["completed"],
                        "ms_since_last_checkpoint": round(since_ms),
                        "iceberg_commits": snapshots, "last_committed_checkpoint": checkpoint}
        time.sleep(0.05)
    raise CheckFailed(f"job {job_id}: no quiet moment between checkpoints within {timeout:.0f} s;"
                      f" last seen {seen}")


def wait_checkpoint_in_flight(cluster: Cluster, job_id: str, checkpoint: int,
                              timeout: float = 120) -> dict:
    """Waits until checkpoint `checkpoint` is in progress and every subtask but one (the slow
    snapshot) has acknowledged it: the writers have flushed their data files for it, the
    committer holds them in its state, and nothing of it is committed yet."""
    deadline = time.monotonic() + timeout
    seen = None
    while time.monotonic() < deadline:
        cluster.check_alive()
        stats = cluster.rest(f"/jobs/{job_id}/checkpoints")
        current = [c for c in stats.get("history", []) if c["id"] == checkpoint]
        if current:
            seen = {k: current[0].get(k) for k in
                    ("id", "status", "num_subtasks", "num_acknowledged_subtasks")}
            require(current[0]["status"] == "IN_PROGRESS",
                    f"checkpoint {checkpoint} is {current[0]['status']} before the kill: {seen}")
            if (stats["counts"]["in_progress"] >= 1
                    and current[0]["num_acknowledged_subtasks"] == current[0]["num_subtasks"] - 1):
                age_ms = time.time() * 1000 - current[0]["trigger_timestamp"]
                return {**seen, "in_progress": stats["counts"]["in_progress"],
                        "ms_since_trigger": round(age_ms),
                        "checkpoints_completed": stats["counts"]["completed"]}
        time.sleep(0.05)
    raise CheckFailed(f"job {job_id}: checkpoint {checkpoint} not in flight with all but one "
                      f"acknowledgement within {timeout:.0f} s (last seen {seen})")


def subtask_states(cluster: Cluster, job_id: str, vertex_prefix: str) -> dict[str, list[str]]:
    """{TaskManager resource id: [status of each subtask of the vertex there]}."""
    found: dict[str, list[str]] = {}
    for vertex in cluster.rest(f"/jobs/{job_id}")["vertices"]:
        if vertex["name"].startswith(vertex_prefix):
            for sub in cluster.rest(f"/jobs/{job_id}/vertices/{vertex['id']}")["subtasks"]:
                found.setdefault(sub["taskmanager-id"], []).append(sub["status"])
    return found


def wait_committed_in_flight_checkpoint(cluster: Cluster, job_id: str, commits_of, commits: int,
                                        timeout: float = 120,
                                        source_prefix: str = "Source: ids") -> dict:
    """Waits until the latest completed checkpoint is unaligned, persisted in-flight data
    (records that the barriers overtook in the exchanges) and is the one the table's newest
    commit (of at least `commits`) committed, with the source still running."""
    deadline = time.monotonic() + timeout
    seen = None
    while time.monotonic() < deadline:
        cluster.check_alive()
        state = cluster.job_state(job_id)
        require(state == "RUNNING", f"job {job_id} is {state} before a committed checkpoint with "
                f"in-flight data; last seen {seen}")
        stats = cluster.rest(f"/jobs/{job_id}/checkpoints")
        latest = (stats.get("latest") or {}).get("completed") or {}
        snapshots, checkpoint = commits_of()
        seen = {"snapshots": snapshots, "last_committed_checkpoint": checkpoint,
                **{k: latest.get(k) for k in ("id", "checkpoint_type", "persisted_data")}}
        if (latest.get("checkpoint_type") == "UNALIGNED_CHECKPOINT"
                and latest.get("persisted_data", 0) > 0
                and snapshots >= commits and checkpoint == latest.get("id")):
            source = [v["status"] for v in cluster.rest(f"/jobs/{job_id}")["vertices"]
                      if v["name"].startswith(source_prefix)]
            require(source == ["RUNNING"], f"job {job_id}: the source is {source} after "
                    f"{snapshots} commits (too few rows for this machine's speed)")
            return {"checkpoints_completed": stats["counts"]["completed"],
                    "checkpoints_in_progress": stats["counts"]["in_progress"],
                    "iceberg_commits": snapshots, "last_committed_checkpoint": checkpoint,
                    "last_checkpoint_persisted_in_flight_bytes": latest["persisted_data"]}
        time.sleep(0.1)
    raise CheckFailed(f"job {job_id}: no committed unaligned checkpoint with in-flight data "
                      f"within {timeout:.0f} s; last seen {seen}")
