package io.frazil.bench;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;

import io.frazil.nexmark.NexmarkGenerator;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/**
 * The benchmark schemas and their fixed-seed, realistically distributed rows.
 *
 * <p>Rows are Flink {@link GenericRowData}; strings are binary {@link StringData} (UTF-8 bytes, as
 * rows coming out of a Flink deserializer are), so neither writer pays a one-off String encoding
 * that the other then reuses. Repeated values (low- and medium-cardinality strings, per-session and
 * per-city values) share one instance, as they would not in a real job but with no effect on what
 * either writer does per value; high-cardinality values are distinct objects per row.
 *
 * <p>Distributions are skewed the way event data is (hot keys, log-normal sizes and prices,
 * monotonic time with a little disorder, ~10% nulls in optional columns), never uniform random
 * bytes, which would defeat dictionaries and flatter zstd (performance-anchors.md section 7,
 * pitfall 4).
 */
final class Datasets {
  private Datasets() {}

  /** Nexmark's Bid event (the schema of {@code make demo}); rows from {@link #bids}. */
  static final Schema BID =
      new Schema(
          required(1, "auction", Types.LongType.get()),
          required(2, "bidder", Types.LongType.get()),
          required(3, "price", Types.LongType.get()),
          optional(4, "channel", Types.StringType.get()),
          optional(5, "url", Types.StringType.get()),
          required(6, "date_time", Types.TimestampType.withoutZone()),
          optional(7, "extra", Types.StringType.get()));

  /** A flat 40-column clickstream/order event. */
  static final Schema WIDE =
      new Schema(
          required(1, "id", Types.LongType.get()),
          required(2, "event_ts", Types.TimestampType.withoutZone()),
          required(3, "user_id", Types.LongType.get()),
          required(4, "session_id", Types.StringType.get()),
          optional(5, "country", Types.StringType.get()),
          required(6, "device", Types.StringType.get()),
          optional(7, "os_version", Types.StringType.get()),
          required(8, "app_version", Types.StringType.get()),
          required(9, "event_type", Types.StringType.get()),
          required(10, "page_url", Types.StringType.get()),
          optional(11, "referrer", Types.StringType.get()),
          required(12, "user_agent", Types.StringType.get()),
          required(13, "ip", Types.StringType.get()),
          optional(14, "city", Types.StringType.get()),
          optional(15, "zip", Types.StringType.get()),
          required(16, "currency", Types.StringType.get()),
          required(17, "quantity", Types.IntegerType.get()),
          required(18, "item_count", Types.IntegerType.get()),
          optional(19, "duration_ms", Types.IntegerType.get()),
          required(20, "http_status", Types.IntegerType.get()),
          required(21, "retry_count", Types.IntegerType.get()),
          required(22, "bytes_sent", Types.LongType.get()),
          optional(23, "bytes_received", Types.LongType.get()),
          required(24, "latency_us", Types.LongType.get()),
          required(25, "account_id", Types.LongType.get()),
          required(26, "amount", Types.DecimalType.of(10, 2)),
          optional(27, "tax", Types.DecimalType.of(10, 2)),
          required(28, "balance", Types.DecimalType.of(20, 4)),
          optional(29, "exchange_rate", Types.DecimalType.of(20, 4)),
          required(30, "score", Types.DoubleType.get()),
          optional(31, "lat", Types.DoubleType.get()),
          optional(32, "lon", Types.DoubleType.get()),
          required(33, "ratio", Types.DoubleType.get()),
          optional(34, "birth_date", Types.DateType.get()),
          required(35, "event_date", Types.DateType.get()),
          optional(36, "created_at", Types.TimestampType.withZone()),
          optional(37, "updated_at", Types.TimestampType.withoutZone()),
          required(38, "is_active", Types.BooleanType.get()),
          optional(39, "is_premium", Types.BooleanType.get()),
          required(40, "is_test", Types.BooleanType.get()));

  /** An order with a struct, a list of strings and a map of counters. */
  static final Schema NESTED =
      new Schema(
          required(1, "id", Types.LongType.get()),
          required(2, "event_ts", Types.TimestampType.withoutZone()),
          optional(
              3,
              "customer",
              Types.StructType.of(
                  required(8, "customer_id", Types.LongType.get()),
                  required(9, "name", Types.StringType.get()),
                  optional(10, "email", Types.StringType.get()),
                  required(11, "tier", Types.StringType.get()),
                  optional(12, "lifetime_value", Types.DecimalType.of(10, 2)))),
          optional(4, "tags", Types.ListType.ofRequired(13, Types.StringType.get())),
          optional(
              5,
              "attributes",
              Types.MapType.ofOptional(14, 15, Types.StringType.get(), Types.LongType.get())),
          required(6, "amount", Types.DecimalType.of(10, 2)),
          required(7, "status", Types.StringType.get()));

  static Schema schema(String name) {
    switch (name) {
      case "bid":
        return BID;
      case "wide":
        return WIDE;
      case "nested":
        return NESTED;
      default:
        throw new IllegalArgumentException("Unknown schema " + name);
    }
  }

  static List<RowData> rows(String name, int count, long seed) {
    switch (name) {
      case "bid":
        return bids(count, seed);
      case "wide":
        return wide(count, seed);
      case "nested":
        return nested(count, seed);
      default:
        throw new IllegalArgumentException("Unknown schema " + name);
    }
  }

  private static final long EPOCH_MS = 1_735_689_600_000L; // 2025-01-01T00:00:00Z

  private static final String[] WORDS = {
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "for",
    "on",
    "with",
    "as",
    "by",
    "at",
    "from",
    "or",
    "this",
    "that",
    "be",
    "are",
    "was",
    "it",
    "an",
    "new",
    "item",
    "offer",
    "price",
    "shipping",
    "free",
    "bid",
    "auction",
    "seller",
    "buyer",
    "rating",
    "condition",
    "used",
    "like",
    "mint",
    "vintage",
    "original",
    "box",
    "limited",
    "edition",
    "color",
    "size",
    "black",
    "white",
    "red",
    "blue",
    "green",
    "large",
    "small",
    "medium",
    "return",
    "policy",
    "days",
    "fast",
    "delivery",
    "warranty",
    "included",
    "collector",
    "rare",
    "signed",
    "genuine",
    "leather",
    "steel",
    "wood",
    "glass",
    "cotton",
    "set",
    "pair",
    "lot",
    "bundle",
    "pack",
    "extra",
    "parts",
    "repair",
    "works",
    "tested",
    "clean",
    "excellent",
    "good",
    "fair",
    "local",
    "pickup",
    "only",
    "international",
    "ok",
    "no",
    "reserve",
    "best",
    "accepted",
    "please",
    "read",
    "description",
    "details",
    "see",
    "photos",
    "thanks",
    "looking",
    "ask",
    "questions"
  };

  private static final String LETTERS = "abcdefghijklmnopqrstuvwxyz";

  // ---------------------------------------------------------------------------------------------
  // bid: the Bid events of our Nexmark generator (nexmark/, NexmarkGenerator: 1 person : 3 auctions
  // : 46 bids, hot auctions/bidders/channels, log-uniform prices, 10,000 events/s of event time),
  // so that these cohorts and the Nexmark matrix (make bench-nexmark) write the same data.

  static List<RowData> bids(int count, long seed) {
    return new NexmarkGenerator(seed, 10_000).firstBids(count);
  }

  // ---------------------------------------------------------------------------------------------
  // wide: a clickstream/order event; cardinalities from 2 to unique, ~10% nulls when optional.

  private static final String[] DEVICES = {
    "mobile", "desktop", "tablet", "tv", "watch", "console", "car", "other"
  };
  private static final String[] EVENT_TYPES = {
    "page_view",
    "click",
    "scroll",
    "search",
    "add_to_cart",
    "remove_from_cart",
    "checkout_start",
    "checkout_payment",
    "purchase",
    "refund",
    "login",
    "logout",
    "signup",
    "share",
    "like",
    "comment",
    "video_play",
    "video_pause",
    "error",
    "heartbeat"
  };
  private static final String[] CURRENCIES = {
    "USD", "EUR", "GBP", "JPY", "CNY", "INR", "BRL", "CAD", "AUD", "CHF"
  };
  private static final long[] RATES_BP = { // exchange rates to USD, in 1e-4
    10_000, 10_832, 12_641, 65, 1_378, 118, 1_742, 7_321, 6_512, 11_203
  };
  private static final int[] STATUSES = {
    200, 201, 204, 301, 302, 304, 400, 401, 403, 404, 500, 503
  };
  private static final int[] STATUS_WEIGHTS = {880, 20, 10, 5, 10, 20, 10, 5, 5, 25, 7, 3};

  static List<RowData> wide(int count, long seed) {
    Random random = new Random(seed);
    StringData[] countries = pool(60, k -> "" + LETTERS.charAt(k % 26) + LETTERS.charAt(k / 26));
    StringData[] devices = pool(DEVICES.length, k -> DEVICES[k]);
    StringData[] osVersions =
        pool(
            50,
            k -> (k % 2 == 0 ? "android-" : "ios-") + (8 + k / 8) + "." + (k % 4) + "." + (k % 3));
    StringData[] appVersions = pool(30, k -> "3." + (k / 10) + "." + (k % 10));
    StringData[] eventTypes = pool(EVENT_TYPES.length, k -> EVENT_TYPES[k]);
    StringData[] pageUrls =
        pool(
            5000,
            k ->
                "https://shop.example.com/"
                    + WORDS[k % WORDS.length]
                    + "/"
                    + WORDS[(k / 7) % WORDS.length]
                    + "/item-"
                    + (100_000 + k * 37)
                    + ".html");
    StringData[] referrers =
        pool(
            500,
            k ->
                "https://www."
                    + WORDS[k % WORDS.length]
                    + WORDS[(k * 13) % WORDS.length]
                    + ".com/"
                    + (k % 3 == 0 ? "search?q=" + WORDS[k % 17] : ""));
    StringData[] userAgents =
        pool(
            300,
            k ->
                "Mozilla/5.0 ("
                    + (k % 3 == 0
                        ? "Windows NT 10.0; Win64; x64"
                        : k % 3 == 1 ? "Macintosh; Intel Mac OS X 10_15_7" : "Linux; Android 14")
                    + ") AppleWebKit/537.36 (KHTML, like Gecko) Chrome/"
                    + (100 + k % 30)
                    + ".0."
                    + (4000 + k * 7)
                    + "."
                    + (k % 200)
                    + (k % 5 == 0 ? " Mobile" : "")
                    + " Safari/537.36");
    String[] syllables = {"ka", "lo", "mi", "ra", "ten", "burg", "ville", "on", "sa", "ri", "do"};
    StringData[] cities =
        pool(
            2000,
            k ->
                syllables[k % 11].toUpperCase().charAt(0)
                    + syllables[k % 11].substring(1)
                    + syllables[(k / 11) % 11]
                    + syllables[(k / 121) % 11]
                    + (k >= 1331 ? " " + (k / 1331) : ""));
    double[] cityLat = new double[cities.length];
    double[] cityLon = new double[cities.length];
    for (int c = 0; c < cities.length; c++) {
      cityLat[c] = Math.round((random.nextDouble() * 120 - 60) * 1e6) / 1e6;
      cityLon[c] = Math.round((random.nextDouble() * 360 - 180) * 1e6) / 1e6;
    }
    StringData[] zips = pool(30_000, k -> String.format("%05d", (k * 7919) % 100_000));
    StringData[] currencies = pool(CURRENCIES.length, k -> CURRENCIES[k]);

    // Sessions: 512 live sessions, each row continues one (hot ones more often) or starts one.
    int liveSessions = 512;
    StringData[] sessions = new StringData[liveSessions];
    long[] sessionUsers = new long[liveSessions];
    for (int s = 0; s < liveSessions; s++) {
      sessions[s] = utf8(hex(random, 16));
      sessionUsers[s] = skewedLong(random, 1_000_000, 3.0) + 1;
    }

    List<RowData> rows = new ArrayList<>(count);
    long eventMicros = EPOCH_MS * 1000L;
    for (int i = 0; i < count; i++) {
      eventMicros += random.nextInt(2000); // ~1,000 events/s
      int s = skewedInt(random, liveSessions, 2.0);
      if (random.nextInt(20) == 0) {
        sessions[s] = utf8(hex(random, 16));
        sessionUsers[s] = skewedLong(random, 1_000_000, 3.0) + 1;
      }
      int city = skewedInt(random, cities.length, 2.5);
      boolean cityKnown = random.nextInt(10) != 0;
      int currency = skewedInt(random, CURRENCIES.length, 3.0);
      long amountCents =
          Math.min(9_999_999_999L, Math.round(Math.exp(3.0 + 1.2 * gauss(random)) * 100));
      long eventMs = Math.floorDiv(eventMicros, 1000L);

      GenericRowData row = new GenericRowData(40);
      row.setField(0, 1_000_000_000L + i);
      row.setField(1, micros(eventMicros));
      row.setField(2, sessionUsers[s]);
      row.setField(3, sessions[s]);
      row.setField(4, nullable(random, countries[skewedInt(random, countries.length, 3.0)]));
      row.setField(5, devices[skewedInt(random, devices.length, 2.0)]);
      row.setField(6, nullable(random, osVersions[skewedInt(random, osVersions.length, 2.0)]));
      row.setField(7, appVersions[skewedInt(random, appVersions.length, 1.5)]);
      row.setField(8, eventTypes[skewedInt(random, eventTypes.length, 2.5)]);
      row.setField(9, pageUrls[skewedInt(random, pageUrls.length, 3.0)]);
      row.setField(10, nullable(random, referrers[skewedInt(random, referrers.length, 3.0)]));
      row.setField(11, userAgents[skewedInt(random, userAgents.length, 2.0)]);
      row.setField(
          12,
          utf8(
              (random.nextInt(4) == 0 ? "10." : "172.")
                  + random.nextInt(256)
                  + "."
                  + random.nextInt(256)
                  + "."
                  + (1 + random.nextInt(254))));
      row.setField(13, cityKnown ? cities[city] : null);
      row.setField(14, nullable(random, zips[skewedInt(random, zips.length, 1.5)]));
      row.setField(15, currencies[currency]);
      row.setField(16, 1 + skewedInt(random, 10, 3.0));
      row.setField(17, skewedInt(random, 50, 2.5));
      row.setField(
          18,
          random.nextInt(10) == 0
              ? null
              : (int) Math.min(600_000, Math.exp(6.0 + 1.5 * gauss(random))));
      row.setField(19, STATUSES[weighted(random, STATUS_WEIGHTS)]);
      row.setField(20, random.nextInt(20) == 0 ? 1 + random.nextInt(3) : 0);
      row.setField(21, (long) Math.exp(8.0 + 2.0 * gauss(random)));
      row.setField(22, random.nextInt(10) == 0 ? null : (long) Math.exp(7.0 + 1.5 * gauss(random)));
      row.setField(23, (long) Math.exp(9.0 + 1.0 * gauss(random)));
      row.setField(24, skewedLong(random, 100_000, 2.0) + 1);
      row.setField(25, DecimalData.fromUnscaledLong(amountCents, 10, 2));
      row.setField(
          26,
          random.nextInt(10) == 0
              ? null
              : DecimalData.fromUnscaledLong(amountCents * (5 + currency) / 100, 10, 2));
      row.setField(
          27,
          DecimalData.fromBigDecimal(
              BigDecimal.valueOf(
                  (long) (Math.exp(10.0 + 2.5 * gauss(random)) * 10_000)
                      * (random.nextInt(50) == 0 ? -1 : 1),
                  4),
              20,
              4));
      row.setField(
          28,
          random.nextInt(10) == 0
              ? null
              : DecimalData.fromBigDecimal(
                  BigDecimal.valueOf(RATES_BP[currency] + random.nextInt(21) - 10, 4), 20, 4));
      row.setField(29, Math.round((50.0 + 15.0 * gauss(random)) * 100.0) / 100.0);
      row.setField(30, cityKnown ? cityLat[city] : null);
      row.setField(31, cityKnown ? cityLon[city] : null);
      row.setField(32, random.nextDouble());
      row.setField(33, random.nextInt(10) == 0 ? null : -7305 + random.nextInt(21_915));
      row.setField(34, (int) Math.floorDiv(eventMs, 86_400_000L));
      row.setField(
          35,
          random.nextInt(10) == 0
              ? null
              : micros(eventMicros - (long) (Math.exp(15.0 + 2.0 * gauss(random)) * 1000)));
      row.setField(
          36,
          random.nextInt(10) == 0 ? null : micros(eventMicros - random.nextInt(3_600_000) * 1000L));
      row.setField(37, random.nextInt(5) != 0);
      row.setField(38, random.nextInt(10) == 0 ? null : random.nextInt(100) < 15);
      row.setField(39, random.nextInt(100) == 0);
      rows.add(row);
    }
    return rows;
  }

  // ---------------------------------------------------------------------------------------------
  // nested: an order with its customer (struct), tags (list<string>) and counters (map).

  private static final String[] TIERS = {"bronze", "silver", "gold", "platinum"};
  private static final String[] ORDER_STATUSES = {
    "created", "paid", "shipped", "delivered", "cancelled", "returned"
  };
  private static final int[] ORDER_STATUS_WEIGHTS = {10, 15, 25, 45, 3, 2};

  static List<RowData> nested(int count, long seed) {
    Random random = new Random(seed);
    StringData[] names =
        pool(
            5000,
            k ->
                WORDS[k % WORDS.length].toUpperCase().charAt(0)
                    + WORDS[k % WORDS.length].substring(1)
                    + " "
                    + WORDS[(k / WORDS.length + 17) % WORDS.length]
                    + "son");
    StringData[] tiers = pool(TIERS.length, k -> TIERS[k]);
    StringData[] tags = pool(200, k -> WORDS[k % WORDS.length] + (k < WORDS.length ? "" : "-2"));
    StringData[] keys = pool(40, k -> "attr_" + WORDS[k * 2 % WORDS.length]);
    StringData[] statuses = pool(ORDER_STATUSES.length, k -> ORDER_STATUSES[k]);

    List<RowData> rows = new ArrayList<>(count);
    long eventMicros = EPOCH_MS * 1000L;
    for (int i = 0; i < count; i++) {
      eventMicros += random.nextInt(2000);
      GenericRowData row = new GenericRowData(7);
      row.setField(0, 5_000_000_000L + i);
      row.setField(1, micros(eventMicros));

      if (random.nextInt(20) != 0) {
        long customerId = skewedLong(random, 200_000, 2.0) + 1;
        int name = (int) (customerId % names.length);
        row.setField(
            2,
            GenericRowData.of(
                customerId,
                names[name],
                random.nextInt(10) == 0
                    ? null
                    : utf8("customer" + customerId + "@" + WORDS[name % WORDS.length] + ".example"),
                tiers[(int) (customerId % 7 == 0 ? 3 : customerId % 3)],
                random.nextInt(10) == 0
                    ? null
                    : DecimalData.fromUnscaledLong(
                        Math.round(Math.exp(6.0 + 1.5 * gauss(random)) * 100), 10, 2)));
      }

      if (random.nextInt(10) != 0) {
        int size = skewedInt(random, 7, 1.5);
        Object[] elements = new Object[size];
        for (int e = 0; e < size; e++) {
          elements[e] = tags[skewedInt(random, tags.length, 2.0)];
        }
        row.setField(3, new GenericArrayData(elements));
      }

      if (random.nextInt(10) != 0) {
        int size = 1 + skewedInt(random, 8, 1.5);
        Map<Object, Object> map = new LinkedHashMap<>();
        int start = skewedInt(random, keys.length, 2.0);
        for (int e = 0; e < size; e++) {
          map.put(
              keys[(start + e * 3) % keys.length],
              random.nextInt(25) == 0 ? null : (Long) skewedLong(random, 10_000, 3.0));
        }
        row.setField(4, new GenericMapData(map));
      }

      row.setField(
          5,
          DecimalData.fromUnscaledLong(
              Math.min(9_999_999_999L, Math.round(Math.exp(4.0 + 1.3 * gauss(random)) * 100)),
              10,
              2));
      row.setField(6, statuses[weighted(random, ORDER_STATUS_WEIGHTS)]);
      rows.add(row);
    }
    return rows;
  }

  // ---------------------------------------------------------------------------------------------

  private interface Naming {
    String name(int index);
  }

  private static StringData[] pool(int size, Naming naming) {
    StringData[] values = new StringData[size];
    for (int k = 0; k < size; k++) {
      values[k] = utf8(naming.name(k));
    }
    return values;
  }

  private static StringData utf8(String value) {
    return StringData.fromBytes(value.getBytes(StandardCharsets.UTF_8));
  }

  private static <T> T nullable(Random random, T value) {
    return random.nextInt(10) == 0 ? null : value;
  }

  /** An index in [0, bound) with low indices more likely (skew 1 = uniform). */
  private static int skewedInt(Random random, int bound, double skew) {
    return (int) (bound * Math.pow(random.nextDouble(), skew));
  }

  private static long skewedLong(Random random, long bound, double skew) {
    return (long) (bound * Math.pow(random.nextDouble(), skew));
  }

  private static double gauss(Random random) {
    return Math.max(-4.0, Math.min(4.0, random.nextGaussian()));
  }

  private static int weighted(Random random, int[] weights) {
    int total = 0;
    for (int weight : weights) {
      total += weight;
    }
    int pick = random.nextInt(total);
    for (int k = 0; k < weights.length; k++) {
      pick -= weights[k];
      if (pick < 0) {
        return k;
      }
    }
    return weights.length - 1;
  }

  private static TimestampData micros(long micros) {
    return TimestampData.fromEpochMillis(
        Math.floorDiv(micros, 1000L), (int) Math.floorMod(micros, 1000L) * 1000);
  }

  private static String letters(Random random, int length) {
    char[] chars = new char[length];
    for (int k = 0; k < length; k++) {
      chars[k] = LETTERS.charAt(random.nextInt(LETTERS.length()));
    }
    return new String(chars);
  }

  private static String hex(Random random, int length) {
    char[] chars = new char[length];
    for (int k = 0; k < length; k++) {
      chars[k] = Character.forDigit(random.nextInt(16), 16);
    }
    return new String(chars);
  }

  /** Words (skewed towards common ones) joined by spaces, min..max characters long. */
  private static String words(Random random, int min, int max) {
    int target = min + random.nextInt(max - min + 1);
    StringBuilder text = new StringBuilder(target + 16);
    while (text.length() < target) {
      if (text.length() > 0) {
        text.append(' ');
      }
      text.append(WORDS[skewedInt(random, WORDS.length, 2.0)]);
    }
    text.setLength(target);
    return text.toString();
  }
}
