package io.weir.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cel.common.values.NullValue;
import io.weir.dataflow.BadRecordException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The value model's JSON: what {@link Json#encode} writes on its reused generator is byte for byte
 * what a fresh Jackson generator writes, decodes back to the same value, and a value that fails
 * half-way leaves nothing behind for the next one.
 */
class JsonProperties {

    @Property
    void encodingIsAFreshGeneratorsAndRoundTrips(@ForAll("values") Object value) throws IOException {
        byte[] bytes = Json.encode(value);
        assertArrayEquals(fresh(value), bytes, () -> new String(bytes, StandardCharsets.UTF_8));
        assertEquals(value, Json.decode(bytes));
        // Map equality ignores order; the bytes written again from what was read do not.
        assertArrayEquals(bytes, Json.encode(Json.decode(bytes)), () -> new String(bytes, StandardCharsets.UTF_8));
    }

    @Property
    void aRepeatedFieldNameIsRefusedWhereverItIs(
            @ForAll @net.jqwik.api.constraints.IntRange(min = 2, max = 12) int fields,
            @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = 11) int first,
            @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = 11) int second) {
        net.jqwik.api.Assume.that(first < second && second < fields);
        StringBuilder json = new StringBuilder("{");
        for (int i = 0; i < fields; i++) {
            json.append(i == 0 ? "" : ",")
                    .append("\"f")
                    .append(i == second ? first : i)
                    .append("\":")
                    .append(i);
        }
        String text = json.append("}").toString();
        BadRecordException e =
                assertThrows(BadRecordException.class, () -> Json.decode(text.getBytes(StandardCharsets.UTF_8)), text);
        assertTrue(e.getMessage().contains("Duplicate field 'f" + first + "'"), e.getMessage());
    }

    @Test
    void aValueThatFailsHalfWayDoesNotSpillIntoTheNext() {
        Map<String, Object> bad = new LinkedHashMap<>();
        bad.put("a", 1L);
        bad.put("nested", List.of("x", Double.NaN));
        assertThrows(BadRecordException.class, () -> Json.encode(bad));
        assertEquals("{\"b\":2}", new String(Json.encode(Map.of("b", 2L)), StandardCharsets.UTF_8));
        assertEquals("7", new String(Json.encode(7L), StandardCharsets.UTF_8));
        assertEquals("\"s\"", new String(Json.encode("s"), StandardCharsets.UTF_8));
    }

    @Provide
    Arbitrary<Object> values() {
        Arbitrary<Object> scalar = Arbitraries.oneOf(
                Arbitraries.longs().map(v -> (Object) v),
                Arbitraries.doubles().map(v -> (Object) v),
                Arbitraries.strings().ofMaxLength(30).map(v -> (Object) v),
                Arbitraries.of(Boolean.TRUE, Boolean.FALSE).map(v -> (Object) v),
                Arbitraries.just(NullValue.NULL_VALUE));
        Arbitrary<Object> list = scalar.list().ofMaxSize(4).map(v -> (Object) v);
        // Objects up to and beyond Json.SMALL_OBJECT fields (two arrays, then a LinkedHashMap), nested.
        Arbitrary<Object> inner = Arbitraries.maps(Arbitraries.strings().ofMaxLength(8), scalar)
                .ofMaxSize(Json.SMALL_OBJECT + 3)
                .map(m -> (Object) new LinkedHashMap<>(m));
        Arbitrary<Object> map = Arbitraries.maps(
                        Arbitraries.strings().ofMaxLength(8), Arbitraries.oneOf(scalar, list, inner))
                .ofMaxSize(Json.SMALL_OBJECT + 3)
                .map(m -> (Object) new LinkedHashMap<>(m));
        return Arbitraries.oneOf(scalar, list, map);
    }

    private static byte[] fresh(Object value) throws IOException {
        return JsonEncoderProperties.jackson(value);
    }
}
