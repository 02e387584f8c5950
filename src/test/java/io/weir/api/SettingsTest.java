package io.weir.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingsTest {
    // As the configuration hands them over: scalars as text.
    private static final Settings WITH = Settings.of(Map.of(
            "threshold", "1000",
            "ratio", "0.25",
            "strict", "TRUE",
            "window", "5m",
            "name", "orders",
            "nested", Map.of("a", "1"),
            "list", List.of("x")));

    @Test
    void scalarsGivenAsTextAreParsed() {
        assertEquals(1000, WITH.getLong("threshold", 0));
        assertEquals(0.25, WITH.getDouble("ratio", 0));
        assertEquals(1000.0, WITH.getDouble("threshold", 0));
        assertTrue(WITH.getBoolean("strict", false));
        assertEquals(Duration.ofMinutes(5), WITH.duration("window", Duration.ZERO));
        assertEquals("orders", WITH.string("name", null));
        assertEquals("1000", WITH.string("threshold", null));
    }

    @Test
    void anAbsentSettingIsTheFallback() {
        assertEquals(7, WITH.getLong("absent", 7));
        assertEquals(1.5, WITH.getDouble("absent", 1.5));
        assertFalse(WITH.getBoolean("absent", false));
        assertEquals(Duration.ofSeconds(1), WITH.duration("absent", Duration.ofSeconds(1)));
        assertEquals("x", WITH.string("absent", "x"));
    }

    @Test
    void everyDurationUnitIsRead() {
        Settings s = Settings.of(Map.of("a", "500ms", "b", "10s", "c", "5m", "d", "1h", "e", "2d"));

        assertEquals(Duration.ofMillis(500), s.duration("a", null));
        assertEquals(Duration.ofSeconds(10), s.duration("b", null));
        assertEquals(Duration.ofMinutes(5), s.duration("c", null));
        assertEquals(Duration.ofHours(1), s.duration("d", null));
        assertEquals(Duration.ofDays(2), s.duration("e", null));
    }

    @Test
    void numbersAndBooleansFromATestAreAcceptedToo() {
        Settings s = Settings.of(Map.of("n", 12, "d", 0.5f, "b", true));

        assertEquals(12, s.getLong("n", 0));
        assertEquals(0.5, s.getDouble("d", 0));
        assertTrue(s.getBoolean("b", false));
        assertEquals("12", s.string("n", null));
    }

    @Test
    void aWrongValueNamesTheSettingTheValueAndWhatWasExpected() {
        assertEquals(
                "setting 'name' is 'orders', expected a whole number such as 1000",
                assertThrows(IllegalArgumentException.class, () -> WITH.getLong("name", 0))
                        .getMessage());
        assertEquals(
                "setting 'ratio' is '0.25', expected a whole number such as 1000",
                assertThrows(IllegalArgumentException.class, () -> WITH.getLong("ratio", 0))
                        .getMessage());
        assertEquals(
                "setting 'name' is 'orders', expected true or false",
                assertThrows(IllegalArgumentException.class, () -> WITH.getBoolean("name", false))
                        .getMessage());
        assertEquals(
                "setting 'threshold' is '1000', expected a duration with a unit: ms, s, m, h or d, such as 500ms, 10s or 5m",
                assertThrows(IllegalArgumentException.class, () -> WITH.duration("threshold", null))
                        .getMessage());
        assertEquals(
                "setting 'nested' is a mapping {a=1}, expected a number such as 0.5",
                assertThrows(IllegalArgumentException.class, () -> WITH.getDouble("nested", 0))
                        .getMessage());
        assertEquals(
                "setting 'list' is a list [x], expected text",
                assertThrows(IllegalArgumentException.class, () -> WITH.string("list", null))
                        .getMessage());
    }

    @Test
    void theMappingKeepsItsOrderAndCannotBeChanged() {
        Map<String, Object> with = new LinkedHashMap<>();
        with.put("b", "1");
        with.put("a", "2");
        Settings s = Settings.of(with);
        with.put("c", "3");

        assertEquals(List.of("b", "a"), List.copyOf(s.asMap().keySet()));
        assertThrows(UnsupportedOperationException.class, () -> s.asMap().put("x", "y"));
        assertEquals(Map.of(), Settings.of(null).asMap());
    }
}
