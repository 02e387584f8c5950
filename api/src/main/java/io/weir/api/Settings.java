package io.weir.api;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code with:} mapping of a process step, with typed getters. The configuration hands scalars
 * over as strings ({@code threshold: 1000} arrives as {@code "1000"}); the getters parse them, and
 * accept numbers and booleans too, so a test can pass {@code Map.of("threshold", 1000)}. A value
 * that cannot be read as asked throws {@link IllegalArgumentException} naming the setting, the value
 * and what was expected: thrown from {@link Processor#open}, it stops the job with that message.
 */
public final class Settings {
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    private final Map<String, Object> values;

    private Settings(Map<String, ?> values) {
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /** Settings over a copy of {@code values}, in their order (null: none). */
    public static Settings of(Map<String, ?> values) {
        return new Settings(values == null ? Map.of() : values);
    }

    /** Every setting as given: scalars as strings, nested mappings as maps, sequences as lists. */
    public Map<String, Object> asMap() {
        return values;
    }

    /** The setting as text, or {@code fallback} when it is not set. */
    public String string(String name, String fallback) {
        Object v = values.get(name);
        if (v == null) {
            return fallback;
        }
        if (v instanceof String || v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        throw wrong(name, v, "text");
    }

    /** The setting as a whole number, or {@code fallback} when it is not set. */
    public long getLong(String name, long fallback) {
        Object v = values.get(name);
        if (v == null) {
            return fallback;
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v instanceof String s) {
            try {
                return Long.parseLong(s.trim());
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw wrong(name, v, "a whole number such as 1000");
    }

    /** The setting as a number, or {@code fallback} when it is not set. */
    public double getDouble(String name, double fallback) {
        Object v = values.get(name);
        if (v == null) {
            return fallback;
        }
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        if (v instanceof String s) {
            try {
                double d = Double.parseDouble(s.trim());
                if (Double.isFinite(d)) {
                    return d;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw wrong(name, v, "a number such as 0.5");
    }

    /** The setting as {@code true} or {@code false}, or {@code fallback} when it is not set. */
    public boolean getBoolean(String name, boolean fallback) {
        Object v = values.get(name);
        if (v == null) {
            return fallback;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        if (v instanceof String s) {
            if (s.trim().equalsIgnoreCase("true")) {
                return true;
            }
            if (s.trim().equalsIgnoreCase("false")) {
                return false;
            }
        }
        throw wrong(name, v, "true or false");
    }

    /**
     * The setting as a duration written with a unit: {@code 500ms}, {@code 10s}, {@code 5m},
     * {@code 1h} or {@code 2d}; or {@code fallback} when it is not set.
     */
    public Duration duration(String name, Duration fallback) {
        Object v = values.get(name);
        if (v == null) {
            return fallback;
        }
        if (v instanceof Duration d) {
            return d;
        }
        if (v instanceof String s) {
            Matcher m = DURATION.matcher(s.trim());
            if (m.matches()) {
                try {
                    long amount = Long.parseLong(m.group(1));
                    switch (m.group(2)) {
                        case "ms":
                            return Duration.ofMillis(amount);
                        case "s":
                            return Duration.ofSeconds(amount);
                        case "m":
                            return Duration.ofMinutes(amount);
                        case "h":
                            return Duration.ofHours(amount);
                        default:
                            return Duration.ofDays(amount);
                    }
                } catch (ArithmeticException | NumberFormatException e) {
                    // too large: reported below
                }
            }
        }
        throw wrong(name, v, "a duration with a unit: ms, s, m, h or d, such as 500ms, 10s or 5m");
    }

    private static IllegalArgumentException wrong(String name, Object value, String expected) {
        String seen = value instanceof String s ? "'" + s + "'" : describe(value);
        return new IllegalArgumentException("setting '" + name + "' is " + seen + ", expected " + expected);
    }

    private static String describe(Object value) {
        if (value instanceof Map) {
            return "a mapping " + value;
        }
        if (value instanceof java.util.List) {
            return "a list " + value;
        }
        return value.toString();
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
