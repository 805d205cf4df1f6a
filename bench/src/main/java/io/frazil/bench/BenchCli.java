package io.frazil.bench;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;

/**
 * The bench programs' command line (picocli): one {@code main} for all of them, and the value
 * checks their flags share. Every {@code @Command} here has {@code --help} and {@code --version}.
 */
final class BenchCli {
  private BenchCli() {}

  /**
   * Parses {@code args} into {@code command}'s options and calls it. Exits 2 on bad flags (with
   * picocli's message and the usage), 0 after {@code --help}, else with the status the command
   * returns; a throwable is printed as "BENCH FAILED" and exits 1.
   */
  static void main(String[] args, Callable<Integer> command) {
    CommandLine cli = new CommandLine(command);
    cli.setExecutionExceptionHandler(
        (e, line, parsed) -> {
          System.err.println();
          System.err.println("BENCH FAILED: " + e);
          e.printStackTrace();
          return 1;
        });
    System.exit(cli.execute(tokens(args)));
  }

  /**
   * Every whitespace-separated token of every argument: flags may also come as one argument
   * (Maven's {@code -Dbench.args}, or a script that quotes them together).
   */
  static String[] tokens(String[] args) {
    List<String> tokens = new ArrayList<>();
    for (String arg : args) {
      for (String token : arg.trim().split("\\s+")) {
        if (!token.isEmpty()) {
          tokens.add(token);
        }
      }
    }
    return tokens.toArray(new String[0]);
  }

  /** Whether {@code option} was on the command line: {@code --smoke} changes only the others. */
  static boolean given(CommandSpec spec, String option) {
    return spec.commandLine().getParseResult().hasMatchedOption(option);
  }

  /** The arguments as given, for results.md and RUN-INFO.md. */
  static List<String> args(CommandSpec spec) {
    return List.copyOf(spec.commandLine().getParseResult().originalArgs());
  }

  /** "--a 1 --b" or "(none)". */
  static String joinArgs(List<String> args) {
    return args.isEmpty() ? "(none)" : String.join(" ", args);
  }

  /** {@code values}, each one of {@code allowed}; else a usage error naming {@code option}. */
  static List<String> oneOf(
      CommandSpec spec, String option, List<String> values, List<String> allowed) {
    for (String value : values) {
      if (!allowed.contains(value)) {
        throw new ParameterException(
            spec.commandLine(), option + ": unknown " + value + ", expected " + allowed);
      }
    }
    return List.copyOf(values);
  }

  /** An int; "2_000_000" and "2,000,000" are accepted (lists split on commas before this). */
  static int integer(String text) {
    try {
      return Integer.parseInt(text.replace("_", "").replace(",", ""));
    } catch (NumberFormatException e) {
      throw new TypeConversionException("'" + text + "' is not an integer");
    }
  }

  /** An int > 0. */
  static final class Positive implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String text) {
      int value = integer(text);
      if (value <= 0) {
        throw new TypeConversionException("must be positive, got " + text);
      }
      return value;
    }
  }

  /** An int >= 0. */
  static final class NonNegative implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String text) {
      int value = integer(text);
      if (value < 0) {
        throw new TypeConversionException("must be >= 0, got " + text);
      }
      return value;
    }
  }

  /** A path made absolute and normalized, so what results.md records does not depend on cwd. */
  static final class AbsolutePath implements ITypeConverter<Path> {
    @Override
    public Path convert(String text) {
      return Paths.get(text).toAbsolutePath().normalize();
    }
  }

  /** A JVM heap size: digits with an optional k/m/g suffix, lower-cased. */
  static class HeapSize implements ITypeConverter<String> {
    @Override
    public String convert(String text) {
      if (!text.matches("[0-9]+[kKmMgG]?")) {
        throw new TypeConversionException("not a heap size: " + text);
      }
      return text.toLowerCase(Locale.ROOT);
    }
  }

  /** {@code --version}: the commit the bench runs from. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      Path repo = RunFacts.repoRoot();
      return new String[] {"Frazil bench at commit " + RunFacts.git(repo, "rev-parse", "HEAD")};
    }
  }
}
