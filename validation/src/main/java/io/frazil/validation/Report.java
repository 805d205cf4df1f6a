package io.frazil.validation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** validation/report.md (check × case table) and report.json (everything, machine readable). */
final class Report {
  static final Map<String, String> MEANING = new LinkedHashMap<>();

  static {
    MEANING.put(
        CaseResult.ROWS,
        "committed-result parity: rows read back (Iceberg generic reader) from the stock and the"
            + " Frazil table / file are equal to each other and to the generated input");
    MEANING.put(
        CaseResult.FOOTER,
        "native footer witnesses: every Frazil data file parses with parquet-java, created_by"
            + " `frazil version …`, zstd on every column chunk, root `table`, a field id on every"
            + " node except the synthetic `list`/`key_value` groups, the Parquet schema Iceberg"
            + " derives from the table schema, key-value metadata exactly `iceberg.schema`; stock"
            + " data files say `parquet-mr` (file level: schema node by node and metadata equal"
            + " to stock's)");
    MEANING.put(
        CaseResult.METRICS,
        "metrics parity: manifest (or appender) metrics equal `ParquetUtil.fileMetrics` of the"
            + " file (float/double counts and bounds excepted), split offsets equal the row-group"
            + " starts; file level also stock `Metrics` == Frazil `Metrics` (column sizes: keys)");
    MEANING.put(
        CaseResult.DELETES,
        "delete files: append writes none; v2 upsert writes equality (and position) deletes by"
            + " parquet-mr, v3 upsert equality deletes and Puffin deletion vectors, no Parquet"
            + " position deletes; rows read back reflect them (no duplicate ids, last update wins)");
    MEANING.put(
        CaseResult.RESOURCES,
        "resource release: `ArrowMemory.allocatedBytes() == 0` and"
            + " `NativeParquetWriter.liveWriterCount() == 0` after every job / file case");
  }

  private Report() {}

  static String cell(Check check) {
    String note = check.note() == null || check.note().isEmpty() ? "" : " · " + check.note();
    switch (check.status()) {
      case PASS:
        return "pass" + note;
      case NOT_APPLICABLE:
        return "n/a";
      default:
        return "**FAIL** (" + check.failureCount() + ")" + note;
    }
  }

  static Map<String, long[]> totals(List<CaseResult> cases) {
    Map<String, long[]> totals = new LinkedHashMap<>();
    for (String name : CaseResult.CHECKS) {
      totals.put(name, new long[3]);
    }
    for (CaseResult result : cases) {
      for (Check check : result.checks.values()) {
        totals.get(check.name)[check.status().ordinal()] += 1;
      }
    }
    return totals;
  }

  static String markdown(
      List<CaseResult> cases, Map<String, Object> run, List<String[]> buildFacts, boolean passed) {
    StringBuilder md = new StringBuilder();
    md.append("# Frazil validation report\n\n");
    long jobs = cases.stream().filter(c -> c.group.equals(JobParity.GROUP)).count();
    long files = cases.stream().filter(c -> c.group.equals(FileParity.GROUP)).count();
    long failedCases = cases.stream().filter(c -> !c.passed()).count();
    md.append(
        String.format(
            Locale.ROOT,
            "**Result: %s** — %d Flink job cases and %d file-level cases, %d failed. Mode: `%s`,"
                + " %s, %.0f s. Written by `%s`; the build it describes is in"
                + " [`environment.json`](environment.json) (copied next to this report).\n\n",
            passed ? "PASS" : "FAIL",
            jobs,
            files,
            failedCases,
            run.get("mode"),
            run.get("started_utc"),
            ((Number) run.get("duration_seconds")).doubleValue(),
            run.get("command")));

    md.append("## Build identity\n\n| fact | value |\n|---|---|\n");
    for (String[] fact : buildFacts) {
      md.append("| ").append(fact[0]).append(" | ").append(fact[1]).append(" |\n");
    }
    md.append('\n');

    md.append("## Checks\n\n| check | meaning |\n|---|---|\n");
    MEANING.forEach((k, v) -> md.append("| `").append(k).append("` | ").append(v).append(" |\n"));
    md.append("\nDifferences that are allowed (and why) are in `validation/README.md`.\n\n");

    md.append(
        "## Totals (cases per check)\n\n| check | pass | fail | n/a |\n|---|---:|---:|---:|\n");
    totals(cases)
        .forEach(
            (name, t) ->
                md.append(
                    String.format(
                        Locale.ROOT, "| `%s` | %d | %d | %d |%n", name, t[0], t[1], t[2])));
    md.append('\n');

    table(
        md,
        "Flink jobs: stock table vs Frazil table, same input, MiniCluster",
        "Cells: *rows* = expected = stock = Frazil rows read back; *footer* = Frazil data files,"
            + " column chunks, row groups checked; *metrics* = files whose manifest metrics were"
            + " compared with the footer import, split offsets compared; *deletes* = delete files"
            + " in the Frazil table (eq = equality, pos = Parquet position, DV = Puffin deletion"
            + " vector); *resources* = jobs after which Arrow and native memory were checked.",
        cases,
        JobParity.GROUP,
        CaseResult.CHECKS);
    table(
        md,
        "File level: stock writer vs Frazil writer, same rows",
        "Cells: *rows* = stock = Frazil rows read back; *footer* = Parquet schema nodes compared,"
            + " Frazil row groups; *metrics* = fields with metrics, split offsets; *resources* ="
            + " checks of Arrow and native memory.",
        cases,
        FileParity.GROUP,
        new String[] {
          CaseResult.ROWS, CaseResult.FOOTER, CaseResult.METRICS, CaseResult.RESOURCES
        });

    md.append("## Failures\n\n");
    boolean any = false;
    for (CaseResult result : cases) {
      for (Check check : result.checks.values()) {
        if (check.status() == Check.Status.FAIL) {
          any = true;
          md.append("- **")
              .append(result.group)
              .append(" / ")
              .append(result.name)
              .append(" / ")
              .append(check.name)
              .append("** (")
              .append(check.failureCount())
              .append(" failures)\n");
          for (String message : check.failures()) {
            md.append("  - ").append(message.replace("\n", " ").replace("|", "\\|")).append('\n');
          }
        }
      }
    }
    if (!any) {
      md.append("None.\n");
    }
    return md.toString();
  }

  private static void table(
      StringBuilder md,
      String title,
      String legend,
      List<CaseResult> cases,
      String group,
      String[] checks) {
    List<CaseResult> rows = new ArrayList<>();
    for (CaseResult result : cases) {
      if (result.group.equals(group)) {
        rows.add(result);
      }
    }
    if (rows.isEmpty()) {
      return;
    }
    md.append("## ").append(title).append("\n\n").append(legend).append("\n\n");
    md.append("| case |");
    for (String check : checks) {
      md.append(' ').append(check).append(" |");
    }
    md.append(" s |\n|---|");
    for (int i = 0; i < checks.length; i += 1) {
      md.append("---|");
    }
    md.append("---:|\n");
    for (CaseResult result : rows) {
      md.append("| ").append(result.name).append(" |");
      for (String check : checks) {
        md.append(' ').append(cell(result.check(check))).append(" |");
      }
      md.append(String.format(Locale.ROOT, " %.1f |%n", result.millis / 1000.0));
    }
    md.append('\n');
  }

  static Map<String, Object> json(
      List<CaseResult> cases, Map<String, Object> run, Map<String, Object> build, boolean passed) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("passed", passed);
    out.put("run", run);
    out.put("build", build);
    out.put("checks", MEANING);
    Map<String, Object> totals = new LinkedHashMap<>();
    totals(cases)
        .forEach(
            (name, t) -> {
              Map<String, Object> counts = new LinkedHashMap<>();
              counts.put("pass", t[0]);
              counts.put("fail", t[1]);
              counts.put("not_applicable", t[2]);
              totals.put(name, counts);
            });
    out.put("totals", totals);
    List<Object> list = new ArrayList<>();
    for (CaseResult result : cases) {
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("group", result.group);
      item.put("name", result.name);
      item.put("passed", result.passed());
      item.put("millis", result.millis);
      item.put("params", result.params);
      Map<String, Object> checks = new LinkedHashMap<>();
      for (Check check : result.checks.values()) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("status", check.status().name().toLowerCase(Locale.ROOT));
        c.put("summary", check.note());
        c.put("comparisons", check.assertions());
        c.put("counts", check.counts());
        c.put("failure_count", check.failureCount());
        c.put("failures", check.failures());
        checks.put(check.name, c);
      }
      item.put("checks", checks);
      list.add(item);
    }
    out.put("cases", list);
    return out;
  }

  static void write(Path file, String text) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, text, StandardCharsets.UTF_8);
    Files.move(
        tmp,
        file,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }
}
