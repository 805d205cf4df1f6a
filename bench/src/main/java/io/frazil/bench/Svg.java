package io.frazil.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * A hand-written SVG chart ({@code ratios.svg}, {@code fanout.svg}): a white page with a title and
 * a subtitle, then whatever elements the chart adds, formatted in the root locale.
 */
final class Svg {
  private final StringBuilder svg = new StringBuilder();

  Svg(int width, int height, int left, String title, String subtitle) {
    add(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d"
            + " %d\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n",
        width, height, width, height);
    add("<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
    add(
        "<text x=\"%d\" y=\"24\" font-size=\"16\" font-weight=\"bold\">%s</text>\n",
        left, escape(title));
    add("<text x=\"%d\" y=\"42\" fill=\"#555\">%s</text>\n", left, escape(subtitle));
  }

  /** Appends {@code format} filled with {@code args}. */
  Svg add(String format, Object... args) {
    svg.append(String.format(Locale.ROOT, format, args));
    return this;
  }

  void write(Path file) throws IOException {
    Files.writeString(file, svg + "</svg>\n", StandardCharsets.UTF_8);
  }

  /** {@code text} safe inside an element. */
  static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
