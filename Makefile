# One-word entry points. Maven never runs cargo: `native` builds the release cdylib first and
# Maven packages it from target/release into the java-bridge jar.
# -B: no colour and no progress. (Debian's Maven 3.8.7 still writes a colour reset, `[0m`, as it
# starts and ends, even in batch mode: .mvn/jvm.config turns that off with -Djansi.noreset=true.)
MVN ?= mvn -B -ntp
CARGO ?= cargo

.PHONY: all native native-test-hooks jvm demo test fuzz test-rust test-java lint format bench-smoke clean

## Flink minor for jvm, runtime-jar, demo, bench and bench-jobs: 2.1 (default), 1.20 (LTS) or 2.0, e.g.
## `make demo FLINK=1.20`. A non-default minor builds with Maven profile flink-<minor> into
## target/flink-<minor>/ (docs/versions.md); `jvm` installs that minor's artifacts.
FLINK ?= 2.1
FLINK_PROFILE = $(if $(filter-out 2.1,$(FLINK)),-Pflink-$(FLINK))
## The other supported minors `make test` also runs (the subset below) on: ~3 min each after the
## release build (2.0: 138 tests in 2:33 min of Maven on the shared 2-core machine).
FLINK_OTHER_MINORS ?= 1.20 2.0

all: jvm

native:
	$(CARGO) build --release -p frazil-native

## The test build of the library, target/release/libfrazil_test_hooks.so (native/test-hooks): every
## export of libfrazil.so plus deliberate failures (a panic) that only java-bridge's tests call.
## Never packaged; it links the same compiled crates as `native`, so it adds about a second.
native-test-hooks: native
	$(CARGO) build --release -p frazil-test-hooks

jvm: native
	$(MVN) -q $(FLINK_PROFILE) -DskipTests install

## The one jar a Flink cluster needs in lib/ (flink-runtime/pom.xml): the bridge, libfrazil.so,
## the FileSystemFactory service that installs Frazil at process start, and arrow-java with its
## dependencies, relocated under io.frazil.shaded (but org.apache.arrow.c, bound to Arrow's JNI
## library) -> flink-runtime/target/frazil-flink-runtime-2.1-<version>.jar (FLINK=1.20 or 2.0:
## flink-runtime/target/flink-<minor>/frazil-flink-runtime-<minor>-<version>.jar). `make jvm` builds it too.
.PHONY: runtime-jar
runtime-jar: native
	$(MVN) -q $(FLINK_PROFILE) -DskipTests -pl flink-runtime -am package

## The main job: writes the same rows with stock Iceberg and with Frazil and compares them. The
## build's output goes to target/demo-build.log (its last lines are shown if it fails); the demo
## prints a line per phase and ends with its verdict, the wall ratio and where tables and log are.
DEMO_BUILD_LOG = target/demo-build.log
demo:
	@echo "demo: building the native library and the jars (first run: several minutes; log: $(DEMO_BUILD_LOG))"
	@mkdir -p $(dir $(DEMO_BUILD_LOG)); start=$$(date +%s); \
	if $(MAKE) --no-print-directory jvm > $(DEMO_BUILD_LOG) 2>&1; then \
	  echo "demo: built in $$(( $$(date +%s) - start )) s; starting the demo JVM"; \
	else \
	  tail -n 30 $(DEMO_BUILD_LOG); echo "demo: the build failed; its log: $(DEMO_BUILD_LOG)"; exit 1; \
	fi
	@$(MVN) -q $(FLINK_PROFILE) -pl java-bridge test-compile exec:exec

## All tests: Rust lint + unit/integration/doc tests, then every Java test against the release library.
test: lint test-rust test-java run-bench-smoke run-bench-jobs-smoke run-bench-read-smoke run-bench-routing-smoke run-bench-split-smoke \
	run-bench-exchange-smoke run-bench-fanout-smoke run-bench-nexmark-smoke run-validate-smoke run-soak-smoke run-cluster-test-smoke run-iceberg-suites-ci \
	run-test-other-minors

## On every other supported minor (FLINK_OTHER_MINORS): file-level metrics parity, the sink matrix (4 sinks x bucket x v2/v3 x
## append/upsert), failover and bad rows in jobs, the memoizer job tests and the reflection-shape
## test, against the release library `native` built; builds into target/flink-<minor>/, installs
## nothing. `make test-flink MINOR=1.20 [MINOR_TESTS=...]` runs it for one minor.
MINOR_TESTS ?= TestPrivateMembers,TestNativeReadParity,TestParquetParity,TestFlinkSinks,TestSinkBehaviour,TestBadRowsInFlinkJobs,TestBoundedJobCommits,TestFrazilRouting,TestFrazilDynamicKeys,TestFrazilDynamicWriterFallback,TestFailureHandling,TestArrowJobExactlyOnce,TestArrowJobRowKinds,TestArrowJobBadInput,TestArrowJobPartitioned,TestArrowBatchesToRows,TestArrowBatchSplitter,TestEqualityKeyRouter,TestArrowSource
.PHONY: test-flink run-test-other-minors
test-flink: native
	$(MVN) -Pflink-$(MINOR) -pl testkit,java-bridge -am test '-Dtest=$(MINOR_TESTS)' \
		-Dsurefire.failIfNoSpecifiedTests=false

run-test-other-minors:
	for minor in $(FLINK_OTHER_MINORS); do $(MAKE) test-flink MINOR=$$minor || exit 1; done

## Randomized parity only (TestRandomizedParity; `make test` runs it with 60 cases, seed 20251201):
## CASES random schemas x rows x write.parquet.* x metrics settings from SEED (random when unset),
## each case's stock and Frazil files also read back by Iceberg's reader and natively (random
## projection and reuseContainers); then MUTANTS mutated real files read natively, in Rust
## (native/tests/mutated_files.rs) and through the Java reader (TestMutatedFileReads; `make test`:
## 3,000 and 200 mutants, seed 20251201). A failing case or mutant prints its seed and
## `make fuzz SEED=<seed> CASES=1 MUTANTS=1`.
CASES ?= 150
MUTANTS ?= 5000
# Drawn once (`:=`): with `?=` every $(SEED) ran the shell again, and the seed echoed below was
# not the seed the run used.
ifeq ($(origin SEED),undefined)
SEED := $(shell od -An -N8 -td8 /dev/urandom | tr -d ' ')
endif
fuzz: native
	@echo "fuzz: CASES=$(CASES) MUTANTS=$(MUTANTS) SEED=$(SEED)"
	FRAZIL_FUZZ_MUTANTS=$(MUTANTS) FRAZIL_FUZZ_SEED=$(SEED) \
		$(CARGO) test --release -p frazil-native --test mutated_files -- --nocapture
	$(MVN) -pl java-bridge -am test -Dtest=TestRandomizedParity,TestMutatedFileReads \
		-Dsurefire.failIfNoSpecifiedTests=false \
		-Dfrazil.fuzz.cases=$(CASES) -Dfrazil.fuzz.seed=$(SEED) -Dfrazil.fuzz.mutants=$(MUTANTS)

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --release --all-targets --workspace -- -D warnings

test-rust:
	$(CARGO) test --release -p frazil-native

test-java: native native-test-hooks
	$(MVN) install

format:
	$(CARGO) fmt --all
	$(MVN) -q spotless:apply

clean:
	$(CARGO) clean
	$(MVN) -q clean

## Benchmark harness (bench/README.md): stock Iceberg vs Frazil in one JVM, release build only.
## `make bench` writes bench/results/<date>-<short sha>/; the full run takes ~10-15 min on 2 cores.
## Every bench target then rewrites the results index, bench/results/README.md (scripts/bench_index.py).
## Its heap is 8g (the 2,000,000-row fixtures alone take ~1.8 GB; 4g crowds the stock arm's GC).
.PHONY: bench bench-smoke run-bench-smoke
BENCH_OUT ?= $(CURDIR)/bench/results/$(shell date -u +%F)-$(shell git rev-parse --short HEAD 2>/dev/null || echo nogit)$(if $(FLINK_PROFILE),-flink-$(FLINK))
BENCH_HEAP ?= 8g
BENCH_ARGS ?=

bench: jvm
	$(MVN) -q $(FLINK_PROFILE) -pl bench exec:exec -Dbench.heap=$(BENCH_HEAP) -Dbench.args="--out $(BENCH_OUT) $(BENCH_ARGS)"
	$(PYTHON) scripts/bench_index.py

## Seconds-long run of the same harness and guards (bid, 20,000 rows); fails on a wrong footer.
bench-smoke: jvm run-bench-smoke

run-bench-smoke:
	$(MVN) -q -pl bench exec:exec -Dbench.args="--smoke --out $(CURDIR)/bench/target/smoke"

## Whole-job cohort (bench/README.md, "Whole-job cohort"): Flink MiniCluster jobs, Dynamic Iceberg
## Sink, stock vs Frazil (RowData) vs Frazil Arrow end to end; 2,000,000 rows, parallelism 2,
## bucket(auction, 4), zstd 3, 1 s checkpoints, format v2/v3 x forward/keyed, 1 warm-up + 3
## measured pairs (one trial per arm) per cell (~15 min on 2 cores) -> bench/results/<date>-<short sha>-jobs/; per job also Flink's checkpoint durations and
## the writers' close time (REST checkpoint statistics). Exits non-zero if any trial fails validation.
.PHONY: bench-jobs bench-jobs-smoke run-bench-jobs-smoke
BENCH_JOBS_ARGS ?=

bench-jobs: jvm
	$(MVN) -q $(FLINK_PROFILE) -pl bench exec:exec -Dbench.mainClass=io.frazil.bench.JobBench -Dbench.heap=$(BENCH_HEAP) -Dbench.args="--out $(BENCH_OUT)-jobs $(BENCH_JOBS_ARGS)"
	$(PYTHON) scripts/bench_index.py

## ~40 s after the build (12 jobs of 20,000 rows: three arms, all four cells, same validation); part of `make test`.
bench-jobs-smoke: jvm run-bench-jobs-smoke

run-bench-jobs-smoke:
	$(MVN) -q -pl bench exec:exec -Dbench.mainClass=io.frazil.bench.JobBench -Dbench.args="--smoke --out $(CURDIR)/bench/target/jobs-smoke"

## Read cohort (bench/README.md, "Read cohort"; issue 32): stock Iceberg's Flink Parquet reader vs
## Frazil's native reader over files written once by stock Iceberg (zstd 3): scan, 2-of-N projection
## and a row-group-pruning filtered scan on bid / wide / nested at 262,144 and 2,000,000 rows, child-JVM
## peak-RSS trials, and two MiniCluster jobs (IcebergSource -> discard, IcebergSource -> IcebergSink
## copy) -> bench/results/<date>-<short sha>-read/. Exits non-zero if any guard or job check fails.
.PHONY: bench-read bench-read-smoke run-bench-read-smoke
READ_HEAP ?= 6g
BENCH_READ_ARGS ?=

bench-read: jvm
	$(MVN) -q $(FLINK_PROFILE) -pl bench exec:exec -Dbench.mainClass=io.frazil.bench.ReadBench -Dbench.heap=$(READ_HEAP) -Dbench.args="--out $(BENCH_OUT)-read $(BENCH_READ_ARGS)"
	$(PYTHON) scripts/bench_index.py

## Under a minute after the build (20,000 rows, every cell, one RSS pair, both jobs once per arm);
## part of `make test`.
bench-read-smoke: jvm run-bench-read-smoke

run-bench-read-smoke:
	$(MVN) -q -pl bench exec:exec -Dbench.mainClass=io.frazil.bench.ReadBench -Dbench.args="--smoke --out $(CURDIR)/bench/target/read-smoke"

## Nexmark matrix (docs/nexmark.md; issue 35): the Nexmark SQL queries (our generator, nexmark/)
## writing Iceberg tables through Flink SQL, stock vs Frazil alternating on a MiniCluster (1 warm-up
## + 3 measured pairs per query, 1,000,000 events, parallelism 2, format v2), every trial's rows and
## footers validated -> bench/results/<date>-<short sha>-nexmark/. BENCH_NEXMARK_ARGS adds flags
## (`--queries q0,q5`, `--events N`, `--cluster host:port` for a running cluster, `--help`).
.PHONY: bench-nexmark bench-nexmark-smoke run-bench-nexmark-smoke
NEXMARK_HEAP ?= 6g
BENCH_NEXMARK_ARGS ?=

bench-nexmark: jvm
	$(MVN) -q $(FLINK_PROFILE) -pl nexmark-bench exec:exec -Dbench.heap=$(NEXMARK_HEAP) -Dbench.args="--out $(BENCH_OUT)-nexmark $(BENCH_NEXMARK_ARGS)"
	$(PYTHON) scripts/bench_index.py

## About a minute after the build (20,000 events; q0, q0-read, q5, q17; one pair) -> bench/target/.
bench-nexmark-smoke: jvm run-bench-nexmark-smoke

run-bench-nexmark-smoke:
	$(MVN) -q -pl nexmark-bench exec:exec -Dbench.args="--smoke --out $(CURDIR)/bench/target/nexmark-smoke"

## Build facts behind every result (scripts/environment.py): rustc/cargo, linked crate versions,
## JDK, Maven, Flink/Iceberg/arrow-java, release profile, artifact SHA-256s, git, machine.
.PHONY: environment validate run-validate-smoke
PYTHON ?= python3

environment: native jvm
	$(PYTHON) scripts/environment.py --out $(CURDIR)/environment.json

## One command that proves a build writes correct tables (validation/README.md): Flink jobs with
## stock vs Frazil tables and a file-level type matrix; writes validation/report.md + report.json
## (+ a copy of environment.json); exits non-zero on any failure.
validate: environment
	$(MVN) -q -pl validation exec:exec -Dvalidation.args="--out $(CURDIR)/validation --work $(CURDIR)/validation/target/work --environment $(CURDIR)/environment.json"

## Under a minute after the build (no rebuild): environment.json tests, the bench results index
## (bench/results/README.md must be what scripts/bench_index.py writes), the docs' links, size and
## figures (scripts/test_docs.py), then the smoke subset.
run-validate-smoke:
	$(PYTHON) scripts/test_environment.py
	$(PYTHON) scripts/test_bench_index.py
	$(PYTHON) scripts/bench_index.py --check
	$(PYTHON) scripts/test_docs.py
	$(PYTHON) scripts/environment.py --out $(CURDIR)/validation/target/smoke/environment.json
	$(MVN) -q -pl validation exec:exec -Dvalidation.args="--smoke --out $(CURDIR)/validation/target/smoke --environment $(CURDIR)/validation/target/smoke/environment.json"

## Routing cohort (bench/README.md, "Routing cohort"): partition routing only, no files. Stock
## PartitionKey + HashMap / PartitionKeySelector against Frazil's bucket-tuple memo on the bid rows,
## bucket(auction, 4) and bucket(auction, 16384); → bench/results/<date>-<short sha>-routing/.
.PHONY: bench-routing
ROUTING_HEAP ?= 4g
ROUTING_ARGS ?=

bench-routing: jvm
	$(MVN) -q -pl bench exec:exec -Dbench.mainClass=io.frazil.bench.RoutingBench -Dbench.heap=$(ROUTING_HEAP) -Dbench.args="--out $(BENCH_OUT)-routing $(ROUTING_ARGS)"
	$(PYTHON) scripts/bench_index.py

## Seconds-long run of the same cohort and row-by-row verification (20,000 rows) → bench/target/;
## part of `make test`.
.PHONY: bench-routing-smoke run-bench-routing-smoke
bench-routing-smoke: jvm run-bench-routing-smoke

run-bench-routing-smoke:
	$(MVN) -q -pl bench exec:exec -Dbench.mainClass=io.frazil.bench.RoutingBench -Dbench.args="--smoke --out $(CURDIR)/bench/target/routing-smoke"

## Split cohort (bench/README.md, "Split cohort"; issue 33): the hash distribution's key per row
## (stock PartitionKeySelector, FrazilPartitionKeySelector) against ArrowBatchSplitter over Arrow
## batches of the same bid rows; → bench/results/<date>-<short sha>-split/.
.PHONY: bench-split bench-split-smoke run-bench-split-smoke
SPLIT_HEAP ?= 4g
SPLIT_ARGS ?=

bench-split: jvm
	$(MVN) -q -pl bench exec:exec -Dbench.mainClass=io.frazil.bench.SplitBench -Dbench.heap=$(SPLIT_HEAP) -Dbench.args="--out $(BENCH_OUT)-split $(SPLIT_ARGS)"
	$(PYTHON) scripts/bench_index.py

## Seconds-long run of the same cohort and its per-batch verification (20,000 rows); part of
## `make test`.
bench-split-smoke: jvm run-bench-split-smoke

run-bench-split-smoke:
	$(MVN) -q -pl bench exec:exec -Dbench.mainClass=io.frazil.bench.SplitBench -Dbench.args="--smoke --out $(CURDIR)/bench/target/split-smoke"

## Exchange cohort (bench/README.md, "Exchange cohort"; issue 33): serialize + deserialize through
## Flink's DataOutputView/DataInputView, RowDataSerializer row by row against ArrowBatchSerializer
## (Arrow IPC in native code) batch by batch, on the bid rows; → bench/results/<date>-<sha>-exchange/.
.PHONY: bench-exchange bench-exchange-smoke run-bench-exchange-smoke
EXCHANGE_HEAP ?= 4g
EXCHANGE_ARGS ?=

bench-exchange: jvm
	$(MVN) -q -pl bench exec:exec -Dbench.mainClass=io.frazil.bench.ExchangeBench -Dbench.heap=$(EXCHANGE_HEAP) -Dbench.args="--out $(BENCH_OUT)-exchange $(EXCHANGE_ARGS)"
	$(PYTHON) scripts/bench_index.py

## Seconds-long run of the same cohort and its verification (20,000 rows) → bench/target/; part of
## `make test`.
bench-exchange-smoke: jvm run-bench-exchange-smoke

run-bench-exchange-smoke:
	$(MVN) -q -pl bench exec:exec -Dbench.mainClass=io.frazil.bench.ExchangeBench -Dbench.args="--smoke --out $(CURDIR)/bench/target/exchange-smoke"

## Fan-out cohort (bench/README.md, "Fan-out cohort"; issue 14): one Iceberg Flink task writer
## (RowDataTaskWriterFactory, identity partition on an int column with N values, rows interleaved)
## with N = 1, 16, 128, 1,024 open files, 2,000,000 bid rows, then complete() closes them all as a
## checkpoint does; stock vs Frazil, one child JVM per trial (peak RSS / heap per arm), 1 warm-up +
## 3 measured trials per arm and N at FANOUT_HEAP (4g: stock runs out of 2g at N = 1,024), then a
## descending heap search at N = 1,024
## (an OutOfMemoryError there is recorded, not fatal) -> bench/results/<date>-<short sha>-fanout/.
.PHONY: bench-fanout bench-fanout-smoke run-bench-fanout-smoke
FANOUT_HEAP ?= 4g
FANOUT_ARGS ?=

bench-fanout: jvm
	$(MVN) -q -pl bench exec:exec -Dbench.mainClass=io.frazil.bench.FanoutBench -Dbench.heap=256m -Dbench.args="--heap $(FANOUT_HEAP) --out $(BENCH_OUT)-fanout $(FANOUT_ARGS)"
	$(PYTHON) scripts/bench_index.py

## Seconds after the build (20,000 rows, N = 1 and 16, one trial per arm, same checks, no heap
## search) -> bench/target/fanout-smoke/; part of `make test`.
bench-fanout-smoke: jvm run-bench-fanout-smoke

run-bench-fanout-smoke:
	$(MVN) -q -pl bench exec:exec -Dbench.mainClass=io.frazil.bench.FanoutBench -Dbench.heap=256m -Dbench.args="--smoke --out $(CURDIR)/bench/target/fanout-smoke"

## Soak (bench/.../Soak.java): 10,000 Frazil writers in one JVM (mixed schemas; some fail on purpose:
## a null in a required column, a failing stream, a refused codec, no rows), RSS every 500 writers and
## its slope, Arrow bytes and live native writers at the end (must be 0) -> bench/target/soak/.
.PHONY: soak run-soak-smoke
SOAK_WRITERS ?= 10000

soak: jvm
	$(MVN) -q -pl bench exec:exec -Dbench.mainClass=io.frazil.bench.Soak -Dbench.heap=1g -Dbench.args="--writers $(SOAK_WRITERS) --out $(CURDIR)/bench/target/soak"

## The same with 1,000 writers (seconds); part of `make test`.
run-soak-smoke:
	$(MVN) -q -pl bench exec:exec -Dbench.mainClass=io.frazil.bench.Soak -Dbench.heap=1g -Dbench.args="--writers 1000 --sample 100 --out $(CURDIR)/bench/target/soak-smoke"

## Frazil on a real Flink cluster (cluster-test/cluster.py): a FLINK_HOME assembled from Maven
## Central jars plus Iceberg's runtime jar, the Hadoop client and Frazil's runtime jar in lib/; a
## JobManager and TaskManagers as separate JVMs on 127.0.0.1; jobs submitted with `flink run`
## from a jar that knows nothing of Frazil. Scenarios (`all`): sinks (FlinkSink, IcebergSink,
## Dynamic Iceberg Sink, SQL INSERT), failover (kill -9 between checkpoints), kill-in-checkpoint
## (kill -9 while a checkpoint is in flight), no-add-opens, bad-native (a TaskManager that cannot
## load libfrazil), s3 (moto, JDBC catalog), s3-outage (S3 refused for 8 s mid-write), read and
## read-s3 (an IcebergSource copy job, kill -9 mid-read, native reads from the REST metrics),
## arrow, arrow-unaligned and arrow-hash (ArrowBatches across a keyed exchange between TaskManagers
## into FrazilArrowSink, kill -9 after committed checkpoints; unaligned: batches in flight restored;
## hash: the sink's native split by partition, a second Arrow exchange).
## Checks every id exactly once, Parquet footers (created_by) and TaskManager logs.
## ~18 min after the build; logs, tables and results.json under cluster-test/target/.
## `make cluster-test FLINK=1.20`: the Flink 1.20 cluster with the 1.20 runtime jar (profile
## flink-1.20, builds into target/flink-1.20/, runs under cluster-test/target/flink-1.20/), the
## scenarios `core` (smoke, sinks, failover, kill-in-checkpoint, read, arrow, arrow-hash; ~11 min).
## CLUSTER_SCENARIOS picks others, e.g. `make cluster-test CLUSTER_SCENARIOS="arrow arrow-unaligned"`.
.PHONY: cluster-test cluster-test-build run-cluster-test-smoke
CLUSTER_SCENARIOS ?= $(if $(FLINK_PROFILE),core,all)
# arrow-job/ compiles against the runtime jar (it relocates Arrow), so only cluster-test, which
# builds that jar first, adds it.
CLUSTER_TEST_MODULES ?= flink-home,job
cluster-test: CLUSTER_TEST_MODULES = flink-home,job,arrow-job
cluster-test: runtime-jar cluster-test-build
	$(PYTHON) cluster-test/cluster.py --flink $(FLINK) $(CLUSTER_SCENARIOS)

## Flink's lib/ from Maven Central and the job jars (cluster-test/pom.xml, not in the default reactor).
## Cleans those modules only: cluster-test/target keeps the runs, results.json and the moto venv.
cluster-test-build:
	$(MVN) -q $(FLINK_PROFILE) -f cluster-test/pom.xml -pl $(CLUSTER_TEST_MODULES) clean package

## Short form (~2 min): the cluster (two TaskManagers of two slots), one throttled FlinkSink job
## with 1 s checkpoints, one kill -9 of a TaskManager between checkpoints, every id exactly once;
## then `read`: an IcebergSource copy job reading natively from the runtime jar, a TaskManager
## killed mid-read, the copy exactly the source. Builds only cluster-test/ and uses the runtime
## jar the build already made (`make jvm` / `test-java`).
run-cluster-test-smoke: cluster-test-build
	$(PYTHON) cluster-test/cluster.py --flink $(FLINK) smoke read

## Iceberg's own Flink writer/sink test classes (iceberg-flink-2.1:1.11.0:tests, list and exclusions
## in java-bridge/pom.xml `iceberg.suites`), run unchanged with Frazil installed, one JVM per class.
## ICEBERG_SUITES=<comma-separated surefire patterns, e.g. **/TestIcebergSink.class> narrows it. The
## full set writes validation/iceberg-suites.md (per-class run/failed/errors/skipped/time + native
## file counts), a narrowed run java-bridge/target/iceberg-suites.md; fails on any failed test.
.PHONY: iceberg-suites run-iceberg-suites run-iceberg-suites-ci
ICEBERG_SUITES ?=
ICEBERG_SUITES_PROFILES ?= iceberg-suites
ICEBERG_SUITES_REPORT ?= $(CURDIR)/$(if $(ICEBERG_SUITES),java-bridge/target,validation)/iceberg-suites$(if $(FLINK_PROFILE),-flink-$(FLINK)).md
comma := ,

iceberg-suites: native run-iceberg-suites

## The same without building the native library first.
SUITES_REPORTS = java-bridge/target/$(if $(FLINK_PROFILE),flink-$(FLINK)/)surefire-reports
run-iceberg-suites:
	rm -rf $(SUITES_REPORTS)
	start=$$(date +%s); \
	$(MVN) -P $(ICEBERG_SUITES_PROFILES)$(if $(FLINK_PROFILE),$(comma)flink-$(FLINK)) -pl java-bridge -am test \
		-Dmaven.test.failure.ignore=true $(if $(ICEBERG_SUITES),'-Diceberg.suites=$(ICEBERG_SUITES)'); \
		mvn_rc=$$?; \
	$(PYTHON) scripts/suite_report.py --check --wall-seconds $$(( $$(date +%s) - start )) \
		--reports $(SUITES_REPORTS) --out $(ICEBERG_SUITES_REPORT); report_rc=$$?; \
	test $$mvn_rc -eq 0 -a $$report_rc -eq 0

## The subset of iceberg-suites that fits the `make test` budget (java-bridge/pom.xml
## `iceberg.suites.ci`); no build, meant to run after test-java. Report: java-bridge/target/.
run-iceberg-suites-ci:
	$(MAKE) run-iceberg-suites ICEBERG_SUITES_PROFILES=iceberg-suites,iceberg-suites-ci \
		ICEBERG_SUITES_REPORT=$(CURDIR)/java-bridge/target/iceberg-suites-ci.md
