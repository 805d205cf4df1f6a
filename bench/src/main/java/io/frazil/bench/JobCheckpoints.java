package io.frazil.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Flink's own checkpoint statistics of one finished job, read through the MiniCluster's REST API
 * after {@code env.execute()} returned (off the clock; a finished job's statistics stay readable
 * from the Dispatcher's store while the cluster runs).
 *
 * <ul>
 *   <li>{@code /jobs/<id>}: the job's vertices and their end times; a <em>writer</em> vertex is one
 *       whose (chain) name contains {@code Writer} (Sink V2's {@code SinkWriterOperator}: the
 *       Dynamic Iceberg Sink's forward and shuffled writers), the <em>source</em> the one whose
 *       name starts with {@code Source}, the <em>pre-commit</em> vertex the sink's aggregator
 *       ({@code Pre Commit}; it writes each checkpoint's manifests).
 *   <li>{@code /jobs/<id>/checkpoints}: counts and the history of checkpoints ({@code
 *       web.checkpoints.history} long: {@link JobBench} raises it); every completed checkpoint's
 *       {@code end_to_end_duration} (trigger to the last acknowledgement, at the JobManager).
 *   <li>{@code /jobs/<id>/checkpoints/details/<cid>/subtasks/<vid>} for each completed checkpoint
 *       and each of those vertices: per subtask {@code end_to_end_duration} (trigger to that
 *       subtask's acknowledgement), {@code start_delay} (trigger to the barrier being processed by
 *       the subtask), {@code alignment.duration}, {@code checkpoint.sync}, {@code
 *       checkpoint.async}.
 * </ul>
 *
 * <p><b>Close time.</b> Iceberg's writers close every open data file in the checkpoint's
 * synchronous path, but not in the part Flink calls {@code sync}: Flink ({@code
 * SubtaskCheckpointCoordinatorImpl.checkpointState}) runs each operator's {@code
 * prepareSnapshotPreBarrier} first — where {@code SinkWriterOperator} calls the writer's {@code
 * flush} and {@code prepareCommit}, and the Dynamic sink's {@code DynamicWriter.prepareCommit} runs
 * {@code TaskWriter.complete()}, closing the subtask's data (and delete) files — then forwards the
 * barrier, and only then times {@code sync} around the operators' {@code snapshotState}. Flink
 * reports no figure for the pre-barrier step, so the close time of a writer subtask is what its
 * acknowledgement leaves over: {@code end_to_end_duration − start_delay − alignment − sync − async}
 * (floored at 0). That is the pre-barrier step (flush, close every file, emit the write results
 * downstream) plus forwarding the barrier plus the acknowledgement's trip to the JobManager. The
 * same remainder of the source, which has no pre-barrier work, is recorded as a control for that
 * overhead. Per checkpoint the figure is the slowest writer subtask's (the one that holds the
 * barrier back longest).
 *
 * <p><b>Steady checkpoints.</b> A bounded job ends with checkpoints that only drain it: once the
 * source has emitted its last record, every task finishes its operators (the writers flush and
 * close their last files at end of input, outside any checkpoint) and waits for one more checkpoint
 * to complete before it ends ({@code checkpoints-after-tasks-finish}, on by default). So the
 * source's end time (REST {@code end-time}) comes after that final checkpoint, and a completed
 * checkpoint is <em>steady</em> when it was triggered before the source ended and is not the last
 * such one: its barrier reached the writers ahead of the end of their input, so their pre-barrier
 * step closed the files written since the previous checkpoint. The others (the final checkpoint,
 * and any later ones, in which finished subtasks are reported with zero durations) stay in the
 * per-checkpoint lists but out of the percentiles, so that a shorter job (fewer steady checkpoints)
 * is not flattered by a larger share of them.
 */
final class JobCheckpoints {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Flink's counts for the job: completed and failed checkpoints. */
  long completed;

  long failed;

  /** Completed checkpoints whose details were read (those in the history). */
  int inHistory;

  /** The vertices read: writers, source, pre-commit (the Dynamic sink's aggregator). */
  String vertices = "";

  /** Why the statistics are missing or partial; null when complete. */
  String error;

  // Per completed checkpoint in the history, in id order; ms; -1 where no subtask reported.
  final List<Long> ids = new ArrayList<>();

  /** 1 for a steady checkpoint (see the class comment), else 0. */
  final List<Long> steady = new ArrayList<>();

  /** Flink's {@code end_to_end_duration}: trigger to the last acknowledgement. */
  final List<Long> durationMs = new ArrayList<>();

  /** The slowest writer subtask's close time (see the class comment). */
  final List<Long> closeMs = new ArrayList<>();

  final List<Long> writerSyncMs = new ArrayList<>();
  final List<Long> writerAsyncMs = new ArrayList<>();
  final List<Long> writerStartDelayMs = new ArrayList<>();
  final List<Long> writerAlignmentMs = new ArrayList<>();

  /** The same remainder for the source (no pre-barrier work): the acknowledgement overhead. */
  final List<Long> sourceRemainderMs = new ArrayList<>();

  /** The same remainder for the pre-commit aggregator (it writes the checkpoint's manifests). */
  final List<Long> preCommitRemainderMs = new ArrayList<>();

  boolean complete() {
    return error == null;
  }

  /** The values of {@code series} of the steady checkpoints. */
  List<Long> steady(List<Long> series) {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < series.size(); i++) {
      if (steady.get(i) == 1) {
        out.add(series.get(i));
      }
    }
    return out;
  }

  /** Reads the statistics of job {@code jobId}, waiting up to {@code timeout} for it to appear. */
  static JobCheckpoints read(HttpClient http, URI rest, String jobId, Duration timeout) {
    JobCheckpoints stats = new JobCheckpoints();
    try {
      stats.readFrom(http, rest, jobId, timeout);
    } catch (IOException | RuntimeException e) {
      stats.error = "checkpoint statistics unavailable: " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stats.error = "interrupted while reading checkpoint statistics";
    }
    return stats;
  }

  private void readFrom(HttpClient http, URI rest, String jobId, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String base = "jobs/" + jobId;
    JsonNode job = get(http, rest, base, deadline);
    if (!"FINISHED".equals(job.path("state").asText())) {
      throw new IOException("job " + jobId + " is " + job.path("state").asText());
    }
    List<String> writers = new ArrayList<>();
    List<String> sources = new ArrayList<>();
    List<String> preCommits = new ArrayList<>();
    List<String> names = new ArrayList<>();
    long sourceEnd = -1;
    for (JsonNode vertex : job.path("vertices")) {
      String name = vertex.path("name").asText();
      String id = vertex.path("id").asText();
      if (name.contains("Writer")) {
        writers.add(id);
      } else if (name.startsWith("Source")) {
        sources.add(id);
        sourceEnd = Math.max(sourceEnd, vertex.path("end-time").asLong());
      } else if (name.contains("Pre Commit")) {
        preCommits.add(id);
      } else {
        continue;
      }
      names.add(name);
    }
    this.vertices = String.join(" | ", names);
    JsonNode checkpoints = get(http, rest, base + "/checkpoints", deadline);
    this.completed = checkpoints.path("counts").path("completed").asLong();
    this.failed = checkpoints.path("counts").path("failed").asLong();
    List<JsonNode> history = new ArrayList<>();
    for (JsonNode entry : checkpoints.path("history")) {
      if ("COMPLETED".equals(entry.path("status").asText())
          && !entry.path("is_savepoint").asBoolean()) {
        history.add(entry);
      }
    }
    history.sort((a, b) -> Long.compare(a.path("id").asLong(), b.path("id").asLong()));
    this.inHistory = history.size();
    for (JsonNode entry : history) {
      long id = entry.path("id").asLong();
      ids.add(id);
      steady.add(entry.path("trigger_timestamp").asLong() < sourceEnd ? 1L : 0L);
      durationMs.add(entry.path("end_to_end_duration").asLong());
      String details = base + "/checkpoints/details/" + id + "/subtasks/";
      Subtasks writer = new Subtasks();
      for (String vertex : writers) {
        writer.add(get(http, rest, details + vertex, 0));
      }
      Subtasks source = new Subtasks();
      for (String vertex : sources) {
        source.add(get(http, rest, details + vertex, 0));
      }
      Subtasks preCommit = new Subtasks();
      for (String vertex : preCommits) {
        preCommit.add(get(http, rest, details + vertex, 0));
      }
      closeMs.add(writer.remainder);
      writerSyncMs.add(writer.sync);
      writerAsyncMs.add(writer.async);
      writerStartDelayMs.add(writer.startDelay);
      writerAlignmentMs.add(writer.alignment);
      sourceRemainderMs.add(source.remainder);
      preCommitRemainderMs.add(preCommit.remainder);
    }
    // The last checkpoint triggered before the source's end is the final one it waited for.
    int last = steady.lastIndexOf(1L);
    if (last >= 0) {
      steady.set(last, 0L);
    }
    if (writers.isEmpty() || sources.isEmpty()) {
      error = "no writer or no source vertex in the job graph: " + vertices;
    } else if (completed == 0) {
      error = "no completed checkpoint";
    } else if (inHistory < completed) {
      error =
          String.format(
              Locale.ROOT,
              "%d of %d completed checkpoints in the history (raise web.checkpoints.history)",
              inHistory,
              completed);
    }
  }

  /** Per checkpoint, the largest of each figure over the subtasks that acknowledged it. */
  private static final class Subtasks {
    long remainder = -1;
    long sync = -1;
    long async = -1;
    long startDelay = -1;
    long alignment = -1;

    void add(JsonNode vertex) {
      for (JsonNode subtask : vertex.path("subtasks")) {
        if (!"completed".equals(subtask.path("status").asText())) {
          continue;
        }
        long endToEnd = subtask.path("end_to_end_duration").asLong();
        long start = subtask.path("start_delay").asLong();
        long align = subtask.path("alignment").path("duration").asLong();
        long s = subtask.path("checkpoint").path("sync").asLong();
        long a = subtask.path("checkpoint").path("async").asLong();
        remainder = Math.max(remainder, Math.max(0, endToEnd - start - align - s - a));
        sync = Math.max(sync, s);
        async = Math.max(async, a);
        startDelay = Math.max(startDelay, start);
        alignment = Math.max(alignment, align);
      }
    }
  }

  /**
   * GET {@code rest/path} as JSON. With a {@code deadline} (nanoTime, 0 = none) a 404 is retried
   * every 100 ms until then: the job may not have reached the Dispatcher's store yet.
   */
  private static JsonNode get(HttpClient http, URI rest, String path, long deadline)
      throws IOException, InterruptedException {
    URI uri = rest.resolve(rest.getPath().endsWith("/") ? path : "/" + path);
    HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build();
    while (true) {
      HttpResponse<String> response =
          http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      if (response.statusCode() == 200) {
        return JSON.readTree(response.body());
      }
      if (deadline == 0 || System.nanoTime() > deadline || response.statusCode() != 404) {
        throw new IOException(
            "GET " + uri + ": HTTP " + response.statusCode() + " " + abbreviate(response.body()));
      }
      Thread.sleep(100);
    }
  }

  private static String abbreviate(String body) {
    return body.length() <= 200 ? body : body.substring(0, 200) + "…";
  }

  // ---------------------------------------------------------------------------------------------

  /** Nearest-rank percentile (the ⌈p·n⌉-th smallest) of the non-negative values; -1 if none. */
  static long percentile(List<Long> values, double p) {
    long[] sorted = values.stream().mapToLong(Long::longValue).filter(v -> v >= 0).toArray();
    if (sorted.length == 0) {
      return -1;
    }
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length, rank) - 1)];
  }

  static long max(List<Long> values) {
    return percentile(values, 1.0);
  }

  static String jsonArray(List<Long> values) {
    StringBuilder out = new StringBuilder("[");
    for (int i = 0; i < values.size(); i++) {
      out.append(i == 0 ? "" : ",").append(values.get(i));
    }
    return out.append(']').toString();
  }
}
