package io.weir.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.cel.common.values.CelByteString;
import dev.cel.common.values.NullValue;
import io.weir.dataflow.BadRecordException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
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
 * {@link JsonEncoder} side by side with Jackson's generator in its default settings (how values
 * were written before it): the same bytes for every kind of value, every character (controls,
 * quotes, surrogates paired and alone, beyond ASCII) and numbers at their edges.
 */
class JsonEncoderProperties {

    @Property(tries = 2000)
    void writesWhatJacksonWrites(@ForAll("values") Object value) throws IOException {
        byte[] expected;
        try {
            expected = jackson(value);
        } catch (BadRecordException notFinite) {
            assertThrows(BadRecordException.class, () -> Json.encode(value));
            return;
        }
        assertArrayEquals(expected, Json.encode(value), () -> String.valueOf(value));
    }

    @Property(tries = 2000)
    void writesEveryCharacterAsJacksonDoes(@ForAll("texts") String text) throws IOException {
        assertArrayEquals(
                jackson(text),
                Json.encode(text),
                () -> text.chars().mapToObj(Integer::toHexString).toList().toString());
        Map<String, Object> named = new LinkedHashMap<>();
        named.put(text, 1L);
        assertArrayEquals(jackson(named), Json.encode(named), "as a field name");
    }

    @Test
    void namesKeptEncodedAreWrittenAsJacksonWritesThemHoweverManyShareTheTable() throws IOException {
        // More names than the encoder keeps, with escapes and non-ASCII among them, the same ones
        // again and again, as the same instances and as equal copies: every object as Jackson writes it.
        java.util.Random random = new java.util.Random(7);
        String[] names = new String[300];
        for (int i = 0; i < names.length; i++) {
            names[i] = switch (i % 5) {
                case 0 -> "field" + i;
                case 1 -> "qu\"ote" + i;
                case 2 -> "\u00e9t\u00e9" + i;
                case 3 -> "tab\t" + i;
                default -> "\ud83d\ude00" + i;
            };
        }
        for (int round = 0; round < 2_000; round++) {
            String[] picked = random.ints(0, round < 1_000 ? 12 : names.length)
                    .distinct()
                    .limit(4)
                    .mapToObj(i -> random.nextBoolean() ? names[i] : new String(names[i]))
                    .toArray(String[]::new);
            Fields fields = new Fields(picked, new Object[] {1L, "v", 2L, "w"});
            assertArrayEquals(jackson(fields), Json.encode(fields), () -> String.join(",", picked));
        }
    }

    @Test
    void writesNumbersAtTheirEdgesAsJacksonDoes() throws IOException {
        for (Object n : List.of(
                0L,
                -0L,
                1L,
                -1L,
                9L,
                10L,
                -10L,
                Long.MAX_VALUE,
                Long.MIN_VALUE,
                Long.MIN_VALUE + 1,
                123456789012345L,
                0,
                Integer.MIN_VALUE,
                Integer.MAX_VALUE,
                0.0,
                -0.0,
                1.0,
                100.0,
                1e20,
                1e-5,
                1e7,
                1e-3,
                1.0e300,
                Double.MIN_VALUE,
                Double.MAX_VALUE,
                0.1,
                1.5f,
                -3.25f,
                Float.MIN_VALUE,
                new BigInteger("123456789012345678901234567890"),
                new java.math.BigDecimal("1.50"))) {
            assertArrayEquals(jackson(n), Json.encode(n), String.valueOf(n));
        }
    }

    @Test
    void refusesWhatJsonCannotSay() {
        assertThrows(BadRecordException.class, () -> Json.encode(Double.NaN));
        assertThrows(BadRecordException.class, () -> Json.encode(List.of(1L, Double.POSITIVE_INFINITY)));
        assertThrows(BadRecordException.class, () -> Json.encode(Float.NEGATIVE_INFINITY));
        assertThrows(BadRecordException.class, () -> Json.encode(new Object()));
        Object deep = List.of();
        for (int i = 0; i < JsonEncoder.MAX_DEPTH; i++) {
            deep = List.of(deep);
        }
        Object tooDeep = deep;
        BadRecordException e = assertThrows(BadRecordException.class, () -> Json.encode(tooDeep));
        assertTrue(e.getMessage().contains("deeper than 1000"), e.getMessage());
        assertEquals(JsonEncoder.MAX_DEPTH, depth(Json.decode(Json.encode(((List<?>) tooDeep).get(0)))));
        // What failed half-way leaves nothing behind for the next value.
        assertEquals("[1]", new String(Json.encode(List.of(1L)), StandardCharsets.UTF_8));
    }

    @Test
    void writesAMapKeyByItsTextAndReentersSafely() throws IOException {
        Object key = new Object() {
            @Override
            public String toString() {
                return new String(Json.encode(Map.of("inner", 1L)), StandardCharsets.UTF_8);
            }
        };
        Map<Object, Object> map = new LinkedHashMap<>();
        map.put("a", 1L);
        map.put(key, List.of("x"));
        assertEquals("{\"a\":1,\"{\\\"inner\\\":1}\":[\"x\"]}", new String(Json.encode(map), StandardCharsets.UTF_8));
    }

    private static int depth(Object v) {
        return v instanceof List<?> l && !l.isEmpty() ? 1 + depth(l.get(0)) : 1;
    }

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(12),
                Arbitraries.strings()
                        .withCharRange('\u0000', '\u0090')
                        .withCharRange('\u07F0', '\u0810')
                        .withCharRange('\uD7F0', '\uE010')
                        .withCharRange('\uFFF0', '\uFFFF')
                        .ofMaxLength(12));
    }

    @Provide
    Arbitrary<Object> values() {
        Arbitrary<Object> scalar = Arbitraries.oneOf(
                Arbitraries.longs().map(v -> (Object) v),
                Arbitraries.integers().map(v -> (Object) v),
                Arbitraries.doubles().map(v -> (Object) v),
                Arbitraries.floats().map(v -> (Object) v),
                Arbitraries.bigIntegers().map(v -> (Object) v),
                Arbitraries.strings().ofMaxLength(20).map(v -> (Object) v),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(10).map(v -> (Object) v),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(10).map(v -> (Object) CelByteString.of(v)),
                Arbitraries.of(Boolean.TRUE, Boolean.FALSE).map(v -> (Object) v),
                Arbitraries.just(NullValue.NULL_VALUE),
                Arbitraries.just(null));
        return Arbitraries.recursive(
                () -> scalar,
                inner -> Arbitraries.oneOf(
                        inner.list().ofMaxSize(4).map(v -> (Object) v),
                        Arbitraries.maps(Arbitraries.strings().ofMaxLength(8), inner)
                                .ofMaxSize(Json.SMALL_OBJECT + 2)
                                .map(m -> (Object) new LinkedHashMap<>(m)),
                        Arbitraries.maps(Arbitraries.strings().ofMaxLength(8), inner)
                                .ofMaxSize(Json.SMALL_OBJECT)
                                .map(m -> (Object) new Fields(
                                        m.keySet().toArray(new String[0]),
                                        m.values().toArray()))),
                0,
                3);
    }

    // How Json wrote values before JsonEncoder: a Jackson generator, default settings.

    /** What a fresh Jackson generator writes for {@code value}; also JsonProperties' reference. */
    static byte[] jackson(Object value) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            write(g, value);
        }
        return out.toByteArray();
    }

    private static void write(JsonGenerator g, Object v) throws IOException {
        if (v == null || v instanceof NullValue) {
            g.writeNull();
        } else if (v instanceof String s) {
            g.writeString(s);
        } else if (v instanceof Long l) {
            g.writeNumber(l);
        } else if (v instanceof Integer i) {
            g.writeNumber(i);
        } else if (v instanceof Double d) {
            if (d.isNaN() || d.isInfinite()) {
                throw new BadRecordException("not finite");
            }
            g.writeNumber(d);
        } else if (v instanceof Float f) {
            if (f.isNaN() || f.isInfinite()) {
                throw new BadRecordException("not finite");
            }
            g.writeNumber(f);
        } else if (v instanceof Boolean b) {
            g.writeBoolean(b);
        } else if (v instanceof Map<?, ?> map) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                g.writeFieldName(String.valueOf(e.getKey()));
                write(g, e.getValue());
            }
            g.writeEndObject();
        } else if (v instanceof List<?> list) {
            g.writeStartArray();
            for (Object item : new ArrayList<>(list)) {
                write(g, item);
            }
            g.writeEndArray();
        } else if (v instanceof byte[] b) {
            g.writeString(Base64.getEncoder().encodeToString(b));
        } else if (v instanceof CelByteString b) {
            g.writeString(Base64.getEncoder().encodeToString(b.toByteArray()));
        } else if (v instanceof BigInteger b) {
            g.writeNumber(b);
        } else if (v instanceof Number n) {
            g.writeNumber(n.toString());
        } else {
            throw new BadRecordException("cannot write a " + v.getClass().getSimpleName());
        }
    }
}
