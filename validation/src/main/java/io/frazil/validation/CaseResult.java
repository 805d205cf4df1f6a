package io.frazil.validation;

import java.util.LinkedHashMap;
import java.util.Map;

/** One case (a Flink job pair or a file-level write pair) and its checks, in report order. */
final class CaseResult {
  static final String ROWS = "rows";
  static final String FOOTER = "footer";
  static final String METRICS = "metrics";
  static final String DELETES = "deletes";
  static final String RESOURCES = "resources";
  static final String[] CHECKS = {ROWS, FOOTER, METRICS, DELETES, RESOURCES};

  final String group;
  final String name;
  final Map<String, Object> params = new LinkedHashMap<>();
  final Map<String, Check> checks = new LinkedHashMap<>();
  long millis;

  CaseResult(String group, String name) {
    this.group = group;
    this.name = name;
    for (String check : CHECKS) {
      checks.put(check, new Check(check));
    }
  }

  Check check(String name) {
    return checks.get(name);
  }

  boolean passed() {
    return checks.values().stream().noneMatch(c -> c.status() == Check.Status.FAIL);
  }

  void close() {
    checks.values().forEach(Check::closeEmpty);
  }
}
