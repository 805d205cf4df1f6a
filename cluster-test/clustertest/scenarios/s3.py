"""FlinkSink to S3 (moto): multipart uploads, and an S3 outage mid-write."""

from __future__ import annotations

import re
import time

from ..checks import check_logs_installed, check_table, first_lines
from ..common import log, require
from ..fault_proxy import FaultProxy
from ..inputs import Inputs, start_cluster
from ..moments import wait_between_checkpoints
from ..s3 import MOTO, s3_catalog, s3_iceberg_commits, s3_object_sizes, start_moto


def scenario_s3(inputs: Inputs) -> dict:
    """FlinkSink into S3 object storage (moto on 127.0.0.1): Iceberg's S3FileIO with a JDBC
    catalog on SQLite; data files above 5 MB go up as multipart uploads."""
    require(len(inputs.s3_jars) == 2, f"S3 jars missing: {inputs.s3_jars}")
    cluster = start_cluster(inputs, "s3", extra_jars=inputs.s3_jars)
    table, rows = "db.s3", 1_000_000
    try:
        port = start_moto(cluster.home)
        catalog = s3_catalog(cluster, port)
        # Unpartitioned, two writers: two data files of several MB each.
        cluster.run_job("s3", inputs.job_jar, "FlinkSinkJob",
                        [*catalog, "--table", table, "--rows", str(rows), "--partitioned", "false"])
        facts = check_table(cluster, inputs.job_jar, table, rows, catalog=catalog)
        objects = s3_object_sizes(port, "wh/db/s3/data/")
        moto_log = (cluster.home.log / "moto.out").read_text(errors="replace")
        parts = len(re.findall(r"PUT /[^ ]*/data/[^ ]*partNumber=", moto_log))
        log(f"S3 data objects: {objects}; {parts} multipart part uploads")
        require(len(objects) >= facts["data_files"], f"data files not in S3: {objects}")
        require(parts >= 2, f"no multipart upload seen in {cluster.home.log / 'moto.out'}")
        wrote = check_logs_installed(cluster, list(cluster.taskmanagers))
        return {"table": facts, "s3_data_objects": objects, "multipart_part_uploads": parts,
                "frazil_wrote_lines": wrote, "moto": MOTO}
    finally:
        cluster.stop()


def scenario_s3_outage(inputs: Inputs) -> dict:
    """FlinkSink to S3 through a fault-injecting TCP proxy in front of moto: mid-way between two
    checkpoints, once 3 are committed, the proxy resets every open connection and refuses
    (accepts and resets) every new one for 8 s while the job writes: the next checkpoint's
    data-file uploads fail first. S3FileIO's retries or a restart from the last checkpoint must
    carry the job through; the table, read through moto directly, holds every id once, and
    every data file is Frazil's."""
    require(len(inputs.s3_jars) == 2, f"S3 jars missing: {inputs.s3_jars}")
    cluster = start_cluster(inputs, "s3-outage", extra_jars=inputs.s3_jars)
    table, rows, outage = "db.s3_outage", 300_000, 8.0
    proxy = None
    try:
        port = start_moto(cluster.home)
        proxy = FaultProxy(port)
        log(f"fault proxy 127.0.0.1:{proxy.port} -> moto 127.0.0.1:{port}")
        # ~30 s of input (10,000 rows/s), a checkpoint and commit every 2 s (a checkpoint
        # uploads 8 data files to moto, up to 1.5 s on a busy machine).
        job_id = cluster.run_job(
            "s3-outage", inputs.job_jar, "FlinkSinkJob",
            [*s3_catalog(cluster, proxy.port), "--table", table, "--rows", str(rows),
             "--checkpoint-ms", "2000", "--rows-per-second", "10000"], detached=True)
        # Mid-way between two checkpoints, the last one committed: the next checkpoint's
        # data-file uploads (the writers flush at the barrier) meet the outage first.
        before = wait_between_checkpoints(
            cluster, job_id, lambda: s3_iceberg_commits(cluster, port, table), commits=3,
            interval_ms=2000)
        proxy.outage(outage)
        log(f"S3 outage for {outage:.0f} s from {before}")
        deadline = time.monotonic() + outage + 5
        while proxy.down() and time.monotonic() < deadline:
            cluster.check_alive()
            time.sleep(0.2)
        during = dict(proxy.counts)
        require(cluster.job_state(job_id) not in ("FINISHED", "FAILED", "CANCELED"),
                f"job {job_id} ended before the S3 outage was over; it was not writing then")
        log(f"S3 outage over: {during}")
        require(during["reset_open"] + during["reset_new"] >= 1,
                f"no S3 request hit the outage: {during}")
        state = cluster.wait_for_job(job_id, timeout=300)
        restarts = cluster.restarts(job_id)
        log(f"job {job_id}: {state} after {restarts} restart(s); proxy {proxy.counts}")
        require(state == "FINISHED", f"job {job_id} ended {state}")
        facts = check_table(cluster, inputs.job_jar, table, rows,
                            catalog=s3_catalog(cluster, port))
        objects = s3_object_sizes(port, "wh/db/s3_outage/data/")
        require(len(objects) >= facts["data_files"], f"data files not in S3: {objects}")
        native_failed = sum(
            (cluster.home.log / f"{name}.log").read_text(errors="replace")
            .count("at io.frazil.iceberg.NativeFileWriter.finish") for name in cluster.taskmanagers)
        retried = {}
        for name in cluster.taskmanagers:
            text = (cluster.home.log / f"{name}.log").read_text(errors="replace")
            retried[name] = len(re.findall(r"(?i)connection reset|Connection refused|"
                                           r"Unable to execute HTTP request", text))
        first_failure = first_lines(cluster.home.log / "jobmanager.log",
                                    r"switched from RUNNING to FAILED", 2)
        log(f"first task failure: {first_failure}")
        return {"table": facts, "restarts": restarts, "outage_seconds": outage,
                "first_task_failure": first_failure, "outage_from": before,
                "native_writer_finish_in_failure_stacks": native_failed, "proxy_during_outage": during,
                "proxy_total": dict(proxy.counts), "s3_data_objects": len(objects),
                "uncommitted_s3_data_objects": len(objects) - facts["data_files"],
                "taskmanager_log_s3_error_lines": retried,
                "frazil_wrote_lines": check_logs_installed(cluster, list(cluster.taskmanagers))}
    finally:
        cluster.stop()
        if proxy is not None:
            proxy.stop()
