package io.frazil.nexmark;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One Nexmark query as SQL, from {@code io/frazil/nexmark/queries/<name>.sql}: a {@code CREATE
 * TABLE ${sink}} for its Iceberg result table and the {@code INSERT INTO ${sink}} that fills it.
 * Header comments say what it computes, {@code result: append|upsert}, and for two variants a
 * {@code partition: bucket(<column>, <n>)} spec (Flink's DDL has no bucket transform, so it is
 * added through Iceberg's API before the job) or {@code reads: landed bid} (the query reads {@code
 * ${landed_bid}}, an Iceberg table of the bids, instead of the generator).
 */
public final class NexmarkQuery {
  /** Every query this module has, in matrix order (docs/nexmark.md says why the others are not). */
  public static final List<String> ALL =
      List.of(
          "q0",
          "q0-bucket4",
          "q0-read",
          "q1",
          "q2",
          "q3",
          "q4",
          "q5",
          "q7",
          "q8",
          "q9",
          "q10",
          "q11",
          "q14",
          "q15",
          "q16",
          "q17",
          "q18",
          "q19",
          "q20",
          "q21",
          "q22");

  private final String name;
  private final String title;
  private final boolean upsert;
  private final String bucketColumn;
  private final int buckets;
  private final boolean readsLandedBids;
  private final String create;
  private final String insert;

  private NexmarkQuery(String name, String text) {
    this.name = name;
    String title = name;
    boolean upsert = false;
    String bucketColumn = null;
    int buckets = 0;
    boolean landed = false;
    StringBuilder sql = new StringBuilder();
    for (String line : text.split("\n")) {
      String trimmed = line.trim();
      if (!trimmed.startsWith("--")) {
        sql.append(line).append('\n');
        continue;
      }
      String comment = trimmed.substring(2).trim();
      if (title.equals(name) && comment.startsWith(name + ":")) {
        title = comment.substring(name.length() + 1).trim();
      } else if (!comment.contains(":") && !title.equals(name) && sql.length() == 0) {
        title += " " + comment; // the description continues
      } else if (comment.startsWith("result:")) {
        upsert = value(comment).equals("upsert");
      } else if (comment.startsWith("partition:")) {
        String spec = value(comment); // bucket(<column>, <n>)
        String[] args = spec.substring(spec.indexOf('(') + 1, spec.indexOf(')')).split(",");
        bucketColumn = args[0].trim();
        buckets = Integer.parseInt(args[1].trim());
      } else if (comment.startsWith("reads:")) {
        landed = value(comment).equals("landed bid");
      }
    }
    List<String> statements = new ArrayList<>();
    for (String statement : sql.toString().split(";")) {
      if (!statement.isBlank()) {
        statements.add(statement.trim());
      }
    }
    if (statements.size() != 2
        || !statements.get(0).startsWith("CREATE TABLE ${sink}")
        || !statements.get(1).startsWith("INSERT INTO ${sink}")) {
      throw new IllegalStateException(
          "Nexmark query "
              + name
              + ": expected CREATE TABLE ${sink} ...; INSERT INTO ${sink} ...;");
    }
    this.title = title;
    this.upsert = upsert;
    this.bucketColumn = bucketColumn;
    this.buckets = buckets;
    this.readsLandedBids = landed;
    this.create = statements.get(0);
    this.insert = statements.get(1);
  }

  private static String value(String comment) {
    return comment.substring(comment.indexOf(':') + 1).trim().toLowerCase(Locale.ROOT);
  }

  /** The query {@code name} (one of {@link #ALL}). */
  public static NexmarkQuery load(String name) {
    String resource = "queries/" + name + ".sql";
    try (InputStream in = NexmarkQuery.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException(
            "Unknown Nexmark query '" + name + "'; known: " + String.join(", ", ALL));
      }
      return new NexmarkQuery(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + resource, e);
    }
  }

  public String name() {
    return name;
  }

  /** What it computes, one line. */
  public String title() {
    return title;
  }

  /** True when the result table has a primary key and takes updates (upsert). */
  public boolean upsert() {
    return upsert;
  }

  /** The column of its bucket partition spec, or null when the DDL's partitioning is all. */
  public String bucketColumn() {
    return bucketColumn;
  }

  public int buckets() {
    return buckets;
  }

  /** True when it reads the landed bids table rather than the generator. */
  public boolean readsLandedBids() {
    return readsLandedBids;
  }

  /** The result table's DDL for table {@code sink} with the table options {@code with}. */
  public String createSql(String sink, String with) {
    return create.replace("${sink}", sink).replace("${with}", with);
  }

  /** The job's statement; {@code landedBids} is used only by queries that read them. */
  public String insertSql(String sink, String landedBids) {
    return insert.replace("${sink}", sink).replace("${landed_bid}", String.valueOf(landedBids));
  }
}
