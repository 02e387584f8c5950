package io.weir.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * One mapping of the configuration being bound, such as {@code processing.checkpoint}, with typed
 * reads of its keys. A read that finds a wrong value reports it at the value's position, naming
 * the key's full path, the value seen and what was expected, and returns the fallback so that
 * binding can go on and find further errors. Absent keys and YAML nulls give the fallback.
 * Only keys that {@link ConfigShape} lists for the section may be read.
 */
final class Section {

    private final String path;
    private final String shape;
    private final YamlNode.Mapping mapping;
    private final ErrorList errors;

    Section(String path, String shape, YamlNode.Mapping mapping, ErrorList errors) {
        this.path = path;
        this.shape = shape;
        this.mapping = mapping;
        this.errors = errors;
    }

    String path() {
        return path;
    }

    /** The full path of one of this section's keys, as messages name it. */
    String path(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    Origin origin() {
        return mapping.origin();
    }

    ErrorList errors() {
        return errors;
    }

    void error(Origin at, String message) {
        errors.add(at, message);
    }

    /** The value of {@code key}, empty when absent or null. */
    Optional<YamlNode> node(String key) {
        if (!ConfigShape.keys(shape).contains(key)) {
            throw new IllegalStateException(key + " is not a key of section '" + shape + "'");
        }
        return mapping.entry(key)
                .map(YamlNode.Entry::value)
                .filter(value -> !(value instanceof YamlNode.Scalar scalar && scalar.isNull()));
    }

    /** The scalar at {@code key} even when it is a YAML null; empty when absent or not a scalar. */
    Optional<YamlNode.Scalar> rawScalar(String key) {
        node(key);
        return mapping.entry(key)
                .map(YamlNode.Entry::value)
                .filter(YamlNode.Scalar.class::isInstance)
                .map(YamlNode.Scalar.class::cast);
    }

    /** The mapping at {@code key} as a section; empty (all defaults) when absent or not a mapping. */
    Section section(String key) {
        Optional<YamlNode> node = node(key);
        YamlNode.Mapping child = YamlNode.Mapping.empty(
                mapping.entry(key).map(e -> e.value().origin()).orElse(mapping.origin()));
        if (node.isPresent()) {
            if (node.get() instanceof YamlNode.Mapping given) {
                child = given;
            } else {
                error(
                        node.get().origin(),
                        path(key) + " must be a mapping, was " + node.get().describe());
            }
        }
        return new Section(path(key), shape.isEmpty() ? key : shape + "." + key, child, errors);
    }

    Optional<YamlNode.Scalar> scalar(String key) {
        Optional<YamlNode> node = node(key);
        if (node.isPresent() && !(node.get() instanceof YamlNode.Scalar)) {
            error(
                    node.get().origin(),
                    path(key) + " must be a single value, was " + node.get().describe());
            return Optional.empty();
        }
        return node.map(YamlNode.Scalar.class::cast);
    }

    String string(String key, String fallback) {
        return scalar(key).map(YamlNode.Scalar::text).orElse(fallback);
    }

    /** A string that is absent when missing, null or blank. */
    Optional<String> optionalString(String key) {
        return scalar(key).map(YamlNode.Scalar::text).filter(text -> !text.isBlank());
    }

    /** A string that must be given and not blank; reports it missing otherwise. */
    Optional<String> requiredString(String key, String what) {
        Optional<YamlNode> node = node(key);
        Optional<YamlNode.Scalar> scalar = scalar(key);
        if (node.isEmpty()) {
            error(originOf(key), path(key) + " is required: " + what);
        } else if (scalar.isPresent() && scalar.get().text().isBlank()) {
            error(scalar.get().origin(), path(key) + " must not be empty: " + what);
        }
        return scalar.map(YamlNode.Scalar::text).filter(text -> !text.isBlank());
    }

    /** The position of {@code key}'s value, or of this section when the key is absent. */
    Origin originOf(String key) {
        return mapping.entry(key).map(e -> e.value().origin()).orElse(origin());
    }

    /**
     * Keeps {@code value} if it matches {@code pattern} (and is at most {@code maxLength} long);
     * otherwise reports that {@code key} must be {@code expected} and returns empty.
     */
    Optional<String> matching(String key, Optional<String> value, Pattern pattern, int maxLength, String expected) {
        if (value.isPresent()
                && (!pattern.matcher(value.get()).matches() || value.get().length() > maxLength)) {
            error(originOf(key), path(key) + " must be " + expected + ", was " + value.get());
            return Optional.empty();
        }
        return value;
    }

    int integer(String key, int fallback, int min, int max) {
        Optional<YamlNode.Scalar> scalar = scalar(key);
        if (scalar.isEmpty()) {
            return fallback;
        }
        String text = scalar.get().text().strip();
        String range = max == Integer.MAX_VALUE ? "at least " + min : "between " + min + " and " + max;
        try {
            int value = Integer.parseInt(text);
            if (value >= min && value <= max) {
                return value;
            }
            error(scalar.get().origin(), path(key) + " must be " + range + ", was " + text);
        } catch (NumberFormatException e) {
            error(
                    scalar.get().origin(),
                    path(key) + " must be a whole number " + range + ", was "
                            + scalar.get().describe());
        }
        return fallback;
    }

    double decimal(String key, double fallback, double min, double max) {
        Optional<YamlNode.Scalar> scalar = scalar(key);
        if (scalar.isEmpty()) {
            return fallback;
        }
        String text = scalar.get().text().strip();
        String range = max == Double.MAX_VALUE ? "at least " + min : "between " + min + " and " + max;
        if (!text.matches("[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?")) {
            error(
                    scalar.get().origin(),
                    path(key) + " must be a number " + range + ", was "
                            + scalar.get().describe());
            return fallback;
        }
        double value = Double.parseDouble(text);
        if (value < min || value > max) {
            error(scalar.get().origin(), path(key) + " must be " + range + ", was " + text);
            return fallback;
        }
        return value;
    }

    /** A duration that must be positive, or at least zero when {@code zeroAllowed}. */
    Duration duration(String key, Duration fallback, boolean zeroAllowed) {
        Optional<YamlNode.Scalar> scalar = scalar(key);
        if (scalar.isEmpty()) {
            return fallback;
        }
        Optional<Duration> parsed = DurationFormat.parse(scalar.get().text());
        if (parsed.isEmpty()) {
            error(
                    scalar.get().origin(),
                    path(key) + " must be " + DurationFormat.EXPECTED + ", was "
                            + scalar.get().describe());
            return fallback;
        }
        Duration value = parsed.get();
        if (value.isNegative() || (value.isZero() && !zeroAllowed)) {
            error(
                    scalar.get().origin(),
                    path(key) + " must be " + (zeroAllowed ? "zero or positive" : "positive") + ", was "
                            + scalar.get().text().strip());
            return fallback;
        }
        return value;
    }

    /** A positive size in bytes. */
    long size(String key, long fallback) {
        Optional<YamlNode.Scalar> scalar = scalar(key);
        if (scalar.isEmpty()) {
            return fallback;
        }
        String text = scalar.get().text();
        Optional<Long> parsed = SizeFormat.parse(text);
        if (parsed.isEmpty()) {
            error(
                    scalar.get().origin(),
                    path(key) + " must be " + SizeFormat.EXPECTED + ", was "
                            + scalar.get().describe() + SizeFormat.decimalUnitAdvice(text));
            return fallback;
        }
        if (parsed.get() == 0) {
            error(scalar.get().origin(), path(key) + " must be positive, was " + text.strip());
            return fallback;
        }
        return parsed.get();
    }

    /** One of an enum's constants, written as {@link ConfigShape#nameOf} names them. */
    <E extends Enum<E>> E choice(String key, E fallback) {
        Optional<YamlNode.Scalar> scalar = scalar(key);
        if (scalar.isEmpty()) {
            return fallback;
        }
        String text = scalar.get().text().strip();
        E[] constants = fallback.getDeclaringClass().getEnumConstants();
        for (E constant : constants) {
            if (ConfigShape.nameOf(constant).equals(text)) {
                return constant;
            }
        }
        List<String> names = Arrays.stream(constants).map(ConfigShape::nameOf).toList();
        error(
                scalar.get().origin(),
                path(key) + " must be "
                        + (names.size() == 1 ? names.get(0) : "one of " + String.join(", ", names)) + ", was "
                        + scalar.get().describe() + Spelling.hint(text, names));
        return fallback;
    }

    /** A key and its string value in a mapping of strings, with their positions. */
    record StringEntry(String key, String value, Origin keyOrigin, Origin valueOrigin) {}

    /** A mapping from names to single values, which are kept as text. */
    List<StringEntry> stringEntries(String key) {
        Optional<YamlNode> node = node(key);
        if (node.isEmpty()) {
            return List.of();
        }
        if (!(node.get() instanceof YamlNode.Mapping map)) {
            error(
                    node.get().origin(),
                    path(key) + " must be a mapping of names to values, was "
                            + node.get().describe());
            return List.of();
        }
        List<StringEntry> entries = new ArrayList<>();
        for (YamlNode.Entry entry : map.entries()) {
            String where = path(key) + "." + entry.name();
            if (entry.value() instanceof YamlNode.Scalar scalar && !scalar.isNull()) {
                entries.add(
                        new StringEntry(entry.name(), scalar.text(), entry.key().origin(), scalar.origin()));
            } else {
                error(
                        entry.value().origin(),
                        where + " must be a single value, was " + entry.value().describe());
            }
        }
        return entries;
    }

    /** Reports every key of this section that {@link ConfigShape} does not list. */
    void rejectUnknownKeys() {
        List<String> known = ConfigShape.keys(shape);
        for (YamlNode.Entry entry : mapping.entries()) {
            if (!known.contains(entry.name())) {
                String hint = Spelling.closest(entry.name(), known)
                        .map(name -> ", did you mean " + path(name) + "?")
                        .orElse("; known keys" + (path.isEmpty() ? "" : " of " + path) + " are "
                                + String.join(", ", known));
                error(entry.key().origin(), "unknown key " + path(entry.name()) + hint);
            }
        }
    }

    /**
     * Builds this section's record unless reading it found errors since {@code mark}; a record
     * that still refuses its values is reported at the section instead of escaping as an exception.
     */
    <T> Optional<T> build(int mark, Supplier<T> constructor) {
        if (errors.grewSince(mark)) {
            return Optional.empty();
        }
        try {
            return Optional.of(constructor.get());
        } catch (IllegalArgumentException | NullPointerException e) {
            error(origin(), (path.isEmpty() ? "configuration" : path) + ": " + e.getMessage());
            return Optional.empty();
        }
    }
}
