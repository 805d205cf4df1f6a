package io.frazil.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Turns the measured iterations into results.md and ratios.svg. */
final class Report {
  private Report() {}

  /** Median, min and max of one quantity over the measured iterations of one arm. */
  static final class Stat {
    final double median;
    final double min;
    final double max;

    Stat(double[] values) {
      double[] sorted = values.clone();
      Arrays.sort(sorted);
      int n = sorted.length;
      this.median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
      this.min = sorted[0];
      this.max = sorted[n - 1];
    }
  }

  interface Quantity {
    double of(Iteration iteration);
  }

  static Stat stat(List<Iteration> iterations, Quantity quantity) {
    double[] values = new double[iterations.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = quantity.of(iterations.get(i));
    }
    return new Stat(values);
  }

  /** A ratio of medians with its extreme range (stock min / Frazil max ... max / min). */
  static final class Ratio {
    final double median;
    final double low;
    final double high;

    Ratio(Stat stock, Stat frazil) {
      this.median = stock.median / frazil.median;
      this.low = stock.min / frazil.max;
      this.high = stock.max / frazil.min;
    }
  }

  /**
   * The measured iterations of one cohort × schema × row count for one Frazil arm, with the stock
   * iterations of that cohort × schema × row count (shared by all Frazil arms of a cell).
   */
  static final class Cell {
    final String cohort;
    final String schema;
    final int rows;
    final String arm;
    final List<Iteration> stock;
    final List<Iteration> frazil = new ArrayList<>();

    Cell(String cohort, String schema, int rows, String arm, List<Iteration> stock) {
      this.cohort = cohort;
      this.schema = schema;
      this.rows = rows;
      this.arm = arm;
      this.stock = stock;
    }

    Ratio wall() {
      return new Ratio(stat(stock, i -> i.wallNs), stat(frazil, i -> i.wallNs));
    }

    Ratio cpu() {
      return new Ratio(stat(stock, i -> i.processCpuNs), stat(frazil, i -> i.processCpuNs));
    }

    String label() {
      return cohort + " / " + schema + " / " + String.format(Locale.ROOT, "%,d", rows);
    }

    /** True when {@code other} is the same cohort × schema × row count (another Frazil arm). */
    boolean sameCellAs(Cell other) {
      return other != null
          && other.cohort.equals(cohort)
          && other.schema.equals(schema)
          && other.rows == rows;
    }
  }

  /** One cell per cohort × schema × row count × Frazil arm, in the order they were run. */
  static List<Cell> cells(List<Iteration> iterations) {
    Map<String, List<Iteration>> stock = new LinkedHashMap<>();
    Map<String, Cell> cells = new LinkedHashMap<>();
    for (Iteration it : iterations) {
      if (!it.measured()) {
        continue;
      }
      String key = it.cohort + "|" + it.schema + "|" + it.rows;
      List<Iteration> stockOfCell = stock.computeIfAbsent(key, k -> new ArrayList<>());
      if ("stock".equals(it.arm)) {
        stockOfCell.add(it);
      } else {
        cells
            .computeIfAbsent(
                key + "|" + it.arm,
                k -> new Cell(it.cohort, it.schema, it.rows, it.arm, stockOfCell))
            .frazil
            .add(it);
      }
    }
    List<Cell> complete = new ArrayList<>();
    for (Cell cell : cells.values()) {
      if (!cell.stock.isEmpty() && !cell.frazil.isEmpty()) {
        complete.add(cell);
      }
    }
    return complete;
  }

  // ---------------------------------------------------------------------------------------------
  // results.md

  static String tables(List<Cell> cells, List<String> cohorts) {
    StringBuilder md = new StringBuilder();
    for (String cohort : cohorts) {
      List<Cell> cohortCells = new ArrayList<>();
      for (Cell cell : cells) {
        if (cell.cohort.equals(cohort)) {
          cohortCells.add(cell);
        }
      }
      if (cohortCells.isEmpty()) {
        continue;
      }
      md.append("## Cohort `").append(cohort).append("`: ").append(cohortTitle(cohort));
      md.append("\n\n");
      md.append(
          "| schema | rows | arm | wall ms, median [min–max] | process CPU ms, median [min–max]"
              + " | thread CPU ms | alloc MB/iter | alloc B/row | output MB | M rows/s"
              + " | wall stock/Frazil | CPU stock/Frazil | alloc Frazil/stock |\n");
      md.append("|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
      Cell previous = null;
      for (Cell cell : cohortCells) {
        if (!cell.sameCellAs(previous)) {
          row(md, cell, cell.stock, null);
        }
        row(md, cell, cell.frazil, cell);
        previous = cell;
      }
      md.append('\n');
    }
    return md.toString();
  }

  private static String cohortTitle(String cohort) {
    return FileWriteBench.FILE_WRITE.equals(cohort)
        ? "Flink RowData in → closed Iceberg data file + Metrics out (both arms)"
        : "stock writer on RowData against Frazil's Arrow appender on the same rows, pre-built"
            + " as 8,192-row Arrow batches before timing: `frazil` keeps each batch the"
            + " caller's (`buildArrow`, no overlap), `frazil-owned` takes it"
            + " (`buildArrowTakingOwnership`, up to two batches in flight; a fresh copy of the"
            + " batches is made before each timed write)";
  }

  private static void row(StringBuilder md, Cell cell, List<Iteration> its, Cell ratios) {
    Stat wall = stat(its, i -> i.wallNs / 1e6);
    Stat cpu = stat(its, i -> i.processCpuNs / 1e6);
    Stat thread = stat(its, i -> i.threadCpuNs / 1e6);
    Stat alloc = stat(its, i -> i.allocatedBytes);
    Stat out = stat(its, i -> i.outputBytes);
    md.append("| ").append(cell.schema);
    md.append(" | ").append(String.format(Locale.ROOT, "%,d", cell.rows));
    md.append(" | ").append(its.get(0).arm);
    md.append(" | ").append(range(wall, "%.1f"));
    md.append(" | ").append(range(cpu, "%.1f"));
    md.append(" | ").append(fmt("%.1f", thread.median));
    md.append(" | ").append(fmt("%.1f", alloc.median / (1 << 20)));
    md.append(" | ").append(fmt("%.1f", alloc.median / cell.rows));
    md.append(" | ").append(fmt("%.2f", out.median / (1 << 20)));
    md.append(" | ").append(fmt("%.2f", cell.rows / (wall.median / 1e3) / 1e6));
    if (ratios == null) {
      md.append(" | | | |\n");
    } else {
      Ratio w = ratios.wall();
      Ratio c = ratios.cpu();
      double allocStock = stat(ratios.stock, i -> i.allocatedBytes).median;
      md.append(" | **").append(times(w.median)).append("** ").append(ratioRange(w));
      md.append(" | **").append(times(c.median)).append("** ").append(ratioRange(c));
      md.append(" | ").append(fmt("%.1f%%", 100.0 * alloc.median / allocStock));
      md.append(" |\n");
    }
  }

  /** "median [min–max]" in {@code format}. */
  static String range(Stat stat, String format) {
    return fmt(format, stat.median)
        + " ["
        + fmt(format, stat.min)
        + "–"
        + fmt(format, stat.max)
        + "]";
  }

  /** "[low–high]" of a ratio's extreme range. */
  static String ratioRange(Ratio ratio) {
    return "[" + fmt("%.2f", ratio.low) + "–" + fmt("%.2f", ratio.high) + "]";
  }

  static String times(double ratio) {
    return fmt("%.2f×", ratio);
  }

  static String fmt(String format, double value) {
    return String.format(Locale.ROOT, format, value);
  }

  // ---------------------------------------------------------------------------------------------
  // ratios.svg, hand-written

  static void writeSvg(Path file, List<Cell> cells, String subtitle) throws IOException {
    int group = 118;
    int bar = 34;
    int left = 64;
    int top = 100;
    int plot = 320;
    int bottom = 86;
    int width = Math.max(900, left + group * cells.size() + 30);
    int height = top + plot + bottom;

    double max = 1.0;
    for (Cell cell : cells) {
      max = Math.max(max, Math.max(cell.wall().high, cell.cpu().high));
    }
    double step = max <= 2 ? 0.25 : max <= 4 ? 0.5 : max <= 8 ? 1 : max <= 16 ? 2 : 5;
    double yMax = Math.ceil(max * 1.08 / step) * step;

    Svg svg =
        new Svg(
            width,
            height,
            left,
            "Stock Iceberg / Frazil: ratio of medians (higher = Frazil faster)",
            subtitle);
    // legend
    svg.add("<rect x=\"%d\" y=\"52\" width=\"12\" height=\"12\" fill=\"#4e79a7\"/>", left);
    svg.add("<text x=\"%d\" y=\"62\">wall time</text>\n", left + 16);
    svg.add("<rect x=\"%d\" y=\"52\" width=\"12\" height=\"12\" fill=\"#f28e2b\"/>", left + 100);
    svg.add("<text x=\"%d\" y=\"62\">process CPU time</text>\n", left + 116);
    svg.add(
        "<text x=\"%d\" y=\"62\" fill=\"#555\">whiskers: stock min / Frazil max … stock max /"
            + " Frazil min over the measured repetitions</text>\n",
        left + 240);

    // axis and grid
    for (double tick = 0; tick <= yMax + 1e-9; tick += step) {
      double y = top + plot - tick / yMax * plot;
      svg.add(
          "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n",
          left, width - 20, y, y);
      svg.add(
          "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">%s</text>\n",
          left - 6, y + 4, trimZeros(tick) + "×");
    }
    double parity = top + plot - 1.0 / yMax * plot;
    svg.add(
        "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\""
            + " stroke-dasharray=\"5,4\"/>\n",
        left, width - 20, parity, parity);
    svg.add(
        "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#c00\" font-size=\"11\">parity"
            + "</text>\n",
        width - 22, parity - 4);
    svg.add(
        "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n",
        left, width - 20, top + plot, top + plot);

    for (int c = 0; c < cells.size(); c++) {
      Cell cell = cells.get(c);
      int x0 = left + 12 + c * group;
      bar(svg, x0, bar, top, plot, yMax, cell.wall(), "#4e79a7");
      bar(svg, x0 + bar + 6, bar, top, plot, yMax, cell.cpu(), "#f28e2b");
      int mid = x0 + bar + 3;
      svg.add(
          "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-weight=\"bold\">%s</text>\n",
          mid, top + plot + 18, Svg.escape(cell.schema));
      svg.add(
          "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s rows</text>\n",
          mid, top + plot + 34, String.format(Locale.ROOT, "%,d", cell.rows));
      svg.add(
          "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s</text>\n",
          mid, top + plot + 50, Svg.escape(cell.cohort));
      if (!"frazil".equals(cell.arm)) {
        svg.add(
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s</text>\n",
            mid, top + plot + 66, Svg.escape(cell.arm));
      }
    }
    svg.write(file);
  }

  private static void bar(
      Svg svg, int x, int width, int top, int plot, double yMax, Ratio r, String color) {
    double base = top + plot;
    double y = base - r.median / yMax * plot;
    svg.add(
        "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>%s [%s–%s]"
            + "</title></rect>\n",
        x, y, width, base - y, color, times(r.median), fmt("%.2f", r.low), fmt("%.2f", r.high));
    double lo = base - r.low / yMax * plot;
    double hi = base - r.high / yMax * plot;
    int cx = x + width / 2;
    svg.add(
        "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>"
            + "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>"
            + "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#222\"/>\n",
        cx, cx, lo, hi, cx - 6, cx + 6, lo, lo, cx - 6, cx + 6, hi, hi);
    svg.add(
        "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"11\">%s</text>\n",
        cx, Math.min(y, hi) - 5, fmt("%.2f", r.median));
  }

  private static String trimZeros(double value) {
    String text = fmt("%.2f", value);
    return text.replaceAll("0+$", "").replaceAll("\\.$", "");
  }
}
