package io.weir.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class FormatRoundTripTest {

    private static final int CASES = 20_000;

    @ParameterizedTest
    @CsvSource({
        "500ms, PT0.5S", "1s, PT1S", "5m, PT5M", "1h, PT1H", "2d, PT48H", "' 30s ', PT30S",
        "0s, PT0S", "-5s, PT-5S", "PT1S, PT1S", "pt1m30s, PT1M30S", "-PT2S, PT-2S", "1 s, PT1S"
    })
    void durationsAreReadInBothNotations(String text, String iso) {
        assertEquals(Optional.of(Duration.parse(iso)), DurationFormat.parse(text));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"5", "1.5s", "s", "5 mins", "5M", "PT", "1w", "", "99999999999999999999s", "9223372036854775807d"
            })
    void whatIsNotADurationIsRefused(String text) {
        assertEquals(Optional.empty(), DurationFormat.parse(text));
    }

    @ParameterizedTest
    @CsvSource({
        "0, 0",
        "512, 512",
        "512B, 512",
        "1KiB, 1024",
        "64MiB, 67108864",
        "'64 MiB', 67108864",
        "1GiB, 1073741824",
        "2TiB, 2199023255552"
    })
    void sizesAreReadAsBytesOrBinaryUnits(String text, long bytes) {
        assertEquals(Optional.of(bytes), SizeFormat.parse(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"64MB", "1KB", "1k", "1.5GiB", "-1", "MiB", "", "9999999999TiB", "99999999999999999999"})
    void whatIsNotASizeIsRefused(String text) {
        assertEquals(Optional.empty(), SizeFormat.parse(text));
    }

    @Test
    void formattingPicksTheLargestExactUnit() {
        assertEquals("500ms", DurationFormat.format(Duration.ofMillis(500)));
        assertEquals("90s", DurationFormat.format(Duration.ofSeconds(90)));
        assertEquals("1h", DurationFormat.format(Duration.ofMinutes(60)));
        assertEquals("-5s", DurationFormat.format(Duration.ofSeconds(-5)));
        assertEquals("PT0.000001S", DurationFormat.format(Duration.ofNanos(1000)));
        assertEquals("64MiB", SizeFormat.format(64L << 20));
        assertEquals("1536KiB", SizeFormat.format(1536L << 10));
        assertEquals("1000", SizeFormat.format(1000));
    }

    @Test
    void anyDurationSurvivesFormattingAndParsing() {
        Random random = new Random(20_240_601L);
        for (int i = 0; i < CASES; i++) {
            Duration duration =
                    switch (i % 4) {
                        case 0 -> Duration.ofMillis(random.nextLong() % 1_000_000_000_000L);
                        case 1 ->
                            Duration.ofSeconds(random.nextInt(100_000))
                                    .multipliedBy(new long[] {1, 60, 3600, 86_400}[random.nextInt(4)]);
                        case 2 ->
                            Duration.ofSeconds(random.nextLong() % 1_000_000_000_000L, random.nextInt(1_000_000_000));
                        default -> Duration.ofNanos(random.nextLong());
                    };
            assertEquals(
                    Optional.of(duration),
                    DurationFormat.parse(DurationFormat.format(duration)),
                    () -> "formatted as " + DurationFormat.format(duration));
        }
    }

    @Test
    void anySizeSurvivesFormattingAndParsing() {
        Random random = new Random(20_240_602L);
        for (int i = 0; i < CASES; i++) {
            long bytes = i % 2 == 0
                    ? random.nextLong() & Long.MAX_VALUE
                    : (long) random.nextInt(1 << 20) << (10 * random.nextInt(5));
            assertEquals(
                    Optional.of(bytes),
                    SizeFormat.parse(SizeFormat.format(bytes)),
                    () -> "formatted as " + SizeFormat.format(bytes));
        }
    }
}
