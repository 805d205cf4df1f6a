package io.frazil.bench;

import java.util.LinkedHashMap;
import java.util.Map;

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

  /** The iteration's line of iterations.jsonl. */
  String toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("seq", seq);
    json.put("cohort", cohort);
    json.put("schema", schema);
    json.put("rows", rows);
    json.put("arm", arm);
    json.put("phase", phase);
    json.put("rep", rep);
    json.put("wall_ns", wallNs);
    json.put("process_cpu_ns", processCpuNs);
    json.put("thread_cpu_ns", threadCpuNs);
    json.put("allocated_bytes", allocatedBytes);
    json.put("gc_count", gcCount);
    json.put("gc_ms", gcMs);
    json.put("output_bytes", outputBytes);
    json.put("file_count", fileCount);
    json.put("footer_rows", footerRows);
    json.put("row_groups", rowGroups);
    json.put("created_by", createdBy);
    return Json.object(json);
  }
}
