package io.weir.config;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and writes byte sizes as written in configuration files: a whole number of bytes
 * ({@code 1048576}, or {@code 512B}) or of binary units ({@code 64KiB}, {@code 32MiB},
 * {@code 1GiB}, {@code 1TiB}; 1 KiB = 1024 bytes). Decimal-looking units such as {@code MB} are
 * refused rather than guessed at. {@link #format} picks the largest exact unit, so that parsing
 * what it wrote gives the same size back.
 */
final class SizeFormat {

    static final String EXPECTED = "a size such as 64MiB, 512KiB, 1GiB or a number of bytes";

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KiB|MiB|GiB|TiB)?");
    private static final Pattern DECIMAL = Pattern.compile("\\d+\\s*[kKmMgGtT][bB]?");
    private static final String[] UNITS = {"TiB", "GiB", "MiB", "KiB"};
    private static final int[] SHIFTS = {40, 30, 20, 10};

    private SizeFormat() {}

    static Optional<Long> parse(String text) {
        Matcher matcher = SIZE.matcher(text.strip());
        if (!matcher.matches()) {
            return Optional.empty();
        }
        try {
            long amount = Long.parseLong(matcher.group(1));
            String unit = matcher.group(2) == null ? "B" : matcher.group(2);
            int shift =
                    switch (unit) {
                        case "KiB" -> 10;
                        case "MiB" -> 20;
                        case "GiB" -> 30;
                        case "TiB" -> 40;
                        default -> 0;
                    };
            if (shift > 0 && amount > (Long.MAX_VALUE >> shift)) {
                return Optional.empty();
            }
            return Optional.of(amount << shift);
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Extra advice for a size that looks like it uses decimal units, or an empty string. */
    static String decimalUnitAdvice(String text) {
        return DECIMAL.matcher(text.strip()).matches()
                ? " (write binary units with iB: KiB, MiB, GiB; 1 KiB = 1024 bytes)"
                : "";
    }

    static String format(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("a size cannot be negative, was " + bytes);
        }
        for (int i = 0; i < UNITS.length; i++) {
            long unit = 1L << SHIFTS[i];
            if (bytes != 0 && bytes % unit == 0) {
                return bytes / unit + UNITS[i];
            }
        }
        return Long.toString(bytes);
    }
}
