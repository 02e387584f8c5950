package io.weir.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.cel.common.values.NullValue;
import io.weir.dataflow.BadRecordException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonDecoder} side by side with Jackson's parser in its default settings (how records were
 * read before it): on valid documents and on documents broken in random places, both accept with
 * the same value, in the same order, or both refuse. Then what the decoder does apart from Jackson:
 * malformed UTF-8 is refused.
 */
class JsonDecoderProperties {

    @Property(tries = 1000)
    void readsValidTextAsJacksonDoes(@ForAll("documents") String text) {
        sameAsJackson(text.getBytes(StandardCharsets.UTF_8));
    }

    @Property(tries = 3000)
    void acceptsAndRefusesBrokenTextAsJacksonDoes(@ForAll("broken") String text) {
        sameAsJackson(text.getBytes(StandardCharsets.UTF_8));
    }

    @Property(tries = 3000)
    void acceptsAndRefusesTokenSoupAsJacksonDoes(@ForAll("soup") String text) {
        sameAsJackson(text.getBytes(StandardCharsets.UTF_8));
    }

    @Property
    void readsIntegersAtAndBeyondTheEdgesOf64BitsAsJacksonDoes(
            @ForAll long value, @ForAll @IntRange(min = -20, max = 20) int offset) {
        java.math.BigInteger n = java.math.BigInteger.valueOf(value).add(java.math.BigInteger.valueOf(offset));
        sameAsJackson(("[" + n + "]").getBytes(StandardCharsets.UTF_8));
        sameAsJackson(n.toString().getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsTheEdgesAsJacksonDoes() {
        for (String text : List.of(
                "9223372036854775807",
                "-9223372036854775808",
                "9223372036854775808",
                "-9223372036854775809",
                "-0",
                "-0.0",
                "1e400",
                "1E-400",
                "0.1e+5",
                "01",
                "-",
                "1.",
                ".5",
                "+1",
                "NaN",
                "\uFEFF{\"a\":1}",
                "{\"a\":1}\uFEFF",
                "\"\\ud83d\\ude00 \\u00e9\\u0000\\/\"",
                "\"\\ud800\"",
                "\"\\u12\"",
                "\"\\x\"",
                "\"tab\there\"",
                "\"del\u007f\"",
                "{\"\u00e9t\u00e9\":\"\uD83D\uDE00\"}",
                "{\"a\\u0062\":1,\"ab\":2}",
                "{\"a\":1,}",
                "[1,]",
                "[,1]",
                "{,}",
                "{\"a\" 1}",
                "{\"a\":1 \"b\":2}",
                "truefalse",
                "nul",
                "[true false]",
                " \t\r\n[ 1 , 2 ] \n",
                "",
                "   ",
                "{\"a\":{}}",
                "{\"a\":[]}",
                "[[[[]]]]",
                "1 2",
                "{} {}",
                "/* c */ 1",
                "'a'",
                "{a:1}")) {
            sameAsJackson(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void nestsAsDeepAsJacksonAllowsAndNoDeeper() {
        for (int depth : new int[] {JsonDecoder.MAX_DEPTH - 1, JsonDecoder.MAX_DEPTH, JsonDecoder.MAX_DEPTH + 1}) {
            sameAsJackson(("[".repeat(depth) + "]".repeat(depth)).getBytes(StandardCharsets.UTF_8));
            sameAsJackson(("{\"a\":".repeat(depth) + "1" + "}".repeat(depth)).getBytes(StandardCharsets.UTF_8));
        }
        assertThrows(
                BadRecordException.class,
                () -> JsonDecoder.decode(("[".repeat(JsonDecoder.MAX_DEPTH + 1) + "]".repeat(JsonDecoder.MAX_DEPTH + 1))
                        .getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void refusesNumbersLongerThanJacksonAllowsAndNoShorterOnes() {
        String digits = "1." + "5".repeat(JsonDecoder.MAX_NUMBER_LENGTH);
        assertThrows(BadRecordException.class, () -> jackson(digits.getBytes(StandardCharsets.UTF_8)));
        assertThrows(BadRecordException.class, () -> JsonDecoder.decode(digits.getBytes(StandardCharsets.UTF_8)));
        // Jackson counts digits, not the sign, the point or the exponent's letter and sign.
        int max = JsonDecoder.MAX_NUMBER_LENGTH;
        for (String text : List.of(
                "0." + "0".repeat(max - 1),
                "0." + "0".repeat(max),
                "-1." + "0".repeat(max - 1),
                "-1." + "0".repeat(max - 3) + "e-1",
                "-1." + "0".repeat(max - 2) + "E+1",
                "[" + "1" + "0".repeat(max - 1) + "]")) {
            sameAsJackson(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    @Property(tries = 3000)
    void readsEveryWellFormedCharacterAsJacksonDoes(@ForAll @IntRange(min = 1, max = 0x10FFFF) int codePoint) {
        net.jqwik.api.Assume.that((codePoint < 0xD800 || codePoint > 0xDFFF) && codePoint != '"' && codePoint != '\\');
        String c = new String(Character.toChars(codePoint)); // control characters: refused by both
        sameAsJackson(("\"" + c + "x" + c + c + "\"").getBytes(StandardCharsets.UTF_8));
        sameAsJackson(("{\"" + c + "\":1}").getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void refusesMalformedUtf8() {
        byte[][] malformed = {
            {(byte) 0xC0, (byte) 0x80}, // overlong NUL
            {(byte) 0xC1, (byte) 0xBF}, // overlong
            {(byte) 0xE0, (byte) 0x80, (byte) 0x80}, // overlong
            {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, // an encoded surrogate
            {(byte) 0xF0, (byte) 0x80, (byte) 0x80, (byte) 0x80}, // overlong
            {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // beyond U+10FFFF
            {(byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80},
            {(byte) 0x80}, // a continuation byte alone
            {(byte) 0xC3}, // cut short by the closing quote
            {(byte) 0xE2, (byte) 0x82}, // cut short
            {(byte) 0xFF},
        };
        for (byte[] bad : malformed) {
            for (String around : List.of("\"%s\"", "{\"%s\":1}", "[\"a\",\"%s\"]")) {
                int at = around.indexOf('%');
                byte[] doc = new byte[around.length() - 2 + bad.length];
                byte[] pre = around.substring(0, at).getBytes(StandardCharsets.US_ASCII);
                byte[] post = around.substring(at + 2).getBytes(StandardCharsets.US_ASCII);
                System.arraycopy(pre, 0, doc, 0, pre.length);
                System.arraycopy(bad, 0, doc, pre.length, bad.length);
                System.arraycopy(post, 0, doc, pre.length + bad.length, post.length);
                BadRecordException e =
                        assertThrows(BadRecordException.class, () -> JsonDecoder.decode(doc), () -> hex(doc));
                assertTrue(e.getMessage().contains("UTF-8 "), e.getMessage());
                assertTrue(e.getMessage().endsWith("at offset " + pre.length), e.getMessage());
            }
        }
    }

    @Test
    void sharesRecurringFieldNames() {
        Fields first = (Fields) JsonDecoder.decode("{\"user\":\"a\",\"amount\":1}".getBytes(StandardCharsets.UTF_8));
        Fields second = (Fields) JsonDecoder.decode("{\"user\":\"b\",\"amount\":2}".getBytes(StandardCharsets.UTF_8));
        assertTrue(first.name(0) == second.name(0) && first.name(1) == second.name(1), "names are shared");
        assertEquals("b", second.get("user"));
        assertEquals(2L, second.get("amount"));
    }

    private static void sameAsJackson(byte[] bytes) {
        Object expected;
        try {
            expected = jackson(bytes);
        } catch (BadRecordException jacksonRefused) {
            try {
                Object read = JsonDecoder.decode(bytes);
                fail("Jackson refuses " + show(bytes) + " (" + jacksonRefused.getMessage() + ") but it was read as "
                        + read);
            } catch (BadRecordException refused) {
                assertTrue(refused.getMessage().startsWith("value "), refused.getMessage());
            }
            return;
        }
        Object read;
        try {
            read = JsonDecoder.decode(bytes);
        } catch (BadRecordException e) {
            throw new AssertionError("Jackson reads " + show(bytes) + " but it was refused: " + e.getMessage(), e);
        }
        assertEquals(expected, read, () -> show(bytes));
        assertEquals(kind(expected), kind(read), () -> show(bytes));
        byte[] written;
        try {
            written = Json.encode(expected);
        } catch (BadRecordException e) { // an infinity (1e400): neither can be written
            assertThrows(BadRecordException.class, () -> Json.encode(read), () -> show(bytes));
            return;
        }
        assertArrayEquals(written, Json.encode(read), () -> show(bytes)); // order too
    }

    private static String kind(Object v) {
        return v instanceof Map
                ? "object"
                : v instanceof List ? "array" : v.getClass().getName();
    }

    private static String show(byte[] bytes) {
        return "'" + new String(bytes, StandardCharsets.UTF_8) + "' [" + hex(bytes) + "]";
    }

    private static String hex(byte[] bytes) {
        StringBuilder s = new StringBuilder();
        for (byte b : bytes) {
            s.append(String.format("%02x", b));
        }
        return s.toString();
    }

    @Provide
    Arbitrary<String> documents() {
        return Arbitraries.recursive(this::scalarText, this::containerText, 0, 2);
    }

    @Provide
    Arbitrary<String> broken() {
        Arbitrary<Character> noise = Arbitraries.of(
                '{', '}', '[', ']', ',', ':', '"', '\\', '/', '-', '+', '.', 'e', 'E', '0', '1', '9', 't', 'n', 'u',
                'a', ' ', '\n', '\u0001', '\u00e9', '\u20ac');
        return Combinators.combine(
                        documents(),
                        Arbitraries.integers().between(0, 1000),
                        noise,
                        Arbitraries.integers().between(0, 2))
                .as((doc, where, c, how) -> {
                    if (doc.isEmpty()) {
                        return String.valueOf(c);
                    }
                    int at = where % doc.length();
                    return switch (how) {
                        case 0 -> doc.substring(0, at) + doc.substring(at + 1); // a character dropped
                        case 1 -> doc.substring(0, at) + c + doc.substring(at); // one added
                        default -> doc.substring(0, at) + c + doc.substring(at + 1); // one replaced
                    };
                });
    }

    @Provide
    Arbitrary<String> soup() {
        return Arbitraries.strings()
                .withChars("{}[],:\"\\/-+.eE019tnrufalsx \n\t\u0001\u00e9")
                .ofMinLength(0)
                .ofMaxLength(16);
    }

    private Arbitrary<String> scalarText() {
        return Arbitraries.oneOf(
                Arbitraries.longs().map(String::valueOf),
                Arbitraries.doubles().map(String::valueOf),
                Arbitraries.of(
                        "0",
                        "-0",
                        "1e5",
                        "1E+2",
                        "-2.5e-3",
                        "123456789012345678901234",
                        "0.0",
                        "true",
                        "false",
                        "null"),
                Arbitraries.strings()
                        .withChars("ab\u00e9\u20ac\"\\\n/ \t")
                        .withCharRange('\uD83D', '\uD83D')
                        .ofMaxLength(8)
                        .map(JsonDecoderProperties::quoted),
                Arbitraries.of("\"\\u0041\\n\\t\\\"\\\\\\/\\b\\f\\r\"", "\"\\ud83d\\ude00\"", "\"a\\u00E9b\""));
    }

    private Arbitrary<String> containerText(Arbitrary<String> inner) {
        Arbitrary<String> space = Arbitraries.of("", "", " ", "\n ", "\t", "\r\n");
        Arbitrary<String> name = Arbitraries.of(
                        "a", "b", "user", "amount", "\u00e9", "a\\u0062", "ab", "", "c", "d", "e", "f", "g", "h", "i")
                .map(n -> "\"" + n + "\"");
        Arbitrary<String> array = Combinators.combine(inner.list().ofMaxSize(4), space)
                .as((items, s) -> "[" + s + String.join(s + "," + s, items) + s + "]");
        Arbitrary<String> object = Combinators.combine(
                        Combinators.combine(name, inner)
                                .as((n, v) -> n + ":" + v)
                                .list()
                                .ofMaxSize(11),
                        space)
                .as((fields, s) -> "{" + s + String.join("," + s, fields) + s + "}");
        return Arbitraries.oneOf(array, object);
    }

    private static String quoted(String raw) {
        StringBuilder s = new StringBuilder("\"");
        for (char c : raw.toCharArray()) {
            switch (c) {
                case '"' -> s.append("\\\"");
                case '\\' -> s.append("\\\\");
                case '\n' -> s.append("\\n");
                case '\t' -> s.append("\\t");
                default -> s.append(c);
            }
        }
        return s.append('"').toString();
    }

    // How Json read records before JsonDecoder: Jackson's streaming parser, default settings.

    private static final JsonFactory FACTORY = new JsonFactory();

    private static Object jackson(byte[] bytes) {
        try (JsonParser p = FACTORY.createParser(bytes)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new BadRecordException("empty");
            }
            Object value = read(p, first);
            JsonToken trailing;
            try {
                trailing = p.nextToken();
            } catch (IOException e) {
                trailing = JsonToken.NOT_AVAILABLE;
            }
            if (trailing != null) {
                throw new BadRecordException("trailing text");
            }
            return value;
        } catch (IOException e) {
            throw new BadRecordException(e.getMessage(), e);
        }
    }

    private static Object read(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case START_OBJECT: {
                Map<String, Object> map = new LinkedHashMap<>();
                for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
                    if (map.containsKey(name)) {
                        throw new BadRecordException("Duplicate field '" + name + "'");
                    }
                    map.put(name, read(p, p.nextToken()));
                }
                return map;
            }
            case START_ARRAY: {
                List<Object> list = new ArrayList<>();
                for (JsonToken next = p.nextToken(); next != JsonToken.END_ARRAY; next = p.nextToken()) {
                    list.add(read(p, next));
                }
                return list;
            }
            case VALUE_STRING:
                return p.getText();
            case VALUE_NUMBER_INT:
                if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
                    throw new BadRecordException("beyond 64 bits");
                }
                return p.getLongValue();
            case VALUE_NUMBER_FLOAT:
                return p.getDoubleValue();
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return NullValue.NULL_VALUE;
            default:
                throw new BadRecordException("unexpected " + t);
        }
    }
}
