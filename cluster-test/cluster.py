#!/usr/bin/env python3
#!/usr/bin/env python3
"""Frazil on a real Flink cluster: separate JobManager and TaskManager JVMs on 127.0.0.1.

Assembles a FLINK_HOME from jars the build copied from Maven Central (flink-home/target/lib),
adds Iceberg's runtime jar, the Hadoop client and Frazil's runtime jar to lib/, writes
conf/config.yaml, starts the processes the way Flink's bin/ scripts do, submits a job jar that
knows nothing about Frazil (the arrow scenarios: one that uses Frazil's Arrow API) through
Flink's CLI (`flink run`), and checks what it wrote:

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
  arrow        Frazil's Arrow API from a job jar built against the runtime jar (arrow-job/):
               rows -> ArrowBatches -> keyBy(first id) -> FrazilArrowSink (IcebergSink), every
               stage at parallelism 2 on two TaskManagers, so batches cross between them
               (ArrowBatchSerializer; REST: each keyed subtask received >= 64 KiB over TCP);
               aligned checkpoints every 2 s; kill -9 of a source's TaskManager between
               checkpoints after two commits, a new TaskManager takes over; every row once
  arrow-unaligned  the same with unaligned checkpoints and slow keyed subtasks (batches queue
               in the exchange): kill -9 once a committed checkpoint persisted batches in flight;
               the job restores that checkpoint (its in-flight bytes > 0); every row once.
               Flink 2.1 only (FLINK-37870 on 1.20 and 2.0)
  arrow-hash   arrow into a table with write.distribution-mode=hash: the sink splits batches by
               partition natively and keys whole parts to the writers (a second Arrow exchange,
               also required to carry bytes between the TaskManagers); every row once
  all          sinks, failover, kill-in-checkpoint, no-add-opens, bad-native, s3, s3-outage,
               read, read-s3, arrow, arrow-unaligned, arrow-hash (`make cluster-test`)
  core         smoke, sinks, failover, kill-in-checkpoint, read, arrow, arrow-hash
               (`make cluster-test FLINK=1.20`)

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

The parts live in clustertest/, one job each: flink.py (FLINK_HOME, the JobManager and
TaskManager processes, REST and `flink run`), processes.py (every process stopped on every
path), inputs.py (the built jars of a Flink line), checks.py (table, metrics, logs, job jar),
moments.py (when to kill), s3.py and fault_proxy.py (moto, the JDBC catalog, the S3 outage), and
scenarios/ (sinks, kills, fallbacks, s3, read, arrow; the registry of names and groups).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from clustertest.common import DEFAULT_FLINK, FLINK_LINES, log
from clustertest.inputs import Inputs
from clustertest.processes import stop_all_on_exit
from clustertest.scenarios import GROUPS, SCENARIOS


def main() -> int:
    stop_all_on_exit()
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
