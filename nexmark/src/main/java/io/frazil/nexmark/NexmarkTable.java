package io.frazil.nexmark;

import java.util.Locale;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.RowType;

/**
 * The four tables the source serves: each kind of event on its own ({@code person}, {@code
 * auction}, {@code bid}) and all of them in event order as one union row ({@code events}: {@code
 * event_type} 0 / 1 / 2 and one non-null {@code person} / {@code auction} / {@code bid} column, the
 * shape of Flink's Nexmark {@code datagen} table). Column names are Nexmark's.
 */
public enum NexmarkTable {
  PERSON(NexmarkGenerator.PERSON, personType()),
  AUCTION(NexmarkGenerator.AUCTION, auctionType()),
  BID(NexmarkGenerator.BID, bidType()),
  EVENTS(
      -1,
      DataTypes.ROW(
          DataTypes.FIELD("event_type", DataTypes.INT()),
          DataTypes.FIELD("person", personType()),
          DataTypes.FIELD("auction", auctionType()),
          DataTypes.FIELD("bid", bidType())));

  private final int kind;
  private final DataType dataType;

  NexmarkTable(int kind, DataType dataType) {
    this.kind = kind;
    this.dataType = dataType;
  }

  /** The option value that names it ({@code 'table' = 'bid'}). */
  public String optionValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static NexmarkTable of(String option) {
    for (NexmarkTable table : values()) {
      if (table.optionValue().equals(option.trim().toLowerCase(Locale.ROOT))) {
        return table;
      }
    }
    throw new IllegalArgumentException(
        "Unknown Nexmark table '" + option + "': expected person, auction, bid or events");
  }

  public DataType dataType() {
    return dataType;
  }

  public RowType rowType() {
    return (RowType) dataType.getLogicalType();
  }

  /** How many of the first {@code events} events this table gets. */
  public long rowsOf(long events) {
    return kind < 0 ? events : NexmarkGenerator.countOf(kind, events);
  }

  /** The event number of this table's {@code k}-th row. */
  public long eventIdOf(long k) {
    return kind < 0 ? k : NexmarkGenerator.eventIdOf(kind, k);
  }

  /** The row for event {@code eventId} (which must be of this table's kind). */
  public RowData row(NexmarkGenerator generator, long eventId) {
    switch (this) {
      case PERSON:
        return generator.person(eventId);
      case AUCTION:
        return generator.auction(eventId);
      case BID:
        return generator.bid(eventId);
      default:
        int type = NexmarkGenerator.kind(eventId);
        GenericRowData union = new GenericRowData(4);
        union.setField(0, type);
        union.setField(1 + type, generator.event(eventId));
        return union;
    }
  }

  private static DataType personType() {
    return DataTypes.ROW(
        DataTypes.FIELD("id", DataTypes.BIGINT()),
        DataTypes.FIELD("name", DataTypes.STRING()),
        DataTypes.FIELD("emailAddress", DataTypes.STRING()),
        DataTypes.FIELD("creditCard", DataTypes.STRING()),
        DataTypes.FIELD("city", DataTypes.STRING()),
        DataTypes.FIELD("state", DataTypes.STRING()),
        DataTypes.FIELD("dateTime", DataTypes.TIMESTAMP(3)),
        DataTypes.FIELD("extra", DataTypes.STRING()));
  }

  private static DataType auctionType() {
    return DataTypes.ROW(
        DataTypes.FIELD("id", DataTypes.BIGINT()),
        DataTypes.FIELD("itemName", DataTypes.STRING()),
        DataTypes.FIELD("description", DataTypes.STRING()),
        DataTypes.FIELD("initialBid", DataTypes.BIGINT()),
        DataTypes.FIELD("reserve", DataTypes.BIGINT()),
        DataTypes.FIELD("dateTime", DataTypes.TIMESTAMP(3)),
        DataTypes.FIELD("expires", DataTypes.TIMESTAMP(3)),
        DataTypes.FIELD("seller", DataTypes.BIGINT()),
        DataTypes.FIELD("category", DataTypes.BIGINT()),
        DataTypes.FIELD("extra", DataTypes.STRING()));
  }

  private static DataType bidType() {
    return DataTypes.ROW(
        DataTypes.FIELD("auction", DataTypes.BIGINT()),
        DataTypes.FIELD("bidder", DataTypes.BIGINT()),
        DataTypes.FIELD("price", DataTypes.BIGINT()),
        DataTypes.FIELD("channel", DataTypes.STRING()),
        DataTypes.FIELD("url", DataTypes.STRING()),
        DataTypes.FIELD("dateTime", DataTypes.TIMESTAMP(3)),
        DataTypes.FIELD("extra", DataTypes.STRING()));
  }
}
