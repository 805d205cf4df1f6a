package io.frazil.nexmark;

import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.utils.LogicalTypeCasts;

/**
 * {@code 'connector' = 'frazil-nexmark'}: a table of Nexmark events in SQL.
 *
 * <pre>{@code
 * CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,
 *     dateTime TIMESTAMP(3), extra STRING,
 *     WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND)
 *   WITH ('connector' = 'frazil-nexmark', 'table' = 'bid', 'events' = '1000000');
 * }</pre>
 *
 * The declared columns must be the table's (NexmarkTable), in its order; names are free.
 */
public final class NexmarkTableFactory implements DynamicTableSourceFactory {
  public static final String IDENTIFIER = "frazil-nexmark";

  public static final ConfigOption<String> TABLE =
      ConfigOptions.key("table")
          .stringType()
          .defaultValue("events")
          .withDescription("person, auction, bid, or events (the union of the three)");
  public static final ConfigOption<Long> EVENTS =
      ConfigOptions.key("events")
          .longType()
          .defaultValue(0L)
          .withDescription(
              "Events of the whole stream to generate (the table gets its share); 0: unbounded");
  public static final ConfigOption<Long> EVENTS_PER_SECOND =
      ConfigOptions.key("events-per-second")
          .longType()
          .defaultValue(10_000L)
          .withDescription(
              "Event-time rate (all kinds); an unbounded source is also paced to it in wall time");
  public static final ConfigOption<Long> SEED =
      ConfigOptions.key("seed").longType().defaultValue(0L).withDescription("Generator seed");

  @Override
  public String factoryIdentifier() {
    return IDENTIFIER;
  }

  @Override
  public Set<ConfigOption<?>> requiredOptions() {
    return Set.of();
  }

  @Override
  public Set<ConfigOption<?>> optionalOptions() {
    return Set.of(TABLE, EVENTS, EVENTS_PER_SECOND, SEED);
  }

  @Override
  public DynamicTableSource createDynamicTableSource(Context context) {
    FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
    helper.validate();
    ReadableConfig options = helper.getOptions();
    NexmarkTable table;
    try {
      table = NexmarkTable.of(options.get(TABLE));
    } catch (IllegalArgumentException e) {
      throw new ValidationException(e.getMessage());
    }
    long events = options.get(EVENTS);
    long rate = options.get(EVENTS_PER_SECOND);
    if (events < 0 || rate <= 0) {
      throw new ValidationException(
          "frazil-nexmark: 'events' must be >= 0 and 'events-per-second' > 0, got "
              + events
              + " and "
              + rate);
    }
    RowType declared = (RowType) context.getPhysicalRowDataType().getLogicalType();
    checkColumns(table, declared, context.getObjectIdentifier().asSummaryString());
    return new NexmarkTableSource(table, new NexmarkGenerator(options.get(SEED), rate), events);
  }

  /**
   * The declared physical columns must be the generated ones, type for type (nullability aside).
   */
  private static void checkColumns(NexmarkTable table, RowType declared, String name) {
    RowType generated = table.rowType();
    boolean same = declared.getFieldCount() == generated.getFieldCount();
    for (int i = 0; same && i < generated.getFieldCount(); i++) {
      LogicalType want = generated.getTypeAt(i).copy(true);
      LogicalType got = declared.getTypeAt(i).copy(true);
      same = LogicalTypeCasts.supportsAvoidingCast(want, got) && sameShape(want, got);
    }
    if (!same) {
      throw new ValidationException(
          "frazil-nexmark table "
              + name
              + " ('table' = '"
              + table.optionValue()
              + "') must declare the columns "
              + generated.asSummaryString()
              + ", got "
              + declared.asSummaryString());
    }
  }

  private static boolean sameShape(LogicalType want, LogicalType got) {
    return want.getTypeRoot() == got.getTypeRoot()
        && want.getChildren().size() == got.getChildren().size();
  }
}
