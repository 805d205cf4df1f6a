package io.frazil.bench;

import java.util.Locale;

/** One timed write: a line of {@code iterations.jsonl}. */
final class Iteration {
  final int seq;
  final String cohort;
  final String schema;
  final int rows;
  final String arm;
  final String phase; // verify, warmup or measured
  final int rep;
  final long wallNs;
  final long processCpuNs;
  final long threadCpuNs;
  final long allocatedBytes;
  final long gcCount;
  final long gcMs;
  final long outputBytes;
  final int fileCount;
  final long footerRows;
  final int rowGroups;
  final String createdBy;

  Iteration(
      int seq,
      String cohort,
      String schema,
      int rows,
      String arm,
      String phase,
      int rep,
      long wallNs,
      long processCpuNs,
      long threadCpuNs,
      long allocatedBytes,
      long gcCount,
      long gcMs,
      long outputBytes,
      int fileCount,
      long footerRows,
      int rowGroups,
      String createdBy) {
    this.seq = seq;
    this.cohort = cohort;
    this.schema = schema;
    this.rows = rows;
    this.arm = arm;
    this.phase = phase;
    this.rep = rep;
    this.wallNs = wallNs;
    this.processCpuNs = processCpuNs;
    this.threadCpuNs = threadCpuNs;
    this.allocatedBytes = allocatedBytes;
    this.gcCount = gcCount;
    this.gcMs = gcMs;
    this.outputBytes = outputBytes;
    this.fileCount = fileCount;
    this.footerRows = footerRows;
    this.rowGroups = rowGroups;
    this.createdBy = createdBy;
  }

  boolean measured() {
    return "measured".equals(phase);
  }

  String toJson() {
    StringBuilder json = new StringBuilder(400);
    json.append('{');
    field(json, "seq", seq).append(',');
    field(json, "cohort", cohort).append(',');
    field(json, "schema", schema).append(',');
    field(json, "rows", rows).append(',');
    field(json, "arm", arm).append(',');
    field(json, "phase", phase).append(',');
    field(json, "rep", rep).append(',');
    field(json, "wall_ns", wallNs).append(',');
    field(json, "process_cpu_ns", processCpuNs).append(',');
    field(json, "thread_cpu_ns", threadCpuNs).append(',');
    field(json, "allocated_bytes", allocatedBytes).append(',');
    field(json, "gc_count", gcCount).append(',');
    field(json, "gc_ms", gcMs).append(',');
    field(json, "output_bytes", outputBytes).append(',');
    field(json, "file_count", fileCount).append(',');
    field(json, "footer_rows", footerRows).append(',');
    field(json, "row_groups", rowGroups).append(',');
    field(json, "created_by", createdBy);
    return json.append('}').toString();
  }

  private static StringBuilder field(StringBuilder json, String name, long value) {
    return json.append('"').append(name).append("\":").append(value);
  }

  private static StringBuilder field(StringBuilder json, String name, String value) {
    json.append('"').append(name).append("\":");
    if (value == null) {
      return json.append("null");
    }
    json.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"':
          json.append("\\\"");
          break;
        case '\\':
          json.append("\\\\");
          break;
        case '\n':
          json.append("\\n");
          break;
        case '\r':
          json.append("\\r");
          break;
        case '\t':
          json.append("\\t");
          break;
        default:
          if (c < 0x20) {
            json.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            json.append(c);
          }
      }
    }
    return json.append('"');
  }
}
