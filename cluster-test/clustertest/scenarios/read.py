"""The read path on the cluster: an IcebergSource copy job reading natively, a TaskManager killed
mid-read, the copy exactly the source (read, and read-s3 on moto)."""

from __future__ import annotations

import re
import time

from ..checks import (check_logs_installed, check_table, committed_records, commits_in,
                      local_table_metadata, taskmanager_metrics)
from ..common import log, require
from ..flink import Cluster
from ..inputs import Inputs, start_cluster
from ..moments import subtask_states, wait_between_checkpoints
from ..s3 import MOTO, s3_catalog, s3_table_metadata, start_moto


READ_TM_METRICS = ["frazil.nativeReadFiles", "frazil.nativeReadRowGroups",
                   "frazil.nativeReadBytes", "frazil.stockReadFiles"]


READ_FALLBACK_LINE = "Frazil read fallback"


READ_SOURCE_VERTEX = "Source: read "


def wait_native_reads(cluster: Cluster, name: str, timeout: float = 90) -> dict:
    """Waits until the REST API reports that TaskManager `name` has read a data file natively
    (frazil.nativeReadFiles > 0); returns every TaskManager's read metrics then."""
    deadline = time.monotonic() + timeout
    while True:
        cluster.check_alive()
        per_tm = taskmanager_metrics(cluster, READ_TM_METRICS)
        if per_tm.get(name, {}).get("frazil.nativeReadFiles", 0) > 0:
            return per_tm
        require(time.monotonic() < deadline,
                f"{name} reported no native read within {timeout:.0f} s: {per_tm}")
        time.sleep(0.5)


def check_read_metrics(cluster: Cluster, names: list[str], timeout: float = 90) -> dict:
    """Polls the REST API until every named TaskManager reports all of Frazil's read metrics
    with frazil.nativeReadFiles > 0; requires frazil.stockReadFiles == 0 on each."""
    deadline = time.monotonic() + timeout
    while True:
        per_tm = taskmanager_metrics(cluster, READ_TM_METRICS)
        if all(len(per_tm.get(n, {})) == len(READ_TM_METRICS)
               and per_tm[n]["frazil.nativeReadFiles"] > 0 for n in names):
            break
        require(time.monotonic() < deadline,
                f"not every TaskManager of {names} reports native reads within "
                f"{timeout:.0f} s: {per_tm}")
        time.sleep(1)
    for n in names:
        require(per_tm[n]["frazil.stockReadFiles"] == 0,
                f"{n} read data files with Iceberg's reader: {per_tm[n]}")
    log("REST read metrics: " + "; ".join(
        f"{n} {int(m['frazil.nativeReadFiles'])} files, {int(m['frazil.nativeReadRowGroups'])} "
        f"row groups, {m['frazil.nativeReadBytes'] / 1e6:.1f} MB native, "
        f"{int(m['frazil.stockReadFiles'])} stock" for n, m in per_tm.items() if n in names))
    return {n: per_tm[n] for n in names}


def read_copy(inputs: Inputs, scenario: str, s3: bool) -> dict:
    """The read path on the cluster, with a kill -9 mid-read. FlinkSinkJob writes the source
    table (300,000 rows, 8 data files, Frazil's); IcebergCopyJob reads it with a bounded
    IcebergSource (FLIP-27: two reader subtasks, a split per file, throttled to 10,000 rows/s
    each) and appends every row with FlinkSink, a checkpoint and commit every second. Once the
    TaskManager of reader subtask 0 has read natively (REST metrics) and 2 commits are in,
    mid-way between two checkpoints with the readers still running, it is killed; a new
    TaskManager takes over, the readers resume from the checkpointed split positions. The copy
    must hold every id once (as the source does: both equal the same rows), and the surviving
    and the new TaskManager must have read natively only (frazil.nativeReadFiles > 0,
    frazil.stockReadFiles 0, no "Frazil read fallback" line). With `s3` both tables live on moto
    (S3FileIO, the JDBC catalog of the s3 scenario) and moto's log must show the data files'
    GETs. One FlinkSink writer: with two, Iceberg 1.11.0's FlinkSink loses the last files of the
    writer whose reader runs out of splits a checkpoint before the other's (both are keyed by the
    end-of-input checkpoint id, the second replaces the first in the committer; see
    IcebergCopyJob), which this scenario hit on moto."""
    if s3:
        require(len(inputs.s3_jars) == 2, f"S3 jars missing: {inputs.s3_jars}")
    # REST metrics at most 1 s old (Flink's default: 10 s), to see reads before the kill.
    cluster = start_cluster(inputs, scenario, extra_jars=inputs.s3_jars if s3 else (),
                            settings={"metrics.fetcher.update-interval": 1000})
    source, target, rows, rate = "db.read_source", "db.read_copy", 300_000, 10_000
    try:
        if s3:
            port = start_moto(cluster.home)
            catalog = s3_catalog(cluster, port)
            metadata_of = lambda table: s3_table_metadata(cluster, port, table)  # noqa: E731
        else:
            catalog = ["--warehouse", str(cluster.home.warehouse)]
            metadata_of = lambda table: local_table_metadata(cluster.home.warehouse, table)  # noqa: E731
        cluster.run_job("write-source", inputs.job_jar, "FlinkSinkJob",
                        [*catalog, "--table", source, "--rows", str(rows)])
        source_facts = check_table(cluster, inputs.job_jar, source, rows, catalog=catalog)
        require(source_facts["data_files"] >= 4,
                f"source table has {source_facts['data_files']} data files, expected several")
        before_copy = taskmanager_metrics(cluster, READ_TM_METRICS)
        require(all(m.get("frazil.nativeReadFiles", 0) == 0 for m in before_copy.values()),
                f"native reads before the copy job: {before_copy}")
        started = time.monotonic()
        job_id = cluster.run_job(
            scenario, inputs.job_jar, "IcebergCopyJob",
            [*catalog, "--source", source, "--table", target, "--checkpoint-ms", "1000",
             "--rows-per-second", str(rate), "--write-parallelism", "1"], detached=True)
        victim = cluster.taskmanager_of(job_id, READ_SOURCE_VERTEX)
        wait_native_reads(cluster, victim)
        moment = wait_between_checkpoints(
            cluster, job_id, lambda: commits_in(metadata_of(target)), commits=2,
            source_prefix=READ_SOURCE_VERTEX)
        committed = committed_records(metadata_of(target))
        readers = subtask_states(cluster, job_id, READ_SOURCE_VERTEX)
        at_kill = taskmanager_metrics(cluster, READ_TM_METRICS)
        cluster.kill_taskmanager(victim)
        killed_after = time.monotonic() - started
        moment.update({"seconds_after_submit": round(killed_after, 1),
                       "rows_committed": committed, "reader_subtasks": readers,
                       "read_metrics": at_kill})
        log(f"{victim} ran reader subtask 0; killed {killed_after:.1f} s after submit with "
            f"{committed} of {rows} rows committed, readers {readers}, read metrics {at_kill}: "
            f"{moment}")
        require(0 < committed < rows, f"{committed} rows committed at the kill: not mid-copy")
        require("RUNNING" in readers.get(victim, []),
                f"{victim} ran no running reader at the kill: {readers}")
        replacement = f"taskmanager-{len(cluster.taskmanagers) + 1}"
        cluster.start_taskmanager(replacement)
        state = cluster.wait_for_job(job_id, timeout=300)
        seconds = time.monotonic() - started
        restarts = cluster.restarts(job_id)
        log(f"job {job_id}: {state} after {restarts} restart(s), {seconds:.1f} s after submit")
        require(state == "FINISHED", f"job {job_id} ended {state}")
        require(restarts >= 1, f"job {job_id} reports {restarts} restarts; the kill went unnoticed")
        facts = check_table(cluster, inputs.job_jar, target, rows, catalog=catalog)
        survivors = [n for n in cluster.taskmanagers if n != victim]
        after = subtask_states(cluster, job_id, READ_SOURCE_VERTEX)
        require(sorted(after) == sorted(survivors),
                f"reader subtasks did not end on {survivors}: {after}")
        metrics = check_read_metrics(cluster, survivors)
        fallbacks = {}
        for name in cluster.taskmanagers:
            text = (cluster.home.log / f"{name}.log").read_text(errors="replace")
            fallbacks[name] = [line for line in text.splitlines() if READ_FALLBACK_LINE in line]
        require(not any(fallbacks.values()), f"'{READ_FALLBACK_LINE}' logged: {fallbacks}")
        result = {"source_table": source_facts, "table": facts, "killed": victim,
                  "replacement": replacement, "kill_moment": moment, "restarts": restarts,
                  "copy_job_seconds": round(seconds, 1), "read_metrics": metrics,
                  "frazil_wrote_lines": check_logs_installed(cluster, survivors)}
        if s3:
            moto_log = (cluster.home.log / "moto.out").read_text(errors="replace")
            # Request lines as werkzeug logs them (206 answers in ANSI colours).
            gets = len(re.findall(r'GET /[^ "]*/db/read_source/data/[^ "]+\.parquet', moto_log))
            log(f"moto served {gets} GETs of the source's data files")
            require(gets >= source_facts["data_files"],
                    f"moto's log shows {gets} GETs of {source_facts['data_files']} source data "
                    f"files: not read through S3?")
            result.update({"s3_source_data_file_gets": gets, "moto": MOTO})
        return result
    finally:
        cluster.stop()


def scenario_read(inputs: Inputs) -> dict:
    """IcebergSource -> FlinkSink copy of a local (Hadoop catalog) table, kill -9 mid-read."""
    return read_copy(inputs, "read", s3=False)


def scenario_read_s3(inputs: Inputs) -> dict:
    """The read scenario with both tables on moto (S3FileIO, JDBC catalog)."""
    return read_copy(inputs, "read-s3", s3=True)
