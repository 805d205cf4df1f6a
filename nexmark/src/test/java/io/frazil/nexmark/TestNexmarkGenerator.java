package io.frazil.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.Test;

class TestNexmarkGenerator {
  private final NexmarkGenerator generator = new NexmarkGenerator(7, 10_000);

  @Test
  void proportionsAreOneThreeFortySix() {
    int[] kinds = new int[3];
    for (long id = 0; id < 50_000; id++) {
      kinds[NexmarkGenerator.kind(id)]++;
    }
    assertThat(kinds).containsExactly(1_000, 3_000, 46_000);
    for (int kind = 0; kind < 3; kind++) {
      assertThat(NexmarkGenerator.countOf(kind, 50_000)).isEqualTo(kinds[kind]);
    }
  }

  @Test
  void eventIdOfAndCountOfAgreeWithKind() {
    for (int kind = 0; kind < 3; kind++) {
      long k = 0;
      for (long id = 0; id < 1_234; id++) {
        if (NexmarkGenerator.kind(id) == kind) {
          assertThat(NexmarkGenerator.eventIdOf(kind, k)).isEqualTo(id);
          k++;
        }
        assertThat(NexmarkGenerator.countOf(kind, id + 1)).isEqualTo(k);
      }
    }
  }

  @Test
  void sameSeedSameEventsOtherSeedOthers() {
    NexmarkGenerator again = new NexmarkGenerator(7, 10_000);
    NexmarkGenerator other = new NexmarkGenerator(8, 10_000);
    int differing = 0;
    for (long id = 0; id < 500; id++) {
      assertThat(again.event(id)).isEqualTo(generator.event(id));
      if (!other.event(id).equals(generator.event(id))) {
        differing++;
      }
    }
    assertThat(differing).isGreaterThan(450);
  }

  @Test
  void eventTimeAdvancesAtTheRate() {
    NexmarkGenerator slow = new NexmarkGenerator(7, 1_000);
    assertThat(slow.timestampMs(1_000) - slow.timestampMs(0)).isEqualTo(1_000);
    assertThat(generator.timestampMs(10_000) - generator.timestampMs(0)).isEqualTo(1_000);
    RowData bid = generator.bid(NexmarkGenerator.eventIdOf(NexmarkGenerator.BID, 100));
    assertThat(bid.getTimestamp(5, 3).getMillisecond())
        .isEqualTo(generator.timestampMs(NexmarkGenerator.eventIdOf(NexmarkGenerator.BID, 100)));
  }

  @Test
  void bidsFavourHotAuctionsAndBiddersAndReferToExistingIds() {
    List<RowData> bids = generator.firstBids(46_000); // 50,000 events: 1,000 people, 3,000 auctions
    Map<Long, Integer> perAuction = new HashMap<>();
    Set<Long> hotBidders = new HashSet<>();
    int hotBids = 0;
    for (RowData bid : bids) {
      long auction = bid.getLong(0);
      long bidder = bid.getLong(1);
      assertThat(auction).isBetween(1_000L, 1_000L + 3_000 + 10);
      assertThat(bidder).isBetween(1_000L, 1_000L + 1_000 + 10);
      assertThat(bid.getLong(2)).isBetween(100L, 100_000_000L);
      perAuction.merge(auction, 1, Integer::sum);
      if ((bidder - 1_000) % 4 == 1) {
        hotBidders.add(bidder);
        hotBids++;
      }
    }
    // Half the bids go to every second newest auction, three in four to a "4n+1" bidder.
    int evenAuctionBids = 0;
    for (Map.Entry<Long, Integer> e : perAuction.entrySet()) {
      if ((e.getKey() - 1_000) % 2 == 0) {
        evenAuctionBids += e.getValue();
      }
    }
    assertThat(evenAuctionBids).isBetween(46_000 * 70 / 100, 46_000 * 80 / 100);
    assertThat(hotBids).isBetween(46_000 * 75 / 100, 46_000 * 85 / 100);
    assertThat(hotBidders.size()).isLessThan(300);
  }

  @Test
  void eventsHaveTheSpecifiedAverageSizes() {
    long bidBytes = 0;
    long personBytes = 0;
    long auctionBytes = 0;
    int n = 2_000;
    for (long k = 0; k < n; k++) {
      RowData bid = generator.bid(NexmarkGenerator.eventIdOf(NexmarkGenerator.BID, k));
      bidBytes += 32 + bid.getString(3).toBytes().length + bid.getString(4).toBytes().length;
      bidBytes += bid.getString(6).toBytes().length;
      RowData person = generator.person(NexmarkGenerator.eventIdOf(NexmarkGenerator.PERSON, k));
      personBytes += 16 + person.getString(7).toBytes().length;
      for (int f = 1; f <= 5; f++) {
        personBytes += person.getString(f).toBytes().length;
      }
      RowData auction = generator.auction(NexmarkGenerator.eventIdOf(NexmarkGenerator.AUCTION, k));
      auctionBytes += 56 + auction.getString(1).toBytes().length;
      auctionBytes += auction.getString(2).toBytes().length + auction.getString(9).toBytes().length;
      assertThat(auction.getTimestamp(6, 3).getMillisecond())
          .isGreaterThan(auction.getTimestamp(5, 3).getMillisecond());
      assertThat(auction.getLong(4)).isGreaterThan(auction.getLong(3)); // reserve > initial bid
    }
    // Bids are already ~100 bytes without padding (URL and channel); people and auctions are
    // padded.
    assertThat(bidBytes / n).isBetween(90L, 130L);
    assertThat(personBytes / n).isBetween(180L, 220L);
    assertThat(auctionBytes / n).isBetween(450L, 550L);
  }

  @Test
  void unionRowsCarryOneEventOfTheirType() {
    for (long id = 0; id < 100; id++) {
      RowData union = NexmarkTable.EVENTS.row(generator, id);
      int type = union.getInt(0);
      assertThat(type).isEqualTo(NexmarkGenerator.kind(id));
      for (int column = 1; column <= 3; column++) {
        assertThat(union.isNullAt(column)).isEqualTo(column != 1 + type);
      }
    }
  }

  @Test
  void interleavingMapsEveryIndexToOneRow() {
    for (long rows : new long[] {1, 2, 7, 100, 101, 1_003}) {
      for (long splits = 1; splits <= 5; splits++) {
        Set<Long> seen = new HashSet<>();
        for (long index = 0; index < rows; index++) {
          long row = NexmarkSource.Interleaved.rowOf(index, rows, splits);
          assertThat(row).isBetween(0L, rows - 1);
          assertThat(seen.add(row))
              .as("row %d twice (%d rows, %d splits)", row, rows, splits)
              .isTrue();
        }
      }
    }
  }

  @Test
  void badSettingsAreRefusedWithTheirNames() {
    assertThatThrownBy(() -> new NexmarkGenerator(1, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("events per second");
    assertThatThrownBy(() -> NexmarkTable.of("bids"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'bids'");
    assertThatThrownBy(() -> NexmarkQuery.load("q6"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("q6");
  }

  @Test
  void everyQueryLoads() {
    for (String name : NexmarkQuery.ALL) {
      NexmarkQuery query = NexmarkQuery.load(name);
      assertThat(query.title()).isNotEqualTo(name);
      assertThat(query.createSql("t", "'format-version' = '2'")).startsWith("CREATE TABLE t (");
      assertThat(query.insertSql("t", "landed")).startsWith("INSERT INTO t").doesNotContain("${");
    }
  }
}
