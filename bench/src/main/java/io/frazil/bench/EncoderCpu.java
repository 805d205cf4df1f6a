package io.frazil.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * CPU time used so far by Frazil's native encoder threads ({@code frazil-encoder-N}), read from
 * {@code /proc/self/task} on Linux. The threads live as long as the process, so the difference
 * around a timed region is what encoding cost inside it: the part of a whole job's process CPU that
 * Frazil's writer spends outside the task threads. -1 where /proc is not available.
 */
final class EncoderCpu {
  private static final Path TASKS = Paths.get("/proc/self/task");
  private static final String THREAD_PREFIX = "frazil-encoder-";
  // USER_HZ: the unit of utime/stime in /proc/<pid>/task/<tid>/stat; 100 on every Linux ABI.
  private static final long NANOS_PER_TICK = 10_000_000L;

  private EncoderCpu() {}

  static long nanos() {
    if (!Files.isDirectory(TASKS)) {
      return -1;
    }
    long ticks = 0;
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
      for (Path task : tasks) {
        ticks += encoderTicks(task);
      }
    } catch (IOException e) {
      return -1;
    }
    return ticks * NANOS_PER_TICK;
  }

  private static long encoderTicks(Path task) {
    try {
      String comm = Files.readString(task.resolve("comm"), StandardCharsets.US_ASCII).trim();
      if (!comm.startsWith(THREAD_PREFIX)) {
        return 0;
      }
      String stat = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
      // Fields after the parenthesised name: state is field 3, utime 14 and stime 15.
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
      return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    } catch (IOException | RuntimeException e) {
      // The thread ended between listing and reading: it no longer counts.
      return 0;
    }
  }
}
