package io.frazil.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One {@link JobBench} trial's job-specific facts (next to its {@link Iteration}), and its JSON.
 */
final class JobTrial {
  final String cell;
  final int formatVersion;
  final boolean keyed;
  final String table;
  final String mode;
  long allocLiveThreads;
  long batchesLeftToCleaner;

  /** Rows Frazil's appenders took as slices of their Arrow batch (the direct path). */
  long slicedRows;

  long nativeFiles;
  long delegatedFiles;
  int routingRewrites;
  long validateMs;

  /** Flink's checkpoint statistics of the job (read after it finished, off the clock). */
  JobCheckpoints checkpoints = new JobCheckpoints();

  long checkpointStatsMs;

  /** CPU of Frazil's native encoder threads during the job (0 for stock, -1 unknown). */
  long encoderCpuNs;

  double loadBefore;
  double loadAfter;
  JobCheck check;
  final List<String> failures = new ArrayList<>();

  JobTrial(String cell, int formatVersion, boolean keyed, String table, String mode) {
    this.cell = cell;
    this.formatVersion = formatVersion;
    this.keyed = keyed;
    this.table = table;
    this.mode = mode;
  }

  boolean valid() {
    return failures.isEmpty();
  }

  /** The trial's line of iterations.jsonl: {@code it}'s fields, then this trial's. */
  String toJson(Iteration it, int parallelism, long checkpointMs, JobRows.Checksum expected) {
    String base = it.toJson();
    StringBuilder json = new StringBuilder(base.substring(0, base.length() - 1));
    JobCheck c = check;
    json.append(",\"cell\":").append(Json.quote(cell));
    json.append(",\"format_version\":").append(formatVersion);
    json.append(",\"mode\":").append(Json.quote(mode));
    json.append(",\"batches_left_to_cleaner\":").append(batchesLeftToCleaner);
    json.append(",\"sliced_rows\":").append(slicedRows);
    json.append(",\"table\":").append(Json.quote(table));
    json.append(",\"parallelism\":").append(parallelism);
    json.append(",\"checkpoint_ms\":").append(checkpointMs);
    json.append(",\"valid\":").append(valid());
    json.append(",\"failures\":[");
    for (int i = 0; i < failures.size(); i++) {
      json.append(i == 0 ? "" : ",").append(Json.quote(failures.get(i)));
    }
    json.append(']');
    json.append(",\"read_back_rows\":").append(c.readBack.count);
    json.append(",\"checksum_ok\":").append(c.readBack.matches(expected));
    json.append(",\"manifest_rows\":").append(c.manifestRows);
    json.append(",\"snapshots\":").append(c.snapshots);
    json.append(",\"writer_subtasks\":").append(Json.quote(String.join(",", c.writerSubtasks)));
    json.append(",\"equality_delete_files\":").append(c.equalityDeleteFiles);
    json.append(",\"equality_delete_rows\":").append(c.equalityDeleteRows);
    json.append(",\"position_delete_files\":").append(c.positionDeleteFiles);
    json.append(",\"position_delete_rows\":").append(c.positionDeleteRows);
    json.append(",\"deletion_vectors\":").append(c.deletionVectors);
    json.append(",\"deletion_vector_rows\":").append(c.deletionVectorRows);
    json.append(",\"delete_bytes\":").append(c.deleteBytes);
    json.append(",\"alloc_gc_account_bytes\":").append(it.allocatedBytes);
    json.append(",\"alloc_live_threads_bytes\":").append(allocLiveThreads);
    json.append(",\"native_data_files\":").append(nativeFiles);
    json.append(",\"delegated_data_files\":").append(delegatedFiles);
    json.append(",\"validate_ms\":").append(validateMs);
    json.append(",\"encoder_cpu_ns\":").append(encoderCpuNs);
    json.append(",\"loadavg_1m_before\":").append(Report.fmt("%.2f", loadBefore));
    json.append(",\"loadavg_1m_after\":").append(Report.fmt("%.2f", loadAfter));
    checkpointJson(json, checkpoints);
    json.append(",\"checkpoint_stats_ms\":").append(checkpointStatsMs);
    return json.append('}').toString();
  }

  /**
   * Flink's checkpoint statistics of the job ({@link JobCheckpoints}): counts, percentiles of the
   * steady checkpoints, and per completed checkpoint (id order) every figure read.
   */
  private static void checkpointJson(StringBuilder json, JobCheckpoints ck) {
    json.append(",\"checkpoints_completed\":").append(ck.completed);
    json.append(",\"checkpoints_failed\":").append(ck.failed);
    json.append(",\"checkpoints_steady\":").append(ck.steady(ck.ids).size());
    json.append(",\"checkpoint_stats_error\":");
    json.append(ck.error == null ? "null" : Json.quote(ck.error));
    json.append(",\"checkpoint_vertices\":").append(Json.quote(ck.vertices));
    Map<String, List<Long>> percentiles = new LinkedHashMap<>();
    percentiles.put("checkpoint", ck.durationMs);
    percentiles.put("close", ck.closeMs);
    percentiles.put("writer_sync", ck.writerSyncMs);
    for (Map.Entry<String, List<Long>> e : percentiles.entrySet()) {
      List<Long> steady = ck.steady(e.getValue());
      json.append(",\"").append(e.getKey()).append("_p50_ms\":");
      json.append(JobCheckpoints.percentile(steady, 0.5));
      json.append(",\"").append(e.getKey()).append("_p99_ms\":");
      json.append(JobCheckpoints.percentile(steady, 0.99));
      json.append(",\"").append(e.getKey()).append("_max_ms\":");
      json.append(JobCheckpoints.max(steady));
    }
    Map<String, List<Long>> series = new LinkedHashMap<>();
    series.put("ckpt_ids", ck.ids);
    series.put("ckpt_steady", ck.steady);
    series.put("ckpt_ms", ck.durationMs);
    series.put("ckpt_close_ms", ck.closeMs);
    series.put("ckpt_writer_sync_ms", ck.writerSyncMs);
    series.put("ckpt_writer_async_ms", ck.writerAsyncMs);
    series.put("ckpt_writer_start_delay_ms", ck.writerStartDelayMs);
    series.put("ckpt_writer_alignment_ms", ck.writerAlignmentMs);
    series.put("ckpt_source_remainder_ms", ck.sourceRemainderMs);
    series.put("ckpt_precommit_remainder_ms", ck.preCommitRemainderMs);
    for (Map.Entry<String, List<Long>> e : series.entrySet()) {
      json.append(",\"").append(e.getKey()).append("\":");
      json.append(JobCheckpoints.jsonArray(e.getValue()));
    }
  }
}
