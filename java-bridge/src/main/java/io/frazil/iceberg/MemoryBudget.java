package io.frazil.iceberg;

import io.frazil.jni.NativeLoader;
import io.frazil.jni.NativeParquetWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process-wide budget for the memory Frazil's open files hold outside the Java heap: their
 * Arrow batches and the native encoder's buffers (first rows, open row groups, encoded bytes not
 * yet drained).
 *
 * <p>Stock Iceberg holds a row group per open file on the Java heap, bounded by the heap: many open
 * partitions end in {@code OutOfMemoryError}. Frazil's buffers live off the heap, so they need
 * their own bound. When the files hold more than the budget, the thread that notices sheds its own
 * largest files first: each hands its buffered rows to the encoder, closes its open row group early
 * (a valid, smaller row group; metrics and split offsets stay exact) and drops its Arrow batches,
 * which start small again. Files of other threads are asked to do the same at their next row, since
 * a file is only ever touched by its own thread. A write never fails because of the budget; it only
 * makes row groups smaller.
 *
 * <p>Before it comes to that: once the files hold more than half the budget, memory is short
 * ({@link NativeParquetWriter#setUnderMemoryPressure}), and files whose first page is complete keep
 * their rows held compactly, up to a page's row limit, instead of opening the encoder's page (about
 * five times the memory for repeating values), and every file hands its Arrow batch to native code
 * at a smaller size ({@link FrazilParquetAppender#PRESSURE_BATCH_BYTES}), where its rows are held
 * compactly too. Their rows are encoded at close, so closing takes longer, but files keep their row
 * groups. Below three eighths of the budget the pressure ends.
 *
 * <p>Set per process with {@value #PROPERTY} (a size such as {@code 256m} or {@code 1g}, a share of
 * the maximum Java heap such as {@code 25%}, or {@code off}); the default is {@value
 * #DEFAULT_BUDGET}. A table opts its files out with {@value #TABLE_PROPERTY}{@code =false}.
 */
public final class MemoryBudget {
  private static final Logger LOG = LoggerFactory.getLogger(MemoryBudget.class);

  /** JVM system property that sets the process's budget. */
  public static final String PROPERTY = "frazil.memory.budget";

  /** Table property: {@code false} keeps this table's files out of the budget. */
  public static final String TABLE_PROPERTY = "write.parquet.frazil.memory-budget.enabled";

  /**
   * The default budget, as written in {@value #PROPERTY}: a quarter of the maximum heap, so it
   * grows with the TaskManager as stock Iceberg's own bound does (its row groups live on that
   * heap). A budget this loose is a safety valve: it rarely cuts a row group. Tighter budgets hold
   * less at the price of smaller row groups and larger files (README, "Memory budget").
   */
  public static final String DEFAULT_BUDGET = "25%";

  /** Shedding stops once the files hold this share of the budget, so it does not run per row. */
  private static final double RELIEVED_SHARE = 0.75;

  /** Memory is short above this share of the budget, and no longer short below the next one. */
  private static final double PRESSURE_SHARE = 0.5;

  private static final double PRESSURE_ENDS_SHARE = 0.375;

  /** What the native library was last told about memory pressure (one flag per process). */
  private static volatile boolean underPressure = false;

  private static final AtomicLong PRESSURE_EPISODES = new AtomicLong();

  /** A file holding less than this is not worth a row group of its own. */
  private static final long MIN_SHED_BYTES = 64 * 1024;

  private static final MemoryBudget PROCESS = new MemoryBudget(configuredLimit());

  /** A file that can give its memory back; called only on the thread that writes it. */
  interface Sheddable {
    /** Bytes of Arrow and native memory the file holds now. */
    long heldBytes();

    /**
     * Hands buffered rows to the encoder, closes the open row group and releases the buffers. Never
     * throws: a failure marks the file failed, and its own next call reports it.
     */
    void shed();
  }

  /** One open file's place in the budget. */
  static final class Member {
    private final Sheddable file;
    private final Thread owner;

    /** Set by another thread over budget; honoured by the owner at its next check. */
    private volatile boolean shedRequested = false;

    /** The file's held bytes when its owner last measured them (read by other threads). */
    private volatile long lastHeld = 0L;

    private Member(Sheddable file, Thread owner) {
      this.file = file;
      this.owner = owner;
    }

    /** True when another thread asked this file to shed (one volatile read: checked per row). */
    boolean shedRequested() {
      return shedRequested;
    }
  }

  private final long limit;

  /**
   * Held bytes above which the next check sheds: the limit, or, after a shed that could not get
   * under the budget (what the files hold is not theirs to shed), that level plus an eighth of the
   * limit, so such a process does not shed at every row.
   */
  private volatile long relieveAbove;

  private final Set<Member> open = ConcurrentHashMap.newKeySet();
  private final AtomicLong earlyFlushes = new AtomicLong();

  MemoryBudget(long limit) {
    this.limit = limit;
    this.relieveAbove = limit;
  }

  /** The budget of this process. */
  public static MemoryBudget process() {
    return PROCESS;
  }

  /** Bytes the files may hold before they shed; 0 when the budget is off. */
  public long limitBytes() {
    return limit;
  }

  /**
   * True while memory is short: Frazil's files hold more than half their budget (until they hold
   * less than three eighths of it), and files keep their rows compact instead of opening pages.
   */
  public static boolean underPressure() {
    return underPressure;
  }

  /** How often memory pressure began, since the process started. */
  public static long pressureEpisodes() {
    return PRESSURE_EPISODES.get();
  }

  /** Row groups closed early to stay within the budget, since the process started. */
  public long earlyFlushes() {
    return earlyFlushes.get();
  }

  /** Registers a file opened on the calling thread. */
  Member join(Sheddable file) {
    Member member = new Member(file, Thread.currentThread());
    open.add(member);
    return member;
  }

  /** Removes a file that closed or failed; the last one out ends any memory pressure. */
  void leave(Member member) {
    open.remove(member);
    if (open.isEmpty()) {
      signalPressure(false);
    }
  }

  /**
   * Called by a file's own thread after its memory grew: sheds what it must. Cheap when the process
   * is within its budget (a few counter reads).
   */
  void check(Member member) {
    if (member.shedRequested) {
      member.shedRequested = false;
      shed(member);
    }
    if (limit <= 0) {
      return;
    }
    // Published for other threads that may need to ask this file to shed.
    member.lastHeld = member.file.heldBytes();
    long used = usedBytes();
    if (underPressure ? used < limit * PRESSURE_ENDS_SHARE : used > limit * PRESSURE_SHARE) {
      signalPressure(!underPressure);
    }
    if (used > relieveAbove) {
      relieve(used);
    } else if (used <= limit && relieveAbove != limit) {
      this.relieveAbove = limit;
    }
  }

  /** Bytes held by all of Frazil's files in this process: Arrow buffers plus native memory. */
  static long usedBytes() {
    long nativeBytes = NativeLoader.isLoaded() ? NativeParquetWriter.allocatedBytes() : 0L;
    return ArrowMemory.allocatedBytes() + nativeBytes;
  }

  private void relieve(long used) {
    long target = (long) (limit * RELIEVED_SHARE);
    Thread self = Thread.currentThread();
    List<Member> mine = new ArrayList<>();
    for (Member member : open) {
      if (member.owner == self) {
        member.lastHeld = member.file.heldBytes();
        mine.add(member);
      }
    }
    mine.sort(Comparator.comparingLong((Member m) -> m.lastHeld).reversed());
    for (Member member : mine) {
      if (used <= target || member.lastHeld < MIN_SHED_BYTES) {
        break;
      }
      shed(member);
      used = usedBytes();
    }
    if (used > target) {
      askOthers(used - target, self);
    }
    this.relieveAbove = used > limit ? used + limit / 8 : limit;
  }

  /** Asks the largest files of other threads, as last measured, to shed at their next row. */
  private void askOthers(long excess, Thread self) {
    List<Member> others = new ArrayList<>();
    for (Member member : open) {
      if (member.owner != self && !member.shedRequested && member.lastHeld >= MIN_SHED_BYTES) {
        others.add(member);
      }
    }
    others.sort(Comparator.comparingLong((Member m) -> m.lastHeld).reversed());
    long asked = 0L;
    for (Member member : others) {
      if (asked >= excess) {
        break;
      }
      member.shedRequested = true;
      asked += member.lastHeld;
    }
  }

  private static void signalPressure(boolean on) {
    if (underPressure == on || !NativeLoader.isLoaded()) {
      return;
    }
    synchronized (MemoryBudget.class) {
      if (underPressure != on) {
        NativeParquetWriter.setUnderMemoryPressure(on);
        underPressure = on;
        if (on) {
          PRESSURE_EPISODES.incrementAndGet();
        }
        LOG.debug("Frazil's memory pressure {}", on ? "begins" : "ends");
      }
    }
  }

  private void shed(Member member) {
    member.file.shed();
    member.lastHeld = 0L;
    long flushes = earlyFlushes.incrementAndGet();
    if (flushes == 1) {
      LOG.info(
          "Frazil's open files hold more than their memory budget of {} bytes ({}): closing the"
              + " largest files' row groups early (smaller row groups, nothing else changes)",
          limit,
          PROPERTY);
    }
  }

  /**
   * The process's budget; a value that cannot be read falls back to the default, with a warning.
   */
  private static long configuredLimit() {
    String value = System.getProperty(PROPERTY, DEFAULT_BUDGET);
    try {
      return parse(value, Runtime.getRuntime());
    } catch (IllegalArgumentException e) {
      LOG.warn("{}; using the default {}", e.getMessage(), DEFAULT_BUDGET);
      return parse(DEFAULT_BUDGET, Runtime.getRuntime());
    }
  }

  /**
   * The budget in bytes for a {@value #PROPERTY} value: {@code off} (0), a size with an optional
   * {@code k}/{@code m}/{@code g} suffix, or a percentage of the maximum heap.
   */
  static long parse(String value, Runtime runtime) {
    String text = value.trim().toLowerCase(Locale.ROOT);
    if (text.equals("off") || text.equals("none") || text.equals("0")) {
      return 0L;
    }
    try {
      if (text.endsWith("%")) {
        double percent = Double.parseDouble(text.substring(0, text.length() - 1));
        if (percent <= 0 || percent > 1000) {
          throw new NumberFormatException("percentage out of range");
        }
        return (long) (runtime.maxMemory() * percent / 100.0);
      }
      long unit = 1L;
      char last = text.charAt(text.length() - 1);
      if (last == 'k' || last == 'm' || last == 'g') {
        unit = last == 'k' ? 1L << 10 : last == 'm' ? 1L << 20 : 1L << 30;
        text = text.substring(0, text.length() - 1);
      }
      long bytes = Long.parseLong(text.trim()) * unit;
      if (bytes <= 0) {
        throw new NumberFormatException("not positive");
      }
      return bytes;
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "Invalid "
              + PROPERTY
              + " '"
              + value
              + "': expected a size such as 256m or 1g, a share of the heap such as 25%, or off",
          e);
    }
  }
}
