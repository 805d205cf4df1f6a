package io.frazil.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** fanout.svg: time and memory against N for both arms, medians with [min–max] whiskers. */
final class FanoutSvg {
  private static final String STOCK = "#4e79a7";
  private static final String FRAZIL = "#f28e2b";
  private static final int PANEL_W = 330;
  private static final int PANEL_H = 230;
  private static final int LEFT = 60;
  private static final int TOP = 96;

  private FanoutSvg() {}

  /** One line of a panel: a quantity of one arm. */
  private record Series(
      String arm, String key, double scale, String color, boolean dashed, String label) {}

  static void write(Path file, FanoutReport report, RunFacts facts, FanoutBench bench)
      throws IOException {
    List<Integer> ns = bench.partitions;
    Object[][] panels = {
      {
        "wall time (write + close-all), s",
        List.of(
            new Series("stock", "wall_ns", 1e9, STOCK, false, "stock"),
            new Series("frazil", "wall_ns", 1e9, FRAZIL, false, "Frazil"))
      },
      {
        "close-all (complete()), ms",
        List.of(
            new Series("stock", "close_wall_ns", 1e6, STOCK, false, "stock"),
            new Series("frazil", "close_wall_ns", 1e6, FRAZIL, false, "Frazil"))
      },
      {
        "process CPU, s",
        List.of(
            new Series("stock", "process_cpu_ns", 1e9, STOCK, false, "stock"),
            new Series("frazil", "process_cpu_ns", 1e9, FRAZIL, false, "Frazil"))
      },
      {
        "peak RSS (VmHWM), MB",
        List.of(
            new Series("stock", "peak_rss_bytes", 1048576.0, STOCK, false, "stock"),
            new Series("frazil", "peak_rss_bytes", 1048576.0, FRAZIL, false, "Frazil"))
      },
      {
        "peak Java heap (pools), MB",
        List.of(
            new Series("stock", "peak_heap_bytes", 1048576.0, STOCK, false, "stock"),
            new Series("frazil", "peak_heap_bytes", 1048576.0, FRAZIL, false, "Frazil"))
      },
      {
        "held off-heap with all files open, MB",
        List.of(
            new Series(
                "stock",
                "native_estimate_all_open_bytes",
                1048576.0,
                STOCK,
                false,
                "stock RSS−heap−non-heap"),
            new Series(
                "frazil",
                "native_estimate_all_open_bytes",
                1048576.0,
                FRAZIL,
                false,
                "Frazil RSS−heap−non-heap"),
            new Series("frazil", "arrow_bytes_all_open", 1048576.0, FRAZIL, true, "Frazil Arrow"))
      },
    };
    int cols = 3;
    int rows = (panels.length + cols - 1) / cols;
    int width = LEFT + cols * (PANEL_W + 40);
    int height = TOP + rows * (PANEL_H + 90);
    String subtitle =
        String.format(
            Locale.ROOT,
            "%s, %d cores, Java %s, commit %.10s; %,d bid rows, zstd-3, heap %s, one JVM per trial;"
                + " medians, whiskers min–max%s",
            facts.now.substring(0, 10),
            facts.cores,
            System.getProperty("java.version"),
            facts.commit,
            bench.rows,
            bench.heap,
            bench.smoke ? "; SMOKE run, not a measurement" : "");
    Svg svg =
        new Svg(
            width,
            height,
            LEFT,
            "One Flink task writer, N open partition files: stock Iceberg vs Frazil",
            subtitle);
    svg.add("<rect x=\"%d\" y=\"54\" width=\"12\" height=\"12\" fill=\"%s\"/>", LEFT, STOCK);
    svg.add("<text x=\"%d\" y=\"64\">stock</text>\n", LEFT + 16);
    svg.add("<rect x=\"%d\" y=\"54\" width=\"12\" height=\"12\" fill=\"%s\"/>", LEFT + 70, FRAZIL);
    svg.add("<text x=\"%d\" y=\"64\">Frazil</text>\n", LEFT + 86);
    svg.add(
        "<text x=\"%d\" y=\"64\" fill=\"#555\">x axis: N open files (log scale)</text>\n",
        LEFT + 150);

    for (int p = 0; p < panels.length; p++) {
      int x0 = LEFT + (p % cols) * (PANEL_W + 40);
      int y0 = TOP + (p / cols) * (PANEL_H + 90);
      @SuppressWarnings("unchecked")
      List<Series> series = (List<Series>) panels[p][1];
      panel(svg, x0, y0, (String) panels[p][0], series, ns, report);
    }
    svg.write(file);
  }

  private static void panel(
      Svg svg,
      int x0,
      int y0,
      String title,
      List<Series> series,
      List<Integer> ns,
      FanoutReport report) {
    double max = 0;
    List<double[][]> values = new ArrayList<>(); // per series: per N {median, min, max} or null
    for (Series s : series) {
      double[][] points = new double[ns.size()][];
      for (int i = 0; i < ns.size(); i++) {
        List<FanoutBench.Trial> cell = report.cell(s.arm, ns.get(i));
        if (cell.isEmpty()) {
          continue;
        }
        Report.Stat st = FanoutReport.stat(cell, FanoutReport.q(s.key, s.scale));
        if (!Double.isFinite(st.median)) {
          continue;
        }
        points[i] = new double[] {st.median, st.min, st.max};
        max = Math.max(max, st.max);
      }
      values.add(points);
    }
    double step = niceStep(max <= 0 ? 1 : max);
    double yMax = Math.max(step, Math.ceil(max * 1.05 / step) * step);
    svg.add(
        "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>\n", x0, y0 - 8, Svg.escape(title));
    for (double tick = 0; tick <= yMax + 1e-9; tick += step) {
      double y = y0 + PANEL_H - tick / yMax * PANEL_H;
      svg.add(
          "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n",
          x0, x0 + PANEL_W, y, y);
      svg.add(
          "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\""
              + " font-size=\"10\">%s</text>\n",
          x0 - 4, y + 3, label(tick));
    }
    svg.add(
        "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n",
        x0, x0 + PANEL_W, y0 + PANEL_H, y0 + PANEL_H);
    double lo = Math.log(ns.get(0));
    double hi = Math.log(ns.get(ns.size() - 1));
    double[] xs = new double[ns.size()];
    for (int i = 0; i < ns.size(); i++) {
      xs[i] =
          hi == lo
              ? x0 + PANEL_W / 2.0
              : x0 + 20 + (Math.log(ns.get(i)) - lo) / (hi - lo) * (PANEL_W - 40);
      svg.add(
          "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s</text>\n",
          xs[i], y0 + PANEL_H + 16, String.format(Locale.ROOT, "%,d", ns.get(i)));
    }
    int legendY = y0 + PANEL_H + 34;
    for (int s = 0; s < series.size(); s++) {
      Series se = series.get(s);
      double[][] points = values.get(s);
      String dash = se.dashed ? " stroke-dasharray=\"5,3\"" : "";
      StringBuilder path = new StringBuilder();
      for (int i = 0; i < points.length; i++) {
        if (points[i] == null) {
          continue;
        }
        double y = y0 + PANEL_H - points[i][0] / yMax * PANEL_H;
        path.append(path.length() == 0 ? "M" : " L").append(f("%.1f %.1f", xs[i], y));
        double ylo = y0 + PANEL_H - points[i][1] / yMax * PANEL_H;
        double yhi = y0 + PANEL_H - points[i][2] / yMax * PANEL_H;
        svg.add(
            "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
            xs[i], xs[i], ylo, yhi, se.color);
        svg.add(
            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s N=%d: %s"
                + " [%s–%s]</title></circle>\n",
            xs[i],
            y,
            se.color,
            Svg.escape(se.label),
            ns.get(i),
            label(points[i][0]),
            label(points[i][1]),
            label(points[i][2]));
      }
      if (path.length() > 0) {
        svg.add(
            "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>\n",
            path, se.color, dash);
      }
      if (series.size() > 2) {
        int ly = legendY + s * 14;
        svg.add(
            "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\""
                + " stroke-width=\"2\"%s/>",
            x0, x0 + 18, ly - 4, ly - 4, se.color, dash);
        svg.add(
            "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text>\n",
            x0 + 22, ly, Svg.escape(se.label));
      }
    }
  }

  private static double niceStep(double max) {
    double raw = max / 5;
    double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    double norm = raw / magnitude;
    double nice = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10;
    return nice * magnitude;
  }

  private static String label(double v) {
    if (v >= 100) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    return String.format(Locale.ROOT, v >= 10 ? "%.1f" : "%.2f", v);
  }

  private static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
