package io.weir.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and writes durations as written in configuration files: a whole number with a unit
 * ({@code 500ms}, {@code 1s}, {@code 5m}, {@code 1h}, {@code 2d}), optionally negative so that
 * validation can say "must be positive, was -5s", or ISO-8601 ({@code PT1S}). A bare number is
 * not a duration: its unit would be a guess. {@link #format} picks the largest exact unit, so
 * that parsing what it wrote gives the same duration back.
 */
final class DurationFormat {

    static final String EXPECTED = "a duration such as 500ms, 1s, 5m, 1h or PT1S";

    private static final Pattern SHORT = Pattern.compile("([-+]?)(\\d+)\\s*(ms|s|m|h|d)");
    private static final long MILLIS_PER_DAY = 86_400_000L;

    private DurationFormat() {}

    static Optional<Duration> parse(String text) {
        String trimmed = text.strip();
        Matcher matcher = SHORT.matcher(trimmed);
        try {
            if (matcher.matches()) {
                long amount = Long.parseLong(matcher.group(2));
                Duration duration =
                        switch (matcher.group(3)) {
                            case "ms" -> Duration.ofMillis(amount);
                            case "s" -> Duration.ofSeconds(amount);
                            case "m" -> Duration.ofMinutes(amount);
                            case "h" -> Duration.ofHours(amount);
                            default -> Duration.ofDays(amount);
                        };
                return Optional.of(matcher.group(1).equals("-") ? duration.negated() : duration);
            }
            if (trimmed.matches("[-+]?[pP].*")) {
                return Optional.of(Duration.parse(trimmed));
            }
        } catch (NumberFormatException | ArithmeticException | DateTimeParseException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    static String format(Duration duration) {
        if (duration.isZero()) {
            return "0s";
        }
        if (duration.isNegative()) {
            return duration.getSeconds() == Long.MIN_VALUE ? duration.toString() : "-" + format(duration.negated());
        }
        if (duration.getNano() % 1_000_000 != 0 || duration.getSeconds() >= Long.MAX_VALUE / 1000) {
            return duration.toString();
        }
        long millis = duration.toMillis();
        if (millis % MILLIS_PER_DAY == 0) {
            return millis / MILLIS_PER_DAY + "d";
        } else if (millis % 3_600_000 == 0) {
            return millis / 3_600_000 + "h";
        } else if (millis % 60_000 == 0) {
            return millis / 60_000 + "m";
        } else if (millis % 1000 == 0) {
            return millis / 1000 + "s";
        }
        return millis + "ms";
    }
}
