#!/usr/bin/env python3
"""Frazil on a real Flink cluster: separate JobManager and TaskManager JVMs on 127.0.0.1.

Assembles a FLINK_HOME from jars the build copied from Maven Central (flink-home/target/lib),
adds Iceberg's runtime jar, the Hadoop client and Frazil's runtime jar to lib/, writes
conf/config.yaml, starts the processes the way Flink's bin/ scripts do, submits a job jar that
knows nothing about Frazil through Flink's CLI (`flink run`), and checks what it wrote:

  smoke        the short form in `make test` (`make run-cluster-test-smoke`): two TaskManagers
               of two slots each, one throttled FlinkSink job with 1 s checkpoints, kill -9 of
               the source's TaskManager between two checkpoints; the job restarts in the
               survivor's spare slots and commits every id once
  sinks        FlinkSink, IcebergSink (Sink V2), Dynamic Iceberg Sink and SQL INSERT jobs on one
               cluster; Frazil's per-TaskManager metrics read back through the REST API add up
               to the tables' data files and rows
  failover     kill -9 a TaskManager between checkpoints, one started after the kill takes over,
               every id once
  kill-in-checkpoint  kill -9 a writer's TaskManager WHILE a checkpoint is in flight: the job's
               "rows" operator snapshots checkpoint 4 slowly (8 s); once every other subtask
               has acknowledged it (the writers' files for it are flushed, not committed), the
               TaskManager of a writer is killed; the spare takes over, checkpoint 4 never
               completes, every id once
  no-add-opens one TaskManager without --add-opens=java.base/java.nio: a Dynamic Iceberg Sink
               job still writes every row (stock writer there) and that TaskManager's log says
               what is missing; a FlinkSink job is only observed: Iceberg's FlinkSink itself
               fails there (Kryo copies its write results' ByteBuffers), Frazil or not
  no-add-opens-stock  the same cluster without Frazil's jar, FlinkSink observed (the control)
  bad-native   one TaskManager with env.java.opts.taskmanager
               -Dfrazil.native.path=/nonexistent/libfrazil.so: FlinkSink and IcebergSink jobs
               write every row; per data file, created_by matches the TaskManager of its writer
               subtask (Frazil's on taskmanager-1, parquet-java's on taskmanager-2), and
               taskmanager-2's log has the "native library could not be loaded" warning
               exactly once for both jobs
  s3           FlinkSink to S3 (moto_server on 127.0.0.1, installed into a venv under target/)
               through Iceberg's S3FileIO and a JDBC catalog on SQLite; multipart uploads
  s3-outage    the s3 setup with a fault-injecting TCP proxy between Flink and moto: mid-write it
               resets every open S3 connection and refuses every new one for 8 s; the job
               retries or restarts and commits every id once, every file Frazil's
  read         the read path: FlinkSinkJob writes a source table (300,000 rows, 8 files); a
               bounded IcebergSource (FLIP-27, two throttled readers, a split per file) copies it
               with FlinkSink (one writer), 1 s checkpoints; kill -9 of a reader's TaskManager mid-read (2
               commits in, readers running), a new TaskManager takes over; the copy holds every
               id once and the REST read metrics (frazil.nativeReadFiles > 0,
               frazil.stockReadFiles 0) say the survivors read natively
  read-s3      the read scenario with both tables on moto (S3FileIO, JDBC catalog)
  all          sinks, failover, kill-in-checkpoint, no-add-opens, bad-native, s3, s3-outage,
               read, read-s3 (`make cluster-test`)
  core         smoke, sinks, failover, kill-in-checkpoint, read (`make cluster-test FLINK=1.20`)

Each check: the table holds exactly the input rows (every column recomputed from the id: no id
lost, none duplicated), every data file's Parquet footer says `created_by` = "frazil version ..."
(in no-add-opens and bad-native: Frazil's on taskmanager-1, parquet-java's "parquet-mr version
..." on taskmanager-2), every TaskManager log with the flag has Frazil's "Frazil installed" line,
and the job jar holds no byte string "frazil". The fault scenarios also require the job to have
restarted (kills) and finished. Sources are Flink's NumberSequenceSource, whose splits are
checkpointed: a restarted job replays exactly the ids after its last checkpoint (the read
scenarios: an IcebergSource, whose splits and positions in them are checkpointed).

`--flink 1.20` (or env FLINK=1.20; `make cluster-test FLINK=1.20`) runs the same scenarios on
Flink 1.20 with the 1.20 runtime jar: the Maven profile flink-1.20 builds its lib/ and job jar
into target/flink-1.20/ of each module, and its runs and results.json go to
cluster-test/target/flink-1.20/.

Everything lives under cluster-test/target/ (git-ignored); each scenario's FLINK_HOME, logs and
warehouse stay there for inspection. Every process this script starts is stopped on every path
(normal exit, failure, Ctrl-C, SIGTERM). Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import re
import selectors
import shutil
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import threading
import time
import urllib.request
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
BUILD = HERE / "target"
# The Flink lines this runs on (`--flink`, or env FLINK as the Makefile passes it). The default
# line's Maven outputs are under each module's target/, another line's under
# target/flink-<line>/ (its Maven profile flink-<line>, root pom.xml), and so are its runs here.
DEFAULT_FLINK = "2.1"
FLINK_LINES = ("2.1", "1.20")

# Flink's default `env.java.opts.all` for Java 17 (flink-dist's config.yaml), WITHOUT
# java.base/java.nio: Flink's own list already contains that entry, and it is taken out here so
# that Frazil's one addition below is what opens it (and the no-add-opens scenario can omit it).
FLINK_JAVA17_OPTS = (
    "--add-exports=java.base/sun.net.util=ALL-UNNAMED "
    "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED "
    "--add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED "
    "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED "
    "--add-exports=jdk.compiler/com.sun.tools.javac.parser=ALL-UNNAMED "
    "--add-exports=jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED "
    "--add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED "
    "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED "
    "--add-opens=java.base/java.lang=ALL-UNNAMED "
    "--add-opens=java.base/java.net=ALL-UNNAMED "
    "--add-opens=java.base/java.io=ALL-UNNAMED "
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED "
    "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED "
    "--add-opens=java.base/java.text=ALL-UNNAMED "
    "--add-opens=java.base/java.time=ALL-UNNAMED "
    "--add-opens=java.base/java.util=ALL-UNNAMED "
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED "
    "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED "
    "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED"
)
# The only Frazil-specific setting: appended to env.java.opts.all (Arrow needs it).
FRAZIL_JAVA_OPTS = "--add-opens=java.base/java.nio=ALL-UNNAMED"

CREATED_BY_PREFIX = "frazil version "
INSTALLED_LINE = "Frazil installed"
JOB_PACKAGE = "example.clusterjob."

LOG4J = """\
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = MainAppender
logger.pekko.name = org.apache.pekko
logger.pekko.level = INFO
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = WARN
logger.netty.name = org.jboss.netty.channel.DefaultChannelPipeline
logger.netty.level = OFF
appender.main.name = MainAppender
appender.main.type = File
appender.main.append = true
appender.main.fileName = ${sys:log.file}
appender.main.layout.type = PatternLayout
appender.main.layout.pattern = %d{yyyy-MM-dd HH:mm:ss,SSS} %-5p %-60c %x - %m%n
"""


class CheckFailed(Exception):
    """A check of the cluster test did not hold."""


def log(message: str) -> None:
    print(f"[cluster {time.strftime('%H:%M:%S')}] {message}", flush=True)


def require(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def one_file(pattern: str, directory: Path) -> Path:
    found = sorted(p for p in directory.glob(pattern) if not p.name.startswith("original-"))
    if len(found) != 1:
        raise SystemExit(f"expected one {directory}/{pattern}, found {found}: build first "
                         "(make cluster-test builds everything it needs)")
    return found[0]


# ---------------------------------------------------------------------------------------------
# Processes: every JVM this script starts is registered here and stopped on every exit path.

PROCESSES: list[subprocess.Popen] = []


def stop_process(proc: subprocess.Popen, grace: float = 20.0) -> None:
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def stop_all() -> None:
    for proc in reversed(PROCESSES):
        stop_process(proc)


def on_signal(signum, _frame):
    raise SystemExit(128 + signum)


atexit.register(stop_all)
for _sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(_sig, on_signal)


# ---------------------------------------------------------------------------------------------
# FLINK_HOME


class FlinkHome:
    """lib/ (copies of the built jars), conf/, log/, plugins/ for one scenario."""

    def __init__(self, root: Path, lib_jars: list[Path]):
        if root.exists():
            shutil.rmtree(root)
        self.root = root
        self.lib = root / "lib"
        self.conf = root / "conf"
        self.log = root / "log"
        self.work = root / "work"
        for d in (self.lib, self.conf, self.log, root / "plugins", self.work / "tmp"):
            d.mkdir(parents=True)
        for jar in lib_jars:
            shutil.copy2(jar, self.lib / jar.name)
        self.rest_port = free_port()
        self.rpc_port = free_port()
        self.warehouse = self.work / "warehouse"

    def write_conf(self, conf_dir: Path, java_nio_opened: bool = True,
                   taskmanager_opts: str = "", slots: int = 1,
                   extra: dict | None = None) -> None:
        """conf/config.yaml (Flink 2.x, and 1.20, which reads the same file and keys); Frazil's
        only line is the java.nio append.
        `taskmanager_opts` goes to env.java.opts.taskmanager (TaskManager JVMs only); `extra`
        adds or overrides settings."""
        conf_dir.mkdir(parents=True, exist_ok=True)
        opts = FLINK_JAVA17_OPTS + (" " + FRAZIL_JAVA_OPTS if java_nio_opened else "")
        settings = {
            "jobmanager.rpc.address": "127.0.0.1",
            "jobmanager.rpc.port": self.rpc_port,
            "jobmanager.bind-host": "127.0.0.1",
            "jobmanager.memory.process.size": "1024m",
            "jobmanager.execution.failover-strategy": "region",
            "taskmanager.host": "127.0.0.1",
            "taskmanager.bind-host": "127.0.0.1",
            "taskmanager.numberOfTaskSlots": slots,
            "taskmanager.memory.process.size": "1536m",
            "taskmanager.memory.managed.size": "64m",
            "rest.address": "127.0.0.1",
            "rest.bind-address": "127.0.0.1",
            "rest.port": self.rest_port,
            "parallelism.default": 2,
            # Seconds, not Flink's 50 s, to notice a killed TaskManager quickly.
            "heartbeat.interval": 2000,
            "heartbeat.timeout": 10000,
            # Fresh checkpoint statistics over REST (the failover scenario times its kill by them).
            "rest.cache.checkpoint-statistics.timeout": "100ms",
            "execution.checkpointing.dir": (self.work / "checkpoints").as_uri(),
            "io.tmp.dirs": str(self.work / "tmp"),
            "env.java.opts.all": opts,
        }
        if taskmanager_opts:
            settings["env.java.opts.taskmanager"] = taskmanager_opts
        settings.update(extra or {})
        lines = [f"{key}: {json.dumps(value)}" for key, value in settings.items()]
        (conf_dir / "config.yaml").write_text("\n".join(lines) + "\n")
        (conf_dir / "log4j.properties").write_text(LOG4J)
        (conf_dir / "log4j-cli.properties").write_text(LOG4J)

    @staticmethod
    def java_opts(conf_dir: Path, role: str = "") -> list[str]:
        """env.java.opts.all, then env.java.opts.<role> (jobmanager, taskmanager), as
        bin/config.sh reads them from config.yaml."""
        opts = []
        for key in ("env.java.opts.all", *([f"env.java.opts.{role}"] if role else [])):
            for line in (conf_dir / "config.yaml").read_text().splitlines():
                if line.startswith(key + ":"):
                    opts.extend(json.loads(line.split(":", 1)[1]).split())
        return opts


class Cluster:
    """One JobManager and any number of TaskManagers, as bin/jobmanager.sh/taskmanager.sh run them."""

    def __init__(self, home: FlinkHome):
        self.home = home
        self.taskmanagers: dict[str, subprocess.Popen] = {}
        self.resource_params: dict[tuple[str, Path], tuple[list[str], list[str]]] = {}
        self.env = dict(os.environ, FLINK_HOME=str(home.root), FLINK_CONF_DIR=str(home.conf),
                        FLINK_LIB_DIR=str(home.lib), FLINK_PLUGINS_DIR=str(home.root / "plugins"))
        self.classpath = str(home.lib / "*")

    # -- processes --

    def _resource_params(self, command: str, conf_dir: Path) -> tuple[list[str], list[str]]:
        """JVM memory flags and -D settings from Flink's BashJavaUtils, as bin/ scripts get them
        (computed once per command and configuration: a JVM start each, seconds on a busy
        machine)."""
        key = (command, conf_dir)
        if key not in self.resource_params:
            self.resource_params[key] = self._compute_resource_params(command, conf_dir)
        return self.resource_params[key]

    def _compute_resource_params(self, command: str,
                                 conf_dir: Path) -> tuple[list[str], list[str]]:
        out = subprocess.run(
            ["java", "-cp", self.classpath, "org.apache.flink.runtime.util.bash.BashJavaUtils",
             command, "--configDir", str(conf_dir)],
            env=self.env, capture_output=True, text=True, timeout=60, check=True).stdout
        results = [line.split(":", 1)[1] for line in out.splitlines()
                   if line.startswith("BASH_JAVA_UTILS_EXEC_RESULT:")]
        require(len(results) >= 2, f"BashJavaUtils {command} printed: {out[-2000:]}")
        return results[0].split(), results[1].split()

    def _start(self, name: str, main: str, conf_dir: Path, command: str, role: str,
               extra_args: list[str]) -> subprocess.Popen:
        jvm, dynamic = self._resource_params(command, conf_dir)
        log_file = self.home.log / f"{name}.log"
        argv = (["java", *jvm, *FlinkHome.java_opts(conf_dir, role),
                 f"-Dlog.file={log_file}",
                 f"-Dlog4j.configurationFile=file:{conf_dir / 'log4j.properties'}",
                 "-cp", self.classpath, main, "--configDir", str(conf_dir), *dynamic, *extra_args])
        out = open(self.home.log / f"{name}.out", "w")
        proc = subprocess.Popen(argv, cwd=self.home.root, env=self.env, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        out.close()
        PROCESSES.append(proc)
        log(f"started {name} (pid {proc.pid})")
        return proc

    def start_jobmanager(self) -> None:
        self.jobmanager = self._start(
            "jobmanager", "org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint",
            self.home.conf, "GET_JM_RESOURCE_PARAMS", "jobmanager", [])

    def start_taskmanager(self, name: str, conf_dir: Path | None = None) -> None:
        self.taskmanagers[name] = self._start(
            name, "org.apache.flink.runtime.taskexecutor.TaskManagerRunner",
            conf_dir or self.home.conf, "GET_TM_RESOURCE_PARAMS", "taskmanager",
            ["-D", f"taskmanager.resource-id={name}"])

    def kill_taskmanager(self, name: str) -> None:
        proc = self.taskmanagers[name]
        proc.killed_on_purpose = True
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        log(f"killed {name} (pid {proc.pid}) with SIGKILL")

    def stop(self) -> None:
        for proc in [*self.taskmanagers.values(), getattr(self, "jobmanager", None)]:
            if proc is not None:
                stop_process(proc)

    def check_alive(self) -> None:
        for name, proc in [("jobmanager", self.jobmanager), *self.taskmanagers.items()]:
            if proc.poll() is not None and not getattr(proc, "killed_on_purpose", False):
                raise CheckFailed(f"{name} exited with {proc.returncode}; see "
                                  f"{self.home.log / (name + '.log')}")

    # -- REST --

    def rest(self, path: str) -> dict:
        url = f"http://127.0.0.1:{self.home.rest_port}{path}"
        with urllib.request.urlopen(url, timeout=10) as response:
            return json.load(response)

    def wait_for_taskmanagers(self, count: int, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        seen = -1
        while time.monotonic() < deadline:
            self.check_alive()
            try:
                seen = len(self.rest("/taskmanagers")["taskmanagers"])
            except OSError:
                seen = -1
            if seen >= count:
                log(f"REST reports {seen} TaskManagers")
                return
            time.sleep(1)
        raise CheckFailed(f"{count} TaskManagers not registered within {timeout:.0f} s "
                          f"(REST saw {seen})")

    def job_state(self, job_id: str) -> str:
        return self.rest(f"/jobs/{job_id}")["state"]

    def restarts(self, job_id: str) -> int:
        """How often the job went RUNNING -> RESTARTING, from the JobManager's log (the
        numRestarts metric is gone once a job has finished)."""
        text = (self.home.log / "jobmanager.log").read_text(errors="replace")
        return len(re.findall(rf"\({job_id}\) switched from state RUNNING to RESTARTING", text))

    def taskmanager_of(self, job_id: str, vertex_prefix: str, timeout: float = 60) -> str:
        """The resource id of the TaskManager running subtask 0 of a vertex, once it runs."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for vertex in self.rest(f"/jobs/{job_id}")["vertices"]:
                if vertex["name"].startswith(vertex_prefix):
                    subtask = self.rest(f"/jobs/{job_id}/vertices/{vertex['id']}")["subtasks"][0]
                    if subtask["status"] == "RUNNING" and subtask["taskmanager-id"] in self.taskmanagers:
                        return subtask["taskmanager-id"]
            time.sleep(0.5)
        raise CheckFailed(f"job {job_id}: no running vertex {vertex_prefix}... in {timeout:.0f} s")

    def placement(self, job_id: str, vertex_pattern: str = "",
                  parallelism: int | None = None) -> dict[str, dict[int, str]]:
        """{vertex name: {subtask index: TaskManager resource id}} of the vertices whose name
        matches `vertex_pattern` (regex) and, if given, whose parallelism is `parallelism`, from
        the latest attempt of each subtask (also after the job has ended)."""
        found = {}
        for vertex in self.rest(f"/jobs/{job_id}")["vertices"]:
            if (re.search(vertex_pattern, vertex["name"])
                    and parallelism in (None, vertex["parallelism"])):
                subtasks = self.rest(f"/jobs/{job_id}/vertices/{vertex['id']}")["subtasks"]
                found[vertex["name"]] = {s["subtask"]: s["taskmanager-id"] for s in subtasks}
        return found

    def cancel(self, job_id: str) -> None:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.home.rest_port}/jobs/{job_id}?mode=cancel", method="PATCH")
        with urllib.request.urlopen(request, timeout=10):
            pass

    # -- the client --

    def run_job(self, name: str, job_jar: Path, main: str, args: list[str],
                detached: bool = False, timeout: float = 300) -> str:
        """`flink run [-d] -c main job.jar args`; returns the job id."""
        log_file = self.home.log / f"client-{name}.log"
        argv = (["java", *FlinkHome.java_opts(self.home.conf), f"-Dlog.file={log_file}",
                 f"-Dlog4j.configurationFile=file:{self.home.conf / 'log4j-cli.properties'}",
                 "-cp", self.classpath, "org.apache.flink.client.cli.CliFrontend", "run",
                 *(["-d"] if detached else []), "-c", JOB_PACKAGE + main, str(job_jar), *args])
        started = time.monotonic()
        result = subprocess.run(argv, cwd=self.home.root, env=self.env, capture_output=True,
                                text=True, timeout=timeout)
        (self.home.log / f"client-{name}.out").write_text(result.stdout + result.stderr)
        match = re.search(r"JobID ([0-9a-f]{32})", result.stdout)
        if result.returncode != 0 or not match:
            raise CheckFailed(f"flink run {name} exited {result.returncode}:\n"
                              f"{(result.stdout + result.stderr)[-4000:]}")
        job_id = match.group(1)
        log(f"flink run {name}: job {job_id}, client took {time.monotonic() - started:.1f} s")
        if not detached:
            state = self.job_state(job_id)
            require(state == "FINISHED", f"job {job_id} ({name}) is {state}, not FINISHED")
        return job_id

    def wait_for_job(self, job_id: str, timeout: float = 300) -> str:
        deadline = time.monotonic() + timeout
        state = "?"
        while time.monotonic() < deadline:
            self.check_alive()
            state = self.job_state(job_id)
            if state in ("FINISHED", "FAILED", "CANCELED"):
                return state
            time.sleep(1)
        raise CheckFailed(f"job {job_id} still {state} after {timeout:.0f} s")


# ---------------------------------------------------------------------------------------------
# Checks


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


# ---------------------------------------------------------------------------------------------
# Scenarios


def maven_target(module: Path, flink: str) -> Path:
    """Where Maven builds `module` for a Flink line: target/, or target/flink-<line>/."""
    return module / "target" / ("" if flink == DEFAULT_FLINK else f"flink-{flink}")


class Inputs:
    """The jars of one Flink line's cluster, and where its runs and results go."""

    def __init__(self, flink: str):
        self.flink = flink
        lib = maven_target(HERE / "flink-home", flink) / "lib"
        self.flink_jars = sorted((lib / "flink").glob("*.jar"))
        self.extra_jars = sorted((lib / "extra").glob("*.jar"))
        self.s3_jars = sorted((lib / "s3").glob("*.jar"))
        build = f"make runtime-jar cluster-test-build FLINK={flink}"
        if not self.flink_jars or not self.extra_jars:
            raise SystemExit(f"no jars under {lib}: build first ({build})")
        self.frazil_jar = one_file(f"frazil-flink-runtime-{flink}-*.jar",
                                   maven_target(REPO / "flink-runtime", flink))
        self.job_jar = one_file("iceberg-cluster-job-*.jar", maven_target(HERE / "job", flink))
        self.out = BUILD if flink == DEFAULT_FLINK else BUILD / f"flink-{flink}"

    def run_dir(self, scenario: str) -> Path:
        return self.out / "run" / scenario

    def lib_jars(self) -> list[Path]:
        return [*self.flink_jars, *self.extra_jars, self.frazil_jar]


def start_cluster(inputs: Inputs, scenario: str, taskmanagers: int = 2,
                  extra_jars: list[Path] = (), slots: int = 1,
                  settings: dict | None = None) -> Cluster:
    home = FlinkHome(inputs.run_dir(scenario), [*inputs.lib_jars(), *extra_jars])
    home.write_conf(home.conf, slots=slots, extra=settings)
    cluster = Cluster(home)
    cluster.start_jobmanager()
    for i in range(1, taskmanagers + 1):
        cluster.start_taskmanager(f"taskmanager-{i}")
    cluster.wait_for_taskmanagers(taskmanagers)
    return cluster


def flink_sink_job(cluster: Cluster, inputs: Inputs, table: str, rows: int) -> dict:
    cluster.run_job("flinksink", inputs.job_jar, "FlinkSinkJob",
                    ["--warehouse", str(cluster.home.warehouse), "--table", table,
                     "--rows", str(rows)])
    return check_table(cluster, inputs.job_jar, table, rows)


def scenario_smoke(inputs: Inputs) -> dict:
    """The short form in `make test`: one throttled FlinkSink job with 1 s checkpoints on two
    TaskManagers of two slots each, kill -9 of the TaskManager running the source between two
    checkpoints; the job restarts in the survivor's spare slots and commits every id once."""
    check_job_jar_clean(inputs.job_jar)
    return kill_between_checkpoints(inputs, "smoke", rows=30_000, rows_per_second=3_000,
                                    commits=2, spare_slots=True)


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


def first_lines(path: Path, pattern: str, count: int = 30) -> str:
    """The first line matching `pattern` and the lines after it, `count` lines in all."""
    lines = path.read_text(errors="replace").splitlines()
    for i, line in enumerate(lines):
        if re.search(pattern, line):
            return "\n".join(lines[i:i + count])
    return ""


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


MOTO = "moto[server]==5.2.5"
S3_BUCKET = "warehouse"


def start_moto(home: FlinkHome) -> int:
    """moto's S3 server on 127.0.0.1 from a venv under cluster-test/target (made on first use);
    returns its port once it answers, with the bucket created."""
    venv = BUILD / "venv"
    server = venv / "bin" / "moto_server"
    if not server.exists():
        log(f"installing {MOTO} into {venv}")
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True,
                       timeout=300)
        subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", MOTO], check=True,
                       timeout=900)
    port = free_port()
    out = open(home.log / "moto.out", "w")
    proc = subprocess.Popen([str(server), "-H", "127.0.0.1", "-p", str(port)], stdout=out,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    out.close()
    PROCESSES.append(proc)
    deadline = time.monotonic() + 60
    while True:
        require(proc.poll() is None, f"moto_server exited {proc.returncode}: see moto.out")
        try:
            request = urllib.request.Request(f"http://127.0.0.1:{port}/{S3_BUCKET}", method="PUT")
            with urllib.request.urlopen(request, timeout=5):
                break
        except OSError:
            require(time.monotonic() < deadline, "moto_server did not answer within 60 s")
            time.sleep(0.5)
    log(f"moto S3 server (pid {proc.pid}) on 127.0.0.1:{port}, bucket {S3_BUCKET}")
    return port


def s3_object_sizes(port: int, prefix: str) -> dict[str, int]:
    """Keys and sizes under a prefix, by S3 ListObjectsV2 (moto accepts unsigned requests)."""
    url = f"http://127.0.0.1:{port}/{S3_BUCKET}?list-type=2&prefix={prefix}&max-keys=1000"
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode()
    keys = re.findall(r"<Key>([^<]+)</Key>", text)
    sizes = [int(v) for v in re.findall(r"<Size>(\d+)</Size>", text)]
    return dict(zip(keys, sizes))


class FaultProxy(threading.Thread):
    """A TCP proxy 127.0.0.1:<port> -> 127.0.0.1:<target> (one thread, non-blocking sockets)
    that can stop serving for a while: outage(seconds) resets (RST) every open connection, and
    for `seconds` every new connection is accepted and reset at once. Counts what it did."""

    def __init__(self, target: int):
        super().__init__(name="fault-proxy", daemon=True)
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ)
        self.peers: dict[socket.socket, socket.socket] = {}
        self.clients: set[socket.socket] = set()
        self.lock = threading.Lock()
        self.down_until = 0.0
        self.reset_requested = False
        self.stopping = False
        self.counts = {"connections": 0, "bytes_to_server": 0, "bytes_to_client": 0,
                       "reset_open": 0, "reset_new": 0}
        self.start()

    def outage(self, seconds: float) -> None:
        with self.lock:
            self.down_until = time.monotonic() + seconds
            self.reset_requested = True

    def down(self) -> bool:
        return time.monotonic() < self.down_until

    def stop(self) -> None:
        self.stopping = True
        self.join(timeout=10)
        for sock in [*self.peers, self.listener]:
            sock.close()
        self.selector.close()

    @staticmethod
    def _reset(sock: socket.socket) -> None:
        try:  # linger 0: close() sends RST instead of FIN
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        sock.close()

    def _drop(self, sock: socket.socket, reset: bool) -> None:
        for s in (sock, self.peers.get(sock)):
            if s is not None and s in self.peers:
                del self.peers[s]
                self.clients.discard(s)
                self.selector.unregister(s)
                self._reset(s) if reset else s.close()

    def _accept(self) -> None:
        try:
            client, _ = self.listener.accept()
        except BlockingIOError:
            return
        if self.down():
            self.counts["reset_new"] += 1
            self._reset(client)
            return
        try:
            server = socket.create_connection(("127.0.0.1", self.target), timeout=5)
        except OSError:
            self._reset(client)
            return
        self.counts["connections"] += 1
        for sock, other in ((client, server), (server, client)):
            sock.setblocking(True)
            sock.settimeout(30)  # for sendall to the other side only; reads wait for select
            self.peers[sock] = other
            self.selector.register(sock, selectors.EVENT_READ)
        self.clients.add(client)

    def _pump(self, sock: socket.socket) -> None:
        try:
            data = sock.recv(1 << 16)
            if data:
                self.peers[sock].sendall(data)
                key = "bytes_to_client" if sock not in self.clients else "bytes_to_server"
                self.counts[key] += len(data)
                return
            self._drop(sock, reset=False)
        except OSError:
            self._drop(sock, reset=True)

    def run(self) -> None:
        while not self.stopping:
            with self.lock:
                reset, self.reset_requested = self.reset_requested, False
            if reset:
                self.counts["reset_open"] += len(self.clients)
                for client in list(self.clients):
                    self._drop(client, reset=True)
            for key, _ in self.selector.select(timeout=0.1):
                if key.fileobj is self.listener:
                    self._accept()
                elif key.fileobj in self.peers:
                    self._pump(key.fileobj)


def s3_catalog(cluster: Cluster, port: int) -> list[str]:
    """Job/TableCheck arguments: a JDBC catalog on SQLite whose FileIO is S3FileIO against
    127.0.0.1:port."""
    props = {
        "uri": "jdbc:sqlite:" + str(cluster.home.work / "catalog.db"),
        "jdbc.schema-version": "V1",
        "io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        "s3.endpoint": f"http://127.0.0.1:{port}",
        "s3.path-style-access": "true",
        "s3.access-key-id": "test",
        "s3.secret-access-key": "test",
        "client.region": "us-east-1",
        # 5 MB parts (S3's minimum) from the first part on, so data files use multipart.
        "s3.multipart.part-size-bytes": str(5 * 1024 * 1024),
        "s3.multipart.threshold": "1.0",
    }
    return ["--warehouse", f"s3://{S3_BUCKET}/wh", "--catalog-impl",
            "org.apache.iceberg.jdbc.JdbcCatalog",
            "--catalog-props", ",".join(f"{k}={v}" for k, v in props.items())]


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


def s3_iceberg_commits(cluster: Cluster, port: int, table: str) -> tuple[int, int]:
    """(snapshots, last committed checkpoint id) of a table in the JDBC catalog on SQLite, its
    metadata file read from moto directly (not through the fault proxy)."""
    metadata = s3_table_metadata(cluster, port, table)
    return commits_in(metadata) if metadata else (0, -1)


def s3_table_metadata(cluster: Cluster, port: int, table: str) -> dict:
    """The current metadata JSON of a table in the JDBC catalog on SQLite, read from moto at
    `port` ({} before the table exists or when it cannot be read)."""
    namespace, name = table.split(".")
    try:
        with sqlite3.connect(f"file:{cluster.home.work / 'catalog.db'}?mode=ro", uri=True,
                             timeout=5) as db:
            row = db.execute("SELECT metadata_location FROM iceberg_tables WHERE "
                             "table_namespace = ? AND table_name = ?", (namespace, name)).fetchone()
        if not row:
            return {}
        key = row[0].removeprefix(f"s3://{S3_BUCKET}/")
        # moto answers an object GET only with some (unchecked) AWS authorization header.
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/{S3_BUCKET}/{key}",
            headers={"Authorization": "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/s3/"
                                      "aws4_request, SignedHeaders=host, Signature=0"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)
    except (sqlite3.Error, OSError, ValueError):
        return {}


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


def subtask_states(cluster: Cluster, job_id: str, vertex_prefix: str) -> dict[str, list[str]]:
    """{TaskManager resource id: [status of each subtask of the vertex there]}."""
    found: dict[str, list[str]] = {}
    for vertex in cluster.rest(f"/jobs/{job_id}")["vertices"]:
        if vertex["name"].startswith(vertex_prefix):
            for sub in cluster.rest(f"/jobs/{job_id}/vertices/{vertex['id']}")["subtasks"]:
                found.setdefault(sub["taskmanager-id"], []).append(sub["status"])
    return found


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


SCENARIOS = {
    "smoke": scenario_smoke,
    "sinks": scenario_sinks,
    "failover": scenario_failover,
    "kill-in-checkpoint": scenario_kill_in_checkpoint,
    "no-add-opens": scenario_no_add_opens,
    "bad-native": scenario_bad_native,
    "no-add-opens-stock": scenario_no_add_opens_stock,
    "s3": scenario_s3,
    "s3-outage": scenario_s3_outage,
    "read": scenario_read,
    "read-s3": scenario_read_s3,
}
GROUPS = {"all": ["sinks", "failover", "kill-in-checkpoint", "no-add-opens", "bad-native", "s3",
                  "s3-outage", "read", "read-s3"],
          # What `make cluster-test FLINK=1.20` runs: the sinks, the kills and the read path.
          "core": ["smoke", "sinks", "failover", "kill-in-checkpoint", "read"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenarios", nargs="*", default=["all"],
                        help=f"{', '.join(SCENARIOS)}, or a group: all (default), core")
    parser.add_argument("--flink", choices=FLINK_LINES,
                        default=os.environ.get("FLINK") or DEFAULT_FLINK,
                        help=f"the Flink line (default: env FLINK, else {DEFAULT_FLINK})")
    args = parser.parse_args()
    names = []
    for name in args.scenarios:
        names.extend(GROUPS.get(name, [name]))
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario(s) {unknown}")
    inputs = Inputs(args.flink)
    log(f"Flink {inputs.flink}; lib/: {len(inputs.flink_jars)} Flink jars + {[j.name for j in inputs.extra_jars]} + "
        f"{inputs.frazil_jar.name}")
    summary = {}
    failed = False
    for name in names:
        started = time.monotonic()
        try:
            summary[name] = {"ok": True, **SCENARIOS[name](inputs)}
        except Exception as e:  # noqa: BLE001 - every failure is reported, then the next scenario runs
            failed = True
            summary[name] = {"ok": False, "error": f"{type(e).__name__}: {e}"}
            log(f"FAILED {name}: {type(e).__name__}: {e}")
        summary[name]["seconds"] = round(time.monotonic() - started, 1)
        log(f"{name}: {'ok' if summary[name]['ok'] else 'FAILED'} in "
            f"{summary[name]['seconds']} s (logs: {inputs.run_dir(name) / 'log'})")
    inputs.out.mkdir(parents=True, exist_ok=True)
    (inputs.out / "results.json").write_text(json.dumps(summary, indent=2) + "\n")
    log(f"results: {inputs.out / 'results.json'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
