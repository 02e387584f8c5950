package io.weir.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The problems found so far while loading one configuration. Loading goes on after a problem so
 * that all of them are reported together; {@link #throwIfAny()} ends a stage that cannot go on
 * with errors, ordering them by file position and then keeping the overrides' order.
 */
final class ErrorList {

  private final List<ConfigError> errors = new ArrayList<>();
  private final Set<Origin> broken = new HashSet<>();

  void add(Origin at, String message) {
    if (!broken.contains(at)) {
      errors.add(at.error(message));
    }
  }

  /**
   * Reports a value that could not even be read, such as one naming an unset variable; later
   * errors at the same origin would only repeat it in other words, so they are dropped.
   */
  void addBroken(Origin at, String message) {
    errors.add(at.error(message));
    broken.add(at);
  }

  int size() {
    return errors.size();
  }

  boolean isEmpty() {
    return errors.isEmpty();
  }

  /** Whether errors were added since {@link #size()} returned {@code mark}. */
  boolean grewSince(int mark) {
    return errors.size() > mark;
  }

  void throwIfAny() throws ConfigException {
    if (errors.isEmpty()) {
      return;
    }
    List<ConfigError> sorted = new ArrayList<>(new LinkedHashSet<>(errors));
    sorted.sort(
        Comparator.comparing((ConfigError e) -> e.hasPosition() ? 0 : 1)
            .thenComparingInt(ConfigError::line)
            .thenComparingInt(ConfigError::column));
    throw new ConfigException(sorted);
  }
}
