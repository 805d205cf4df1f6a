"""The sinks scenario: FlinkSink, IcebergSink, the Dynamic Iceberg Sink and SQL INSERT with Frazil
from lib/ alone, the TaskManagers' metrics adding up to the tables."""

from __future__ import annotations

from ..checks import check_job_jar_clean, check_logs_installed, check_metrics, check_table
from ..common import require
from ..flink import Cluster
from ..inputs import Inputs, start_cluster


def flink_sink_job(cluster: Cluster, inputs: Inputs, table: str, rows: int) -> dict:
    cluster.run_job("flinksink", inputs.job_jar, "FlinkSinkJob",
                    ["--warehouse", str(cluster.home.warehouse), "--table", table,
                     "--rows", str(rows)])
    return check_table(cluster, inputs.job_jar, table, rows)


def scenario_sinks(inputs: Inputs) -> dict:
    check_job_jar_clean(inputs.job_jar)
    cluster = start_cluster(inputs, "sinks")
    warehouse = str(cluster.home.warehouse)
    try:
        results = {"flinksink": flink_sink_job(cluster, inputs, "db.flinksink", 200_000)}
        rows = 100_000
        cluster.run_job("icebergsink", inputs.job_jar, "IcebergSinkJob",
                        ["--warehouse", warehouse, "--table", "db.icebergsink", "--rows", str(rows)])
        results["icebergsink"] = check_table(cluster, inputs.job_jar, "db.icebergsink", rows)
        cluster.run_job("dynamic", inputs.job_jar, "DynamicSinkJob",
                        ["--warehouse", warehouse, "--table", "db.dynamic", "--rows", str(rows)])
        results["dynamic_even"] = check_table(cluster, inputs.job_jar, "db.dynamic_even",
                                              rows // 2, start=0, step=2)
        results["dynamic_odd"] = check_table(cluster, inputs.job_jar, "db.dynamic_odd",
                                             rows // 2, start=1, step=2)
        cluster.run_job("sql", inputs.job_jar, "SqlInsertJob",
                        ["--warehouse", warehouse, "--table", "db.sql_insert", "--rows", str(rows)])
        results["sql"] = check_table(cluster, inputs.job_jar, "db.sql_insert", rows)
        wrote = check_logs_installed(cluster, list(cluster.taskmanagers))
        files = sum(r["data_files"] for r in results.values())
        require(sum(wrote.values()) == files, f"'Frazil wrote' lines {wrote} != data files {files}")
        results["frazil_wrote_lines"] = wrote
        table_rows = sum(r["rows"] for r in results.values() if isinstance(r, dict) and "rows" in r)
        results["metrics"] = check_metrics(cluster, files, table_rows)
        return results
    finally:
        cluster.stop()
