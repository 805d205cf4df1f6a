package io.frazil.nexmark;

import java.util.SplittableRandom;

/**
 * The strings of Nexmark events as the specification draws them: short lowercase words with
 * occasional separators, exact-length padding ({@code extra}) that brings an event to the average
 * size of its kind, and the fixed name, city and state lists.
 */
final class NexmarkText {
  private NexmarkText() {}

  static final String[] FIRST_NAMES = {
    "Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"
  };
  static final String[] LAST_NAMES = {
    "Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"
  };
  static final String[] US_STATES = {"AZ", "CA", "ID", "OR", "WA", "WY"};
  static final String[] US_CITIES = {
    "Phoenix",
    "Los Angeles",
    "San Francisco",
    "Boise",
    "Portland",
    "Bend",
    "Redmond",
    "Seattle",
    "Kent",
    "Cheyenne"
  };

  private static final int MIN_STRING_LENGTH = 3;

  /** 3 to {@code maxLength - 1} lowercase letters, about one in 13 replaced by {@code special}. */
  static String string(SplittableRandom random, int maxLength, char special) {
    int length = MIN_STRING_LENGTH + random.nextInt(maxLength - MIN_STRING_LENGTH);
    StringBuilder text = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      text.append(random.nextInt(13) == 0 ? special : (char) ('a' + random.nextInt(26)));
    }
    return text.toString().trim();
  }

  static String string(SplittableRandom random, int maxLength) {
    return string(random, maxLength, ' ');
  }

  /** Exactly {@code length} lowercase letters. */
  static String exact(SplittableRandom random, int length) {
    StringBuilder text = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      text.append((char) ('a' + random.nextInt(26)));
    }
    return text.toString();
  }

  /**
   * Padding that brings an event of {@code currentSize} bytes to {@code averageSize} on average
   * (±20%); empty when the event is already larger.
   */
  static String extra(SplittableRandom random, int currentSize, int averageSize) {
    if (currentSize > averageSize) {
      return "";
    }
    int desired = averageSize - currentSize;
    int delta = (int) Math.round(desired * 0.2);
    int size = desired - delta + (delta == 0 ? 0 : random.nextInt(2 * delta));
    return exact(random, size);
  }

  /**
   * An item page of the auction site, {@code https://www.nexmark.com/<a>/<b>/<c>/item.htm?query=1}.
   */
  static String url(SplittableRandom random) {
    return "https://www.nexmark.com/"
        + string(random, 5, '_')
        + '/'
        + string(random, 5, '_')
        + '/'
        + string(random, 5, '_')
        + "/item.htm?query=1";
  }

  /** Four groups of four digits. */
  static String creditCard(SplittableRandom random) {
    StringBuilder card = new StringBuilder(19);
    for (int group = 0; group < 4; group++) {
      if (group > 0) {
        card.append(' ');
      }
      int digits = random.nextInt(10_000);
      card.append((char) ('0' + digits / 1000))
          .append((char) ('0' + digits / 100 % 10))
          .append((char) ('0' + digits / 10 % 10))
          .append((char) ('0' + digits % 10));
    }
    return card.toString();
  }

  static <T> T pick(SplittableRandom random, T[] values) {
    return values[random.nextInt(values.length)];
  }
}
