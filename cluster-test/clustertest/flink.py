"""A Flink cluster as separate processes on 127.0.0.1: its FLINK_HOME (lib/, conf/config.yaml,
log/) and the JobManager and TaskManager JVMs started the way Flink's bin/ scripts start them,
driven through the REST API and the `flink run` client."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

from .common import JOB_PACKAGE, CheckFailed, free_port, log, require
from .processes import PROCESSES, stop_process


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
