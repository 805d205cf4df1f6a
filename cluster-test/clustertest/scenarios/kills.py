"""kill -9 of a TaskManager while a job writes: between checkpoints (smoke, failover) and while a
checkpoint is in flight (kill-in-checkpoint); every id committed once."""

from __future__ import annotations

from ..checks import (check_job_jar_clean, check_logs_installed, check_table, iceberg_commits,
                      parquet_files_on_disk)
from ..common import log, require
from ..inputs import Inputs, start_cluster
from ..moments import wait_between_checkpoints, wait_checkpoint_in_flight


def scenario_smoke(inputs: Inputs) -> dict:
    """The short form in `make test`: one throttled FlinkSink job with 1 s checkpoints on two
    TaskManagers of two slots each, kill -9 of the TaskManager running the source between two
    checkpoints; the job restarts in the survivor's spare slots and commits every id once."""
    check_job_jar_clean(inputs.job_jar)
    return kill_between_checkpoints(inputs, "smoke", rows=30_000, rows_per_second=3_000,
                                    commits=2, spare_slots=True)


def kill_between_checkpoints(inputs: Inputs, scenario: str, rows: int, rows_per_second: int,
                             commits: int, spare_slots: bool) -> dict:
    """A throttled FlinkSink job with a checkpoint (and an Iceberg commit) every second; once
    `commits` snapshots are in, kill -9 the TaskManager running the source mid-way between two
    checkpoints. With `spare_slots` the two TaskManagers have two slots each and the survivor's
    free slots take over (no third JVM to start: the short form); otherwise they have one each
    and a TaskManager started after the kill takes over. The job must restart and commit every
    id once."""
    cluster = start_cluster(inputs, scenario, slots=2 if spare_slots else 1)
    table = "db." + scenario.replace("-", "_")
    try:
        # One source subtask (checkpointed NumberSequenceSource splits), two writers.
        job_id = cluster.run_job(
            scenario, inputs.job_jar, "FlinkSinkJob",
            ["--warehouse", str(cluster.home.warehouse), "--table", table, "--rows", str(rows),
             "--checkpoint-ms", "1000", "--rows-per-second", str(rows_per_second)], detached=True)
        victim = cluster.taskmanager_of(job_id, "Source: ids")
        moment = wait_between_checkpoints(
            cluster, job_id, lambda: iceberg_commits(cluster.home.warehouse, table), commits)
        files_before = parquet_files_on_disk(cluster.home.warehouse, table)
        cluster.kill_taskmanager(victim)
        log(f"{victim} ran the source; killed at {moment}")
        if not spare_slots:
            cluster.start_taskmanager(f"taskmanager-{len(cluster.taskmanagers) + 1}")
        state = cluster.wait_for_job(job_id, timeout=240)
        restarts = cluster.restarts(job_id)
        log(f"job {job_id}: {state} after {restarts} restart(s)")
        require(state == "FINISHED", f"job {job_id} ended {state}")
        require(restarts >= 1, f"job {job_id} reports {restarts} restarts; the kill went unnoticed")
        facts = check_table(cluster, inputs.job_jar, table, rows)
        on_disk = parquet_files_on_disk(cluster.home.warehouse, table)
        survivors = [n for n in cluster.taskmanagers if n != victim]
        wrote = check_logs_installed(cluster, survivors)
        return {"table": facts, "killed": victim, "kill_moment": moment, "restarts": restarts,
                "taken_over_by": "spare slots" if spare_slots else "new TaskManager",
                "parquet_files_on_disk_before_kill": files_before,
                "parquet_files_on_disk": on_disk,
                "uncommitted_files_on_disk": on_disk - facts["data_files"],
                "frazil_wrote_lines": wrote}
    finally:
        cluster.stop()


def scenario_failover(inputs: Inputs) -> dict:
    """kill -9 a TaskManager between checkpoints; a TaskManager started after the kill takes
    over; every id is committed once (~30 s of input: 60,000 rows at 2,000 rows/s)."""
    return kill_between_checkpoints(inputs, "failover", rows=60_000, rows_per_second=2_000,
                                    commits=3, spare_slots=False)


def scenario_kill_in_checkpoint(inputs: Inputs) -> dict:
    """kill -9 the TaskManager of a writer WHILE a checkpoint is in flight. The job's "rows"
    operator takes 8 s to snapshot checkpoint 4 (--slow-checkpoint/--slow-snapshot-ms); once
    every other subtask has acknowledged it (data files flushed, not committed), the writer's
    TaskManager is killed. The spare TaskManager takes over; checkpoint 4 never completes, its
    files stay uncommitted, and every id is committed once."""
    cluster = start_cluster(inputs, "kill-in-checkpoint", taskmanagers=3)
    table, rows, slow = "db.kill_in_checkpoint", 40_000, 4
    try:
        job_id = cluster.run_job(
            "kill-in-checkpoint", inputs.job_jar, "FlinkSinkJob",
            ["--warehouse", str(cluster.home.warehouse), "--table", table, "--rows", str(rows),
             "--checkpoint-ms", "1000", "--rows-per-second", "2000",
             "--slow-checkpoint", str(slow), "--slow-snapshot-ms", "8000"], detached=True)
        source_tm = cluster.taskmanager_of(job_id, "Source: ids")
        moment = wait_checkpoint_in_flight(cluster, job_id, slow)
        writers = {tm for subtasks in cluster.placement(job_id, "Writer", parallelism=2).values()
                   for tm in subtasks.values()}
        candidates = sorted(writers - {source_tm})
        require(bool(candidates), f"no writer outside the source's {source_tm}: {writers}")
        victim = candidates[0]
        commits_before = iceberg_commits(cluster.home.warehouse, table)[0]
        files_before = parquet_files_on_disk(cluster.home.warehouse, table)
        cluster.kill_taskmanager(victim)
        log(f"{victim} ran a writer (source on {source_tm}); killed with checkpoint {slow} "
            f"in flight: {moment}; {commits_before} Iceberg commits, {files_before} files on disk")
        state = cluster.wait_for_job(job_id, timeout=240)
        restarts = cluster.restarts(job_id)
        log(f"job {job_id}: {state} after {restarts} restart(s)")
        require(state == "FINISHED", f"job {job_id} ended {state}")
        require(restarts >= 1, f"job {job_id} reports {restarts} restarts; the kill went unnoticed")
        history = {c["id"]: c["status"]
                   for c in cluster.rest(f"/jobs/{job_id}/checkpoints").get("history", [])}
        require(history.get(slow, "FAILED") != "COMPLETED",
                f"checkpoint {slow} completed although a writer died during it: {history}")
        facts = check_table(cluster, inputs.job_jar, table, rows)
        on_disk = parquet_files_on_disk(cluster.home.warehouse, table)
        # The writers acknowledged checkpoint 4, so its data files were on disk at the kill;
        # no commit took them, so they are left over, never in the table.
        require(on_disk > facts["data_files"],
                f"no uncommitted data file on disk: checkpoint {slow}'s files are in the table?")
        survivors = [n for n in cluster.taskmanagers if n != victim]
        return {"table": facts, "killed": victim, "source_on": source_tm,
                "checkpoint_in_flight": moment, "restarts": restarts,
                "iceberg_commits_before_kill": commits_before,
                "parquet_files_on_disk_before_kill": files_before,
                "parquet_files_on_disk": on_disk,
                "uncommitted_files_on_disk": on_disk - facts["data_files"],
                "frazil_wrote_lines": check_logs_installed(cluster, survivors)}
    finally:
        cluster.stop()
