package io.frazil.bench;

/**
 * One {@link ReadBench} iteration's read-specific facts next to its {@link Iteration} (whose {@code
 * rows} is the file's or table's row count, {@code footerRows} the rows the read returned, {@code
 * outputBytes} the bytes of the files read and {@code rowGroups} their row groups), and its JSON.
 */
final class ReadTrial {
  final Iteration it;
  long rowsReturned;
  long checksumSum;
  long checksumXor;
  long nativeFiles;
  long stockFiles;
  long nativeRowGroups;
  long bytesFetched;
  long rssBeforeKb;
  long rssPeakKb;
  long rssAfterKb;
  long heapPeakBytes;
  long arrowPeakBytes;
  int rssSamples;
  double loadBefore;

  /** Minor page faults of the process during the timed region (-1 where /proc is missing). */
  long minorFaults = -1;

  /** CPU of Frazil's native pool threads during the timed region (decode-ahead; -1: unknown). */
  long poolCpuNs = -1;

  double loadAfter;

  /** Job cells only: committed rows of the copy's target table (-1 otherwise). */
  long committedRows = -1;

  long committedFiles = -1;
  String committedCreatedBy = "";
  long encoderCpuNs = -1;

  /** RSS-child cells only: the child JVM's VmHWM (whole life) and its heap (-1 otherwise). */
  long childHwmKb = -1;

  String childHeap = "";

  /** Why a job trial is invalid (empty: valid); invalid trials are left out of the medians. */
  final java.util.List<String> failures = new java.util.ArrayList<>();

  ReadTrial(Iteration it) {
    this.it = it;
  }

  /** Peak RSS of this iteration: the child's VmHWM when it ran in a child JVM, else sampled. */
  long peakRssKb() {
    return childHwmKb >= 0 ? childHwmKb : rssPeakKb;
  }

  String toJson() {
    String base = it.toJson();
    StringBuilder json = new StringBuilder(base.substring(0, base.length() - 1));
    json.append(",\"rows_returned\":").append(rowsReturned);
    json.append(",\"checksum_sum\":\"").append(Long.toHexString(checksumSum)).append('"');
    json.append(",\"checksum_xor\":\"").append(Long.toHexString(checksumXor)).append('"');
    json.append(",\"native_files\":").append(nativeFiles);
    json.append(",\"stock_files\":").append(stockFiles);
    json.append(",\"native_row_groups\":").append(nativeRowGroups);
    json.append(",\"bytes_fetched\":").append(bytesFetched);
    json.append(",\"minor_faults\":").append(minorFaults);
    json.append(",\"pool_cpu_ns\":").append(poolCpuNs);
    json.append(",\"rss_before_kb\":").append(rssBeforeKb);
    json.append(",\"rss_peak_kb\":").append(rssPeakKb);
    json.append(",\"rss_after_kb\":").append(rssAfterKb);
    json.append(",\"rss_samples\":").append(rssSamples);
    json.append(",\"heap_used_peak_bytes\":").append(heapPeakBytes);
    json.append(",\"arrow_peak_bytes\":").append(arrowPeakBytes);
    json.append(",\"committed_rows\":").append(committedRows);
    json.append(",\"committed_files\":").append(committedFiles);
    json.append(",\"committed_created_by\":").append(Json.quote(committedCreatedBy));
    json.append(",\"encoder_cpu_ns\":").append(encoderCpuNs);
    json.append(",\"child_hwm_kb\":").append(childHwmKb);
    json.append(",\"child_heap\":").append(Json.quote(childHeap));
    json.append(",\"valid\":").append(failures.isEmpty());
    json.append(",\"failures\":[");
    for (int i = 0; i < failures.size(); i++) {
      json.append(i == 0 ? "" : ",").append(Json.quote(failures.get(i)));
    }
    json.append(']');
    json.append(",\"loadavg_1m_before\":").append(Report.fmt("%.2f", loadBefore));
    json.append(",\"loadavg_1m_after\":").append(Report.fmt("%.2f", loadAfter));
    return json.append('}').toString();
  }
}
