package io.frazil.read;

import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.mapping.NameMapping;

/** What a read of one file asks for: Iceberg's {@code ReadBuilder} settings. */
public final class ReadSettings {
  final Schema projection;
  final Map<Integer, ?> idToConstant;
  final Long start;
  final Long length;
  final Expression filter;
  final boolean caseSensitive;
  final NameMapping nameMapping;
  final boolean reuseContainers;
  final Map<String, String> properties;
  final int batchRows;

  @SuppressWarnings("checkstyle:ParameterNumber")
  public ReadSettings(
      Schema projection,
      Map<Integer, ?> idToConstant,
      Long start,
      Long length,
      Expression filter,
      boolean caseSensitive,
      NameMapping nameMapping,
      boolean reuseContainers,
      Map<String, String> properties,
      int batchRows) {
    this.projection = projection;
    this.idToConstant = idToConstant;
    this.start = start;
    this.length = length;
    this.filter = filter;
    this.caseSensitive = caseSensitive;
    this.nameMapping = nameMapping;
    this.reuseContainers = reuseContainers;
    this.properties = properties;
    this.batchRows = batchRows;
  }
}
