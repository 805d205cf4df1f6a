"""What a run of the cluster test starts from: the jars one Flink line's build made, where its
runs go, and a cluster started from them."""

from __future__ import annotations

from pathlib import Path

from .common import BUILD, DEFAULT_FLINK, HERE, REPO, one_file
from .flink import Cluster, FlinkHome


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

    @property
    def arrow_job_jar(self) -> Path:
        """The job jar that uses Frazil's Arrow API (built against the runtime jar; only the
        arrow scenarios need it, so only they look for it)."""
        return one_file("iceberg-cluster-arrow-job-*.jar",
                        maven_target(HERE / "arrow-job", self.flink))

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
