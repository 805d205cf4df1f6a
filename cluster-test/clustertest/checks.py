"""What a scenario checks after its jobs: the table holds exactly the input rows and what wrote
each file (TableCheck), Frazil's metrics over REST, the TaskManager logs, the job jar; and the
Iceberg table metadata the kill scenarios time their kills by."""

from __future__ import annotations

import json
import re
import subprocess
import time
import zipfile
from pathlib import Path

from .common import CREATED_BY_PREFIX, INSTALLED_LINE, JOB_PACKAGE, log, require
from .flink import Cluster, FlinkHome


def check_table(cluster: Cluster, job_jar: Path, table: str, count: int, start: int = 0,
                step: int = 1, all_native: bool = True, catalog: list[str] | None = None,
                list_files: bool = False) -> dict:
    """Runs TableCheck (job jar + the cluster's lib/) and asserts on what it reports. With
    `list_files`, facts["files"] maps each data file's name to its created_by."""
    argv = ["java", *FlinkHome.java_opts(cluster.home.conf), "-cp",
            f"{cluster.home.lib}/*:{job_jar}", JOB_PACKAGE + "TableCheck",
            *(catalog or ["--warehouse", str(cluster.home.warehouse)]), "--table", table,
            "--count", str(count), "--start", str(start), "--step", str(step),
            "--list-files", str(list_files).lower()]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    require(bool(lines), f"TableCheck {table} printed no result:\n{result.stdout[-2000:]}"
                         f"{result.stderr[-4000:]}")
    facts = json.loads(lines[-1])
    log(f"table {table}: {facts['rows']} rows (expected {count}), {facts['data_files']} data "
        f"files, {facts['snapshots']} snapshots, created_by {facts['created_by']}")
    require(facts["ok"], f"table {table} does not hold exactly the input rows: {facts}")
    require(facts["data_files"] > 0, f"table {table} has no data files")
    native = {k: v for k, v in facts["created_by"].items() if k.startswith(CREATED_BY_PREFIX)}
    require(not all_native or sum(native.values()) == facts["data_files"],
            f"table {table}: not every data file was written by Frazil: {facts['created_by']}")
    return facts


FRAZIL_TM_METRICS = ["frazil.nativeDataFiles", "frazil.nativeRows", "frazil.nativeBytes",
                     "frazil.nativeEncodeNanos", "frazil.stockDataFiles",
                     "frazil.nativeMemoryBytes"]


def taskmanager_metrics(cluster: Cluster,
                        names: list[str] = FRAZIL_TM_METRICS) -> dict[str, dict[str, float]]:
    """Frazil's per-TaskManager metrics as the JobManager's REST API reports them (a TaskManager
    the JobManager no longer knows is left out)."""
    found = {}
    for tm in cluster.rest("/taskmanagers")["taskmanagers"]:
        try:
            values = cluster.rest(f"/taskmanagers/{tm['id']}/metrics?get=" + ",".join(names))
        except OSError:
            continue
        found[tm["id"]] = {m["id"]: float(m["value"]) for m in values}
    return found


def check_metrics(cluster: Cluster, files: int, rows: int, timeout: float = 90) -> dict:
    """Polls the REST API until the TaskManagers' Frazil metrics add up to the committed tables'
    data files and rows (Flink refreshes metrics on an interval), then returns them."""
    deadline = time.time() + timeout
    while True:
        per_tm = taskmanager_metrics(cluster)
        total = {name: sum(m.get(name, 0.0) for m in per_tm.values())
                 for name in FRAZIL_TM_METRICS}
        if (total["frazil.nativeDataFiles"] == files and total["frazil.nativeRows"] == rows
                and all(len(m) == len(FRAZIL_TM_METRICS) for m in per_tm.values())):
            break
        require(time.time() < deadline,
                f"Frazil metrics from the REST API {total} (per TaskManager {per_tm}) never "
                f"matched the tables: {files} data files, {rows} rows")
        time.sleep(2)
    require(total["frazil.stockDataFiles"] == 0, f"stock data files reported: {total}")
    require(total["frazil.nativeEncodeNanos"] > 0 and total["frazil.nativeBytes"] > 0,
            f"no encode time or bytes reported: {total}")
    memory = ", ".join(f"{m['frazil.nativeMemoryBytes'] / 1e6:.1f} MB" for m in per_tm.values())
    log(f"REST metrics match the tables: {int(total['frazil.nativeDataFiles'])} native data "
        f"files, {int(total['frazil.nativeRows'])} rows, "
        f"{total['frazil.nativeBytes'] / 1e6:.1f} MB, encode "
        f"{total['frazil.nativeEncodeNanos'] / 1e9:.2f} s, native memory now per TaskManager: "
        f"{memory}")
    return {"total": total, "per_taskmanager": per_tm}


def check_logs_installed(cluster: Cluster, names: list[str]) -> dict:
    """Every named TaskManager log has Frazil's bootstrap line; returns 'Frazil wrote' counts."""
    wrote = {}
    for name in names:
        text = (cluster.home.log / f"{name}.log").read_text(errors="replace")
        require(INSTALLED_LINE in text, f"{name}.log has no '{INSTALLED_LINE}' line")
        wrote[name] = text.count("Frazil wrote ")
    log(f"'{INSTALLED_LINE}' in {', '.join(names)}; 'Frazil wrote' lines: {wrote}")
    return wrote


def check_job_jar_clean(job_jar: Path) -> None:
    """The job jar must not mention Frazil: no class, string or resource."""
    with zipfile.ZipFile(job_jar) as jar:
        for entry in jar.namelist():
            require(b"frazil" not in (entry.encode() + jar.read(entry)).lower(),
                    f"job jar entry {entry} mentions frazil")
    log(f"job jar {job_jar.name} has no reference to Frazil")


def first_lines(path: Path, pattern: str, count: int = 30) -> str:
    """The first line matching `pattern` and the lines after it, `count` lines in all."""
    lines = path.read_text(errors="replace").splitlines()
    for i, line in enumerate(lines):
        if re.search(pattern, line):
            return "\n".join(lines[i:i + count])
    return ""


def commits_in(metadata: dict) -> tuple[int, int]:
    """(snapshots, the Flink checkpoint id of the newest commit) of a table metadata JSON."""
    snapshots = metadata.get("snapshots", [])
    current = [s for s in snapshots if s["snapshot-id"] == metadata.get("current-snapshot-id")]
    checkpoint = int(current[0]["summary"].get("flink.max-committed-checkpoint-id", -1)
                     if current else -1)
    return len(snapshots), checkpoint


def local_table_metadata(warehouse: Path, table: str) -> dict:
    """The Hadoop catalog's newest metadata JSON of a table ({} before its first version)."""
    metadata = warehouse.joinpath(*table.split(".")) / "metadata"
    try:
        version = int((metadata / "version-hint.text").read_text().strip())
        return json.loads((metadata / f"v{version}.metadata.json").read_text())
    except (OSError, ValueError):
        return {}


def committed_records(metadata: dict) -> int:
    """Rows in a table's current snapshot (its summary's total-records), 0 before any."""
    current = [s for s in metadata.get("snapshots", [])
               if s["snapshot-id"] == metadata.get("current-snapshot-id")]
    return int(current[0]["summary"].get("total-records", 0)) if current else 0


def iceberg_commits(warehouse: Path, table: str) -> tuple[int, int]:
    """(snapshots, last committed checkpoint id) from the Hadoop catalog's newest metadata."""
    metadata = local_table_metadata(warehouse, table)
    return commits_in(metadata) if metadata else (0, -1)


def parquet_files_on_disk(warehouse: Path, table: str) -> int:
    return len(list((warehouse.joinpath(*table.split(".")) / "data").rglob("*.parquet")))
