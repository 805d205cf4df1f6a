package io.frazil.nexmark;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;

/**
 * Nexmark's events, written to the public specification (Tucker et al., "NEXMark – A Benchmark for
 * Queries over Data Streams"; the generator Beam and Flink's Nexmark suites share): an online
 * auction's people, auctions and bids in the proportions 1 : 3 : 46, ids that grow with the event
 * number, a window of 100 auctions in flight and 1,000 active people, hot auctions (half the bids
 * go to one of every 2 newest auctions), hot bidders and sellers (3 in 4 from one of every 4 newest
 * people), hot channels, log-uniform prices, and {@code extra} padding to 200 / 500 / 100 bytes.
 *
 * <p>Every event is a function of its number and the seed alone (its own random stream), so any
 * subtask can make any event, in any order, and a run is reproducible. Event time advances at
 * {@link #eventsPerSecond()}: event {@code n} happens at {@code base + n * 1000 / rate} ms, whether
 * the source emits as fast as it can (bounded runs) or paces itself to that rate (unbounded).
 */
public final class NexmarkGenerator implements Serializable {
  private static final long serialVersionUID = 1L;

  /** 2025-01-01T00:00:00Z: the event time of event 0 unless another base is given. */
  public static final long DEFAULT_BASE_TIME_MS = 1_735_689_600_000L;

  public static final int PERSON = 0;
  public static final int AUCTION = 1;
  public static final int BID = 2;

  static final int PERSON_PROPORTION = 1;
  static final int AUCTION_PROPORTION = 3;
  static final int BID_PROPORTION = 46;
  static final int TOTAL_PROPORTION = PERSON_PROPORTION + AUCTION_PROPORTION + BID_PROPORTION;

  static final long FIRST_PERSON_ID = 1000;
  static final long FIRST_AUCTION_ID = 1000;
  static final long FIRST_CATEGORY_ID = 10;
  private static final int NUM_CATEGORIES = 5;
  private static final int ACTIVE_PEOPLE = 1000;
  private static final int IN_FLIGHT_AUCTIONS = 100;
  private static final int PERSON_ID_LEAD = 10;
  private static final int AUCTION_ID_LEAD = 10;
  private static final int HOT_AUCTION_RATIO = 2;
  private static final int HOT_SELLER_RATIO = 4;
  private static final int HOT_BIDDER_RATIO = 4;
  private static final int HOT_CHANNEL_RATIO = 2;
  private static final int CHANNELS = 10_000;
  private static final int AVG_PERSON_BYTES = 200;
  private static final int AVG_AUCTION_BYTES = 500;
  private static final int AVG_BID_BYTES = 100;
  private static final String[] HOT_CHANNELS = {"Google", "Facebook", "Baidu", "Apple"};

  private final long seed;
  private final long eventsPerSecond;
  private final long baseTimeMs;

  // Channel names and URLs, drawn once per generator from the seed (10,000 + 4 of each); shared
  // instances, as a deserializer's interned values would be.
  private transient StringData[] channelNames;
  private transient StringData[] channelUrls;

  public NexmarkGenerator(long seed, long eventsPerSecond) {
    this(seed, eventsPerSecond, DEFAULT_BASE_TIME_MS);
  }

  public NexmarkGenerator(long seed, long eventsPerSecond, long baseTimeMs) {
    if (eventsPerSecond <= 0) {
      throw new IllegalArgumentException(
          "Nexmark events per second must be positive, got " + eventsPerSecond);
    }
    this.seed = seed;
    this.eventsPerSecond = eventsPerSecond;
    this.baseTimeMs = baseTimeMs;
  }

  public long seed() {
    return seed;
  }

  public long eventsPerSecond() {
    return eventsPerSecond;
  }

  // ---------------------------------------------------------------------------------------------
  // Which event a number is, and the numbers of one kind.

  /** {@link #PERSON}, {@link #AUCTION} or {@link #BID}. */
  public static int kind(long eventId) {
    long offset = eventId % TOTAL_PROPORTION;
    return offset < PERSON_PROPORTION
        ? PERSON
        : offset < PERSON_PROPORTION + AUCTION_PROPORTION ? AUCTION : BID;
  }

  /** The number of the {@code k}-th (from 0) event of {@code kind}. */
  public static long eventIdOf(int kind, long k) {
    switch (kind) {
      case PERSON:
        return k * TOTAL_PROPORTION;
      case AUCTION:
        return k / AUCTION_PROPORTION * TOTAL_PROPORTION
            + PERSON_PROPORTION
            + k % AUCTION_PROPORTION;
      case BID:
        return k / BID_PROPORTION * TOTAL_PROPORTION
            + PERSON_PROPORTION
            + AUCTION_PROPORTION
            + k % BID_PROPORTION;
      default:
        throw new IllegalArgumentException("Unknown Nexmark event kind " + kind);
    }
  }

  /** How many of the events {@code 0 .. events - 1} are of {@code kind}. */
  public static long countOf(int kind, long events) {
    long epochs = events / TOTAL_PROPORTION;
    long rest = events % TOTAL_PROPORTION;
    switch (kind) {
      case PERSON:
        return epochs * PERSON_PROPORTION + Math.min(rest, PERSON_PROPORTION);
      case AUCTION:
        return epochs * AUCTION_PROPORTION
            + Math.max(0, Math.min(rest - PERSON_PROPORTION, AUCTION_PROPORTION));
      case BID:
        return epochs * BID_PROPORTION + Math.max(0, rest - PERSON_PROPORTION - AUCTION_PROPORTION);
      default:
        throw new IllegalArgumentException("Unknown Nexmark event kind " + kind);
    }
  }

  /** Event time of event {@code eventId}, ms since the epoch. */
  public long timestampMs(long eventId) {
    return baseTimeMs + eventId * 1000 / eventsPerSecond;
  }

  // ---------------------------------------------------------------------------------------------
  // The events. Field order and names are Nexmark's (NexmarkTable has the row types).

  /** The event as a row of its own kind's table. */
  public RowData event(long eventId) {
    switch (kind(eventId)) {
      case PERSON:
        return person(eventId);
      case AUCTION:
        return auction(eventId);
      default:
        return bid(eventId);
    }
  }

  /** Person: id, name, emailAddress, creditCard, city, state, dateTime, extra. */
  public RowData person(long eventId) {
    SplittableRandom random = random(eventId);
    long id = lastPersonId(eventId) + FIRST_PERSON_ID;
    String name =
        NexmarkText.pick(random, NexmarkText.FIRST_NAMES)
            + ' '
            + NexmarkText.pick(random, NexmarkText.LAST_NAMES);
    String email = NexmarkText.string(random, 7) + '@' + NexmarkText.string(random, 5) + ".com";
    String card = NexmarkText.creditCard(random);
    String city = NexmarkText.pick(random, NexmarkText.US_CITIES);
    String state = NexmarkText.pick(random, NexmarkText.US_STATES);
    int size =
        8 + name.length() + email.length() + card.length() + city.length() + state.length() + 8;
    return GenericRowData.of(
        id,
        utf8(name),
        utf8(email),
        utf8(card),
        utf8(city),
        utf8(state),
        TimestampData.fromEpochMillis(timestampMs(eventId)),
        utf8(NexmarkText.extra(random, size, AVG_PERSON_BYTES)));
  }

  /**
   * Auction: id, itemName, description, initialBid, reserve, dateTime, expires, seller, category,
   * extra.
   */
  public RowData auction(long eventId) {
    SplittableRandom random = random(eventId);
    long id = lastAuctionId(eventId) + FIRST_AUCTION_ID;
    long seller =
        random.nextInt(HOT_SELLER_RATIO) > 0
            ? lastPersonId(eventId) / HOT_SELLER_RATIO * HOT_SELLER_RATIO
            : nextPersonId(eventId, random);
    long category = FIRST_CATEGORY_ID + random.nextInt(NUM_CATEGORIES);
    long initialBid = price(random);
    String itemName = NexmarkText.string(random, 20);
    String description = NexmarkText.string(random, 100);
    long reserve = initialBid + price(random);
    long time = timestampMs(eventId);
    long expires = time + auctionLengthMs(eventId, random);
    int size = 8 + itemName.length() + description.length() + 8 + 8 + 8 + 8 + 8 + 8;
    return GenericRowData.of(
        id,
        utf8(itemName),
        utf8(description),
        initialBid,
        reserve,
        TimestampData.fromEpochMillis(time),
        TimestampData.fromEpochMillis(expires),
        seller + FIRST_PERSON_ID,
        category,
        utf8(NexmarkText.extra(random, size, AVG_AUCTION_BYTES)));
  }

  /** Bid: auction, bidder, price, channel, url, dateTime, extra. */
  public RowData bid(long eventId) {
    SplittableRandom random = random(eventId);
    long auction =
        random.nextInt(HOT_AUCTION_RATIO) > 0
            ? lastAuctionId(eventId) / HOT_AUCTION_RATIO * HOT_AUCTION_RATIO
            : nextAuctionId(eventId, random);
    long bidder =
        random.nextInt(HOT_BIDDER_RATIO) > 0
            ? lastPersonId(eventId) / HOT_BIDDER_RATIO * HOT_BIDDER_RATIO + 1
            : nextPersonId(eventId, random);
    long price = price(random);
    int channel =
        random.nextInt(HOT_CHANNEL_RATIO) > 0
            ? random.nextInt(HOT_CHANNELS.length)
            : HOT_CHANNELS.length + random.nextInt(CHANNELS);
    StringData channelName = channelName(channel);
    StringData url = channelUrl(channel);
    int size = 8 + 8 + 8 + channelName.toBytes().length + url.toBytes().length + 8;
    return GenericRowData.of(
        auction + FIRST_AUCTION_ID,
        bidder + FIRST_PERSON_ID,
        price,
        channelName,
        url,
        TimestampData.fromEpochMillis(timestampMs(eventId)),
        utf8(NexmarkText.extra(random, size, AVG_BID_BYTES)));
  }

  /** The first {@code count} bids of the stream, in event order. */
  public List<RowData> firstBids(int count) {
    List<RowData> bids = new ArrayList<>(count);
    for (int k = 0; k < count; k++) {
      bids.add(bid(eventIdOf(BID, k)));
    }
    return bids;
  }

  // ---------------------------------------------------------------------------------------------
  // The specification's id arithmetic (0-based ids; FIRST_* is added to what the events carry).

  private static long lastPersonId(long eventId) {
    long epoch = eventId / TOTAL_PROPORTION;
    long offset = Math.min(eventId % TOTAL_PROPORTION, PERSON_PROPORTION - 1);
    return epoch * PERSON_PROPORTION + offset;
  }

  private static long lastAuctionId(long eventId) {
    long epoch = eventId / TOTAL_PROPORTION;
    long offset = eventId % TOTAL_PROPORTION;
    if (offset < PERSON_PROPORTION) {
      epoch--;
      offset = AUCTION_PROPORTION - 1;
    } else if (offset >= PERSON_PROPORTION + AUCTION_PROPORTION) {
      offset = AUCTION_PROPORTION - 1;
    } else {
      offset -= PERSON_PROPORTION;
    }
    return epoch * AUCTION_PROPORTION + offset;
  }

  /** A person among the active ones (or one of the next few to join). */
  private static long nextPersonId(long eventId, SplittableRandom random) {
    long people = lastPersonId(eventId) + 1;
    long active = Math.min(people, ACTIVE_PEOPLE);
    return people - active + random.nextLong(active + PERSON_ID_LEAD);
  }

  /** An auction among those in flight (or one of the next few to open). */
  private static long nextAuctionId(long eventId, SplittableRandom random) {
    long max = lastAuctionId(eventId);
    long min = Math.max(max - IN_FLIGHT_AUCTIONS, 0);
    return min + random.nextLong(max - min + 1 + AUCTION_ID_LEAD);
  }

  /** Log-uniform between $1 and $1,000,000, in cents. */
  private static long price(SplittableRandom random) {
    return Math.round(Math.pow(10.0, random.nextDouble() * 6.0) * 100.0);
  }

  /**
   * An auction lasts up to twice the event time in which {@value #IN_FLIGHT_AUCTIONS} auctions
   * open, so that about that many are open at any time.
   */
  private long auctionLengthMs(long eventId, SplittableRandom random) {
    long eventsForAuctions = (long) IN_FLIGHT_AUCTIONS * TOTAL_PROPORTION / AUCTION_PROPORTION;
    long horizonMs = timestampMs(eventId + eventsForAuctions) - timestampMs(eventId);
    return 1L + random.nextLong(Math.max(horizonMs * 2, 1L));
  }

  private SplittableRandom random(long eventId) {
    return new SplittableRandom(seed * 0x9E3779B97F4A7C15L + eventId);
  }

  // ---------------------------------------------------------------------------------------------
  // Channels: 4 hot ones (Google, Facebook, Baidu, Apple) with one URL each, and 10,000 others,
  // "channel-<n>", whose URL carries channel_id=<n reversed> nine times in ten.

  private StringData channelName(int channel) {
    channels();
    return channelNames[channel];
  }

  private StringData channelUrl(int channel) {
    channels();
    return channelUrls[channel];
  }

  private void channels() {
    if (channelNames != null) {
      return;
    }
    int count = HOT_CHANNELS.length + CHANNELS;
    StringData[] names = new StringData[count];
    StringData[] urls = new StringData[count];
    SplittableRandom random = new SplittableRandom(seed ^ 0x6368616E6E656CL);
    for (int c = 0; c < count; c++) {
      boolean hot = c < HOT_CHANNELS.length;
      int number = c - HOT_CHANNELS.length;
      names[c] = utf8(hot ? HOT_CHANNELS[c] : "channel-" + number);
      String url = NexmarkText.url(random);
      if (!hot && random.nextInt(10) > 0) {
        url += "&channel_id=" + Math.abs(Integer.reverse(number));
      }
      urls[c] = utf8(url);
    }
    channelUrls = urls;
    channelNames = names;
  }

  private static StringData utf8(String text) {
    return StringData.fromBytes(text.getBytes(StandardCharsets.UTF_8));
  }
}
