package io.frazil.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The Frazil Arrow arm against the other two arms, per cell, in {@link JobReport}'s results.md: the
 * ratios stock / Arrow and Frazil (RowData) / Arrow of the wall and process CPU medians, with their
 * extreme ranges, and issue 33's targets (the Arrow arm ≥ 2.5× stock and ≥ 1.5× Frazil RowData in
 * every cell), judged on the wall-time medians and stated for CPU beside them.
 */
final class JobArrowTargets {
  static final double VS_STOCK = 2.5;
  static final double VS_FRAZIL = 1.5;

  private JobArrowTargets() {}

  /** The section; empty when no cell has measured trials of the Arrow arm. */
  static String section(List<Report.Cell> cells, boolean smoke) {
    List<String[]> rows = new ArrayList<>();
    List<String> missed = new ArrayList<>();
    int evaluated = 0;
    for (Report.Cell arrow : cells) {
      if (!JobBench.ARROW.equals(arrow.arm)) {
        continue;
      }
      Report.Cell frazil = find(cells, arrow, "frazil");
      Report.Ratio stockWall = arrow.wall();
      Report.Ratio stockCpu = arrow.cpu();
      Report.Ratio frazilWall = null;
      Report.Ratio frazilCpu = null;
      if (frazil != null) {
        Report.Cell versus = versusFrazil(frazil, arrow);
        frazilWall = versus.wall();
        frazilCpu = versus.cpu();
      }
      evaluated++;
      boolean stockMet = stockWall.median >= VS_STOCK;
      boolean frazilMet = frazilWall != null && frazilWall.median >= VS_FRAZIL;
      if (!stockMet) {
        missed.add(arrow.schema + " vs stock (" + Report.times(stockWall.median) + ")");
      }
      if (!frazilMet) {
        missed.add(
            arrow.schema
                + " vs Frazil RowData ("
                + (frazilWall == null ? "no Frazil trials" : Report.times(frazilWall.median))
                + ")");
      }
      rows.add(
          new String[] {
            arrow.schema,
            ratio(stockWall),
            ratio(stockCpu),
            ratio(frazilWall),
            ratio(frazilCpu),
            stockMet ? "met" : "**missed**",
            frazilMet ? "met" : "**missed**"
          });
    }
    if (evaluated == 0) {
      return "";
    }
    StringBuilder md = new StringBuilder();
    md.append("## Frazil Arrow end to end against stock and Frazil RowData\n\n");
    md.append(
        "Ratios of the medians of the measured trials that passed validation (> 1: the Arrow arm is"
            + " faster or cheaper), bracketed by the extreme range (other arm's min / Arrow max …"
            + " max / min). Targets (issue 33), judged on wall time: the Arrow arm ≥ 2.5× stock and"
            + " ≥ 1.5× Frazil RowData in every cell.\n\n");
    md.append(
        "| cell | wall stock/Arrow | CPU stock/Arrow | wall Frazil/Arrow | CPU Frazil/Arrow"
            + " | ≥ 2.5× stock | ≥ 1.5× Frazil |\n");
    md.append("|---|--:|--:|--:|--:|---|---|\n");
    for (String[] row : rows) {
      md.append("| ").append(String.join(" | ", row)).append(" |\n");
    }
    md.append('\n');
    md.append("**Targets: ");
    md.append(missed.isEmpty() ? "MET in every cell" : "MISSED in " + String.join(", ", missed));
    md.append("**");
    if (smoke) {
      md.append(" (smoke run: not a measurement)");
    }
    md.append(".\n\n");
    return md.toString();
  }

  /** The cell of {@code arm} with the same cohort, schema and rows as {@code like}, or null. */
  private static Report.Cell find(List<Report.Cell> cells, Report.Cell like, String arm) {
    for (Report.Cell cell : cells) {
      if (cell.sameCellAs(like) && arm.equals(cell.arm)) {
        return cell;
      }
    }
    return null;
  }

  /** A cell whose "stock" side is the Frazil RowData trials, for Frazil / Arrow ratios. */
  private static Report.Cell versusFrazil(Report.Cell frazil, Report.Cell arrow) {
    Report.Cell versus =
        new Report.Cell(arrow.cohort, arrow.schema, arrow.rows, arrow.arm, frazil.frazil);
    versus.frazil.addAll(arrow.frazil);
    return versus;
  }

  private static String ratio(Report.Ratio ratio) {
    if (ratio == null) {
      return "n/a";
    }
    return String.format(
        Locale.ROOT, "**%s** %s", Report.times(ratio.median), Report.ratioRange(ratio));
  }
}
