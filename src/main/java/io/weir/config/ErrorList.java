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
 * with errors, ordering them by source (the file, then each override in the order given) and
 * then by position.
 */
final class ErrorList {

    private final List<ConfigError> errors = new ArrayList<>();
    private final Set<Origin> broken = new HashSet<>();
    private final List<String> sources;
    private int reported;

    ErrorList() {
        this(List.of());
    }

    /** An error list ordering errors by {@code sources} (file names), then by position. */
    ErrorList(List<String> sources) {
        this.sources = List.copyOf(sources);
    }

    void add(Origin at, String message) {
        reported++;
        if (!broken.contains(at)) {
            errors.add(at.error(message));
        }
    }

    /**
     * Reports a value that could not even be read, such as one naming an unset variable; later
     * errors at the same origin would only repeat it in other words, so they are dropped.
     */
    void addBroken(Origin at, String message) {
        reported++;
        errors.add(at.error(message));
        broken.add(at);
    }

    /** How many errors were reported, counting those dropped as repeating a broken value. */
    int size() {
        return reported;
    }

    boolean isEmpty() {
        return reported == 0;
    }

    /** Whether errors were reported since {@link #size()} returned {@code mark}. */
    boolean grewSince(int mark) {
        return reported > mark;
    }

    void throwIfAny() throws ConfigException {
        if (!errors.isEmpty()) {
            throw toException();
        }
    }

    /** The errors reported so far as an exception; there must be at least one. */
    ConfigException toException() {
        List<ConfigError> sorted = new ArrayList<>(new LinkedHashSet<>(errors));
        sorted.sort(Comparator.comparingInt((ConfigError e) -> rank(e.file()))
                .thenComparing((ConfigError e) -> e.hasPosition() ? 0 : 1)
                .thenComparingInt(ConfigError::line)
                .thenComparingInt(ConfigError::column));
        return new ConfigException(sorted);
    }

    private int rank(String file) {
        int index = sources.indexOf(file);
        return index < 0 ? sources.size() : index;
    }
}
