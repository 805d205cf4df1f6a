"""TaskManagers where Frazil cannot run (no java.nio add-opens, no native library): jobs still
write every row, with Iceberg's writer there, and the log says why."""

from __future__ import annotations

import json
from pathlib import Path

from ..checks import check_logs_installed, check_table, first_lines
from ..common import CREATED_BY_PREFIX, CheckFailed, log, require
from ..flink import Cluster, FlinkHome
from ..inputs import Inputs


def mixed_cluster(inputs: Inputs, scenario: str, with_frazil: bool = True) -> Cluster:
    """taskmanager-1 as configured; taskmanager-2 from conf-no-nio/, whose env.java.opts.all
    lacks --add-opens=java.base/java.nio=ALL-UNNAMED (an operator who missed the append)."""
    jars = inputs.lib_jars() if with_frazil else [*inputs.flink_jars, *inputs.extra_jars]
    home = FlinkHome(inputs.run_dir(scenario), jars)
    home.write_conf(home.conf)
    home.write_conf(home.root / "conf-no-nio", java_nio_opened=False)
    cluster = Cluster(home)
    cluster.start_jobmanager()
    cluster.start_taskmanager("taskmanager-1")
    cluster.start_taskmanager("taskmanager-2", conf_dir=home.root / "conf-no-nio")
    cluster.wait_for_taskmanagers(2)
    return cluster


def observe_job(cluster: Cluster, name: str, job_jar: Path, main: str, table: str, rows: int,
                timeout: float, args: list[str] = ()) -> dict:
    """Submits a job, waits at most `timeout` s, cancels it if it has not ended, and returns
    what happened."""
    job_id = cluster.run_job(name, job_jar, main,
                             ["--warehouse", str(cluster.home.warehouse), "--table", table,
                              "--rows", str(rows), *args], detached=True)
    try:
        state = cluster.wait_for_job(job_id, timeout=timeout)
    except CheckFailed as e:  # a TaskManager died, or the job did not end in time
        state = f"{cluster.job_state(job_id)} ({e})"
        cluster.cancel(job_id)
    tm_log = cluster.home.log / "taskmanager-2.log"
    result = {
        "job": main, "state": state, "restarts": cluster.restarts(job_id),
        "taskmanager_2_alive": cluster.taskmanagers["taskmanager-2"].poll() is None,
        "taskmanager_2_frazil_warning": first_lines(tm_log, r" (WARN|ERROR) +io\.frazil", 1),
        "first_task_failure": first_lines(cluster.home.log / "jobmanager.log",
                                          r"switched from \w+ to FAILED", 8),
    }
    (cluster.home.log / f"{name}-result.json").write_text(json.dumps(result, indent=2))
    log(f"{name}: {main} {state} after {result['restarts']} restart(s)")
    return result


def scenario_no_add_opens(inputs: Inputs) -> dict:
    """One TaskManager started without the java.nio add-opens. With the Dynamic Iceberg Sink the
    job must write every row (that TaskManager falls back to Iceberg's own writer) and its log
    must say what is missing. FlinkSink is only observed: its committer's Kryo needs java.nio
    whatever writes the files (see the no-add-opens-stock scenario)."""
    cluster = mixed_cluster(inputs, "no-add-opens")
    rows = 100_000
    try:
        # 1 s checkpoints: Flink's default restart strategy (exponential delay, no limit)
        # applies, as in a streaming job, so a failing task restarts rather than ends the job.
        flinksink = observe_job(cluster, "flinksink", inputs.job_jar, "FlinkSinkJob",
                                "db.flinksink", rows, timeout=60, args=["--checkpoint-ms", "1000"])
        # No checkpoints (no restarts): the job must finish on its first attempt.
        dynamic = observe_job(cluster, "dynamic", inputs.job_jar, "DynamicSinkJob",
                              "db.dynamic", rows, timeout=180)
        require(dynamic["state"] == "FINISHED",
                f"Dynamic sink job ended {dynamic['state']} after {dynamic['restarts']} restarts:"
                f" {dynamic['first_task_failure'][:3000]}")
        tables = {}
        for suffix, start in (("_even", 0), ("_odd", 1)):
            tables[suffix] = check_table(cluster, inputs.job_jar, "db.dynamic" + suffix,
                                         rows // 2, start=start, step=2, all_native=False)
        created_by = [k for facts in tables.values() for k in facts["created_by"]]
        kinds = {"frazil" if k.startswith(CREATED_BY_PREFIX) else "stock" for k in created_by}
        require(kinds == {"frazil", "stock"},
                f"expected Frazil files (taskmanager-1) and stock files (taskmanager-2): "
                f"{created_by}")
        warning = dynamic["taskmanager_2_frazil_warning"]
        require("--add-opens=java.base/java.nio=ALL-UNNAMED" in warning,
                f"taskmanager-2.log does not say that the java.nio add-opens is missing: "
                f"{warning!r}")
        check_logs_installed(cluster, ["taskmanager-1"])
        return {"dynamic_tables": tables, "dynamic": dynamic, "flinksink_observed": flinksink}
    finally:
        cluster.stop()


def scenario_no_add_opens_stock(inputs: Inputs) -> dict:
    """Control for no-add-opens: the same cluster WITHOUT Frazil's jar, FlinkSink observed.
    Shows what Flink and Iceberg do on their own on a TaskManager without java.nio."""
    cluster = mixed_cluster(inputs, "no-add-opens-stock", with_frazil=False)
    try:
        return {"flinksink_observed": observe_job(
            cluster, "flinksink", inputs.job_jar, "FlinkSinkJob", "db.flinksink", 100_000,
            timeout=60, args=["--checkpoint-ms", "1000"])}
    finally:
        cluster.stop()


BAD_NATIVE_PATH = "/nonexistent/libfrazil.so"


NATIVE_UNAVAILABLE_LINE = "Frazil's native library could not be loaded"


def scenario_bad_native(inputs: Inputs) -> dict:
    """taskmanager-2 is started with env.java.opts.taskmanager
    -Dfrazil.native.path=/nonexistent/libfrazil.so: it cannot load the native library. A FlinkSink
    job and an IcebergSink job (one writer subtask per TaskManager) must still write every row;
    each data file's created_by must match the TaskManager its writer subtask ran on (Frazil's on
    taskmanager-1, parquet-java's on taskmanager-2), and taskmanager-2's log must say so once for
    the whole process (two jobs), taskmanager-1's never."""
    home = FlinkHome(inputs.run_dir("bad-native"), inputs.lib_jars())
    home.write_conf(home.conf)
    home.write_conf(home.root / "conf-bad-native",
                    taskmanager_opts=f"-Dfrazil.native.path={BAD_NATIVE_PATH}")
    cluster = Cluster(home)
    try:
        cluster.start_jobmanager()
        cluster.start_taskmanager("taskmanager-1")
        cluster.start_taskmanager("taskmanager-2", conf_dir=home.root / "conf-bad-native")
        cluster.wait_for_taskmanagers(2)
        results, per_tm = {}, {"taskmanager-1": {}, "taskmanager-2": {}}
        for main, table in (("FlinkSinkJob", "db.flinksink"), ("IcebergSinkJob", "db.icebergsink")):
            rows = 100_000
            job_id = cluster.run_job(main, inputs.job_jar, main,
                                     ["--warehouse", str(cluster.home.warehouse),
                                      "--table", table, "--rows", str(rows)])
            require(cluster.restarts(job_id) == 0, f"{main} restarted")
            writers = cluster.placement(job_id, "Writer", parallelism=2)
            require(len(writers) == 1, f"{main}: expected one writer vertex: {writers}")
            subtask_tm = next(iter(writers.values()))
            require(sorted(subtask_tm.values()) == ["taskmanager-1", "taskmanager-2"],
                    f"{main}: expected one writer subtask per TaskManager: {subtask_tm}")
            facts = check_table(cluster, inputs.job_jar, table, rows, all_native=False,
                                list_files=True)
            # Iceberg names data files <subtask>-<attempt>-<operation id>-<count>.parquet.
            for name, created_by in facts.pop("files").items():
                tm = subtask_tm[int(name.split("-", 1)[0])]
                kind = "frazil" if created_by.startswith(CREATED_BY_PREFIX) else created_by
                per_tm[tm][kind] = per_tm[tm].get(kind, 0) + 1
            results[main] = facts
        log(f"created_by per TaskManager: {per_tm}")
        require(list(per_tm["taskmanager-1"]) == ["frazil"],
                f"taskmanager-1 wrote files not by Frazil: {per_tm}")
        stock = list(per_tm["taskmanager-2"])
        require(len(stock) == 1 and stock[0].startswith("parquet-mr version"),
                f"taskmanager-2 wrote files not by Iceberg's stock writer (parquet-java): {per_tm}")
        lines = {}
        for name in cluster.taskmanagers:
            text = (cluster.home.log / f"{name}.log").read_text(errors="replace")
            lines[name] = [line for line in text.splitlines() if NATIVE_UNAVAILABLE_LINE in line]
        counts = {name: len(found) for name, found in lines.items()}
        log(f"'{NATIVE_UNAVAILABLE_LINE}' lines: {counts}")
        require(counts == {"taskmanager-1": 0, "taskmanager-2": 1},
                f"expected the fallback logged once by taskmanager-2 only: {counts}")
        require(BAD_NATIVE_PATH in lines["taskmanager-2"][0] and " WARN " in lines["taskmanager-2"][0],
                f"the warning does not name {BAD_NATIVE_PATH}: {lines['taskmanager-2'][0]}")
        wrote = check_logs_installed(cluster, list(cluster.taskmanagers))
        require(wrote["taskmanager-1"] == per_tm["taskmanager-1"]["frazil"]
                and wrote["taskmanager-2"] == 0,
                f"'Frazil wrote' lines {wrote} do not match the files {per_tm}")
        return {"tables": results, "created_by_per_taskmanager": per_tm,
                "native_unavailable_lines": counts,
                "native_unavailable_warning": lines["taskmanager-2"][0],
                "frazil_wrote_lines": wrote}
    finally:
        cluster.stop()
