package io.weir.expr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.primitives.UnsignedLong;
import dev.cel.common.values.NullValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ExpressionTest {

    /** A record for tests; counts how often the headers are asked for. */
    private static final class Rec implements Variables {
        final Object value;
        final Object key;
        final AtomicInteger headerReads = new AtomicInteger();

        Rec(Object value, Object key) {
            this.value = value;
            this.key = key;
        }

        @Override
        public Object value() {
            return value;
        }

        @Override
        public Object key() {
            return key;
        }

        @Override
        public Map<String, String> headers() {
            headerReads.incrementAndGet();
            return Map.of("source", "web");
        }

        @Override
        public long timestamp() {
            return 1_700_000_000_000L;
        }

        @Override
        public String topic() {
            return "orders";
        }

        @Override
        public long partition() {
            return 3;
        }

        @Override
        public long offset() {
            return 42;
        }
    }

    private static Map<String, Object> order() {
        Map<String, Object> order = new LinkedHashMap<>();
        order.put("user", "ann");
        order.put("amount", 23L);
        order.put("price", 2.5);
        order.put("note", NullValue.NULL_VALUE);
        order.put("tags", new ArrayList<>(List.of("a", "b")));
        return order;
    }

    private static Object eval(String text) throws Exception {
        return Expression.compile(text, ExpressionTypes.DYN).evaluate(new Rec(order(), "ann"));
    }

    private static ExpressionError.Issue compileError(String text, ExpressionTypes types) {
        ExpressionError error = assertThrows(ExpressionError.class, () -> Expression.compile(text, types));
        return error.issues().get(0);
    }

    private static String evalError(String text) {
        return assertThrows(EvaluationError.class, () -> eval(text)).getMessage();
    }

    @Test
    void aFieldPathReadStraightFromTheValueGivesWhatTheInterpreterGives() throws Exception {
        Map<String, Object> nested = new LinkedHashMap<>(order());
        nested.put("address", new LinkedHashMap<>(Map.of("city", "Oslo", "zip", 150L, "geo", Map.of("lat", 59.9))));
        nested.put("vip", true);
        List<Object> values = List.of(nested, order(), List.of("a"), "text", 5L, NullValue.NULL_VALUE);
        List<String> paths = List.of(
                "value.user",
                "value.amount",
                "value.price",
                "value.vip",
                "value.note",
                "value.tags",
                "value.missing",
                "value.address",
                "value.address.city",
                "value.address.zip",
                "value.address.geo.lat",
                "value.address.nowhere.lat",
                "value.user.first");
        int shortcuts = 0;
        for (String path : paths) {
            Expression expression = Expression.compile(path, ExpressionTypes.DYN);
            assertTrue(expression.readsValuePath(), path);
            for (Object value : values) {
                Rec rec = new Rec(value, "k");
                Object expected;
                try {
                    expected = expression.interpret(rec);
                } catch (EvaluationError e) {
                    String message = assertThrows(EvaluationError.class, () -> expression.evaluate(rec), path)
                            .getMessage();
                    assertEquals(e.getMessage(), message, path + " of " + value);
                    continue;
                }
                assertEquals(expected, expression.evaluate(rec), path + " of " + value);
                Object read = expression.readValuePath(value);
                if (read != null) {
                    assertEquals(expected, read, path + " of " + value);
                    shortcuts++;
                }
            }
        }
        assertEquals(10, shortcuts, "plain results along present fields, read without the interpreter");
        for (String other : List.of("has(value.user)", "value.user + ''", "key", "value['user']", "value")) {
            assertFalse(Expression.compile(other, ExpressionTypes.DYN).readsValuePath(), other);
        }
        assertFalse(
                Expression.compile("value", new ExpressionTypes(ExpressionTypes.Kind.STRING, ExpressionTypes.Kind.DYN))
                        .readsValuePath());
    }

    @Test
    void integerFieldArithmeticGivesALong() throws Exception {
        assertEquals(2L, eval("value.amount % 7"));
    }

    @Test
    void hasTellsWhetherAFieldIsThere() throws Exception {
        assertEquals(true, eval("has(value.amount)"));
        assertEquals(false, eval("has(value.x)"));
    }

    @Test
    void conversionsAndSize() throws Exception {
        assertEquals("23", eval("string(value.amount)"));
        assertEquals(2L, eval("int(value.price)"));
        assertEquals(23.0, eval("double(value.amount)"));
        assertEquals(2L, eval("size(value.tags)"));
        assertEquals(3L, eval("size(value.user)"));
        assertEquals(true, eval("value.note == null"));
        assertEquals(true, eval("value.tags.all(t, size(t) == 1)"));
        assertEquals(List.of("A", "B"), eval("value.tags.map(t, t == 'a' ? 'A' : 'B')"));
    }

    @Test
    void recordVariables() throws Exception {
        assertEquals("web", eval("headers['source']"));
        assertEquals(true, eval("'source' in headers"));
        assertEquals(
                List.of("orders", 3L, 42L, 1_700_000_000_000L, "ann"),
                eval("[topic, partition, offset, timestamp, key]"));
    }

    @Test
    void variablesAreOnlyReadWhenUsed() throws Exception {
        Rec rec = new Rec(order(), "ann");
        Expression.compile("value.amount > 1", ExpressionTypes.DYN).evaluate(rec);
        assertEquals(0, rec.headerReads.get());
        Expression.compile("headers['source'] == 'web'", ExpressionTypes.DYN).evaluate(rec);
        assertEquals(1, rec.headerReads.get());
    }

    @Test
    void syntaxErrorsHaveTheirLineAndColumn() {
        ExpressionError.Issue issue = compileError("value.amount >", ExpressionTypes.DYN);
        assertEquals(1, issue.line());
        assertEquals(15, issue.column());
        assertTrue(issue.message().startsWith("mismatched input '<EOF>' expecting"), issue.message());

        ExpressionError.Issue second = compileError("value.amount > 1 &&\n  value.(", ExpressionTypes.DYN);
        assertEquals(2, second.line());
    }

    @Test
    void undeclaredVariablesAreReported() {
        ExpressionError.Issue issue = compileError("amount > 1", ExpressionTypes.DYN);
        assertEquals(new ExpressionError.Issue(1, 1, "undeclared reference to 'amount'"), issue);
    }

    @Test
    void typeErrorsAreReported() {
        ExpressionError.Issue issue = compileError("topic == 5", ExpressionTypes.DYN);
        assertEquals(1, issue.line());
        assertEquals(7, issue.column());
        assertEquals(
                ExpressionError.Kind.CHECK,
                assertThrows(ExpressionError.class, () -> Expression.compile("topic == 5", ExpressionTypes.DYN))
                        .kind());
        assertEquals("found no matching overload for '_==_' applied to '(string, int)'", issue.message());
    }

    @Test
    void typedValuesAreCheckedAtCompile() {
        ExpressionTypes text = new ExpressionTypes(ExpressionTypes.Kind.STRING, ExpressionTypes.Kind.STRING);
        assertTrue(compileError("value.amount", text).message().contains("does not support field selection"));
    }

    @Test
    void evaluationErrorsHaveCleanMessages() {
        assertEquals("key 'missing' is not present in map.", evalError("value.missing"));
        assertEquals("/ by zero", evalError("value.amount / 0"));
        assertEquals("long overflow", evalError("9223372036854775807 + value.amount"));
        assertTrue(evalError("value.amount + 'x'").startsWith("No matching overload for function '_+_'"));
    }

    @Test
    void resultsAreNormalisedIntoTheValueModel() throws Exception {
        Object result = eval("{'user': value.user, 'n': 1, 'tags': value.tags + ['c']}");
        Map<?, ?> map = assertInstanceOf(LinkedHashMap.class, result);
        assertEquals(List.of("user", "n", "tags"), List.copyOf(map.keySet()));
        assertInstanceOf(Long.class, map.get("n"));
        assertInstanceOf(ArrayList.class, map.get("tags"));
        assertEquals(5L, eval("5u + uint(0)"));
        assertEquals(NullValue.NULL_VALUE, eval("null"));
        assertEquals("a map in the result has the key 1 of type int, expected string keys", evalError("{1: 2}"));
    }

    @Test
    void bytesRoundTrip() throws Exception {
        ExpressionTypes bytes = new ExpressionTypes(ExpressionTypes.Kind.BYTES, ExpressionTypes.Kind.STRING);
        byte[] raw = "hé".getBytes(StandardCharsets.UTF_8);
        Object result = Expression.compile("value + b'!'", bytes).evaluate(new Rec(raw, "k"));
        assertArrayEquals("hé!".getBytes(StandardCharsets.UTF_8), (byte[]) result);
        assertEquals(3L, Expression.compile("size(value)", bytes).evaluate(new Rec(raw, "k")));
    }

    @Test
    void intsAndDoublesCompareAsNumbersAsJsonFieldsMixThem() throws Exception {
        // The same JSON field arrives as 10 or 10.5: a threshold must hold for both.
        assertEquals(true, eval("value.price > 2"));
        assertEquals(true, eval("value.amount < 23.5"));
        assertEquals(true, eval("value.amount >= 23.0 && value.amount <= 23.0"));
        assertEquals(false, eval("value.price > 9.99 || value.amount > 99.5"));
        assertEquals(true, eval("1 < 1.5 && 2.5 > 2 && 1u < 1.5"));
        assertEquals(true, eval("value.amount == 23.0"));
        // Arithmetic still needs one type, as CEL defines it.
        assertTrue(evalError("value.amount * 1.5").startsWith("No matching overload for function '_*_'"));
        assertEquals(34.5, eval("double(value.amount) * 1.5"));
    }

    @Test
    void everyComparisonOfNaNWithAnIntIsFalseAsWithADouble() throws Exception {
        // 0.0 / 0.0 is what a map step makes of an empty average; a filter on it must not pass.
        for (String op : List.of("<", "<=", ">", ">=")) {
            for (String other : List.of("10", "-10", "10u", "10.0")) {
                assertEquals(false, eval("0.0 / 0.0 " + op + " " + other), "NaN " + op + " " + other);
                assertEquals(false, eval(other + " " + op + " 0.0 / 0.0"), other + " " + op + " NaN");
            }
        }
        assertEquals(true, eval("math.isNaN(0.0 / 0.0)"));
        // A NaN field an earlier step set, read as a value of dynamic type.
        Rec nan = new Rec(Map.of("s", Double.NaN), "k");
        for (String text : List.of("value.s > 10", "value.s >= 0", "value.s < 10", "10 < value.s", "value.s == 10")) {
            assertEquals(false, Expression.compile(text, ExpressionTypes.DYN).evaluate(nan), text);
        }
        assertEquals(
                true, Expression.compile("value.s != 10", ExpressionTypes.DYN).evaluate(nan));
    }

    @Test
    void aDoubleAndAnIntCompareExactly() throws Exception {
        // -0.0 against an int or uint 0: exactly one of <, ==, > holds, as for any other pair.
        Rec zero = new Rec(Map.of("z", -0.0, "i", 0L, "u", UnsignedLong.ZERO), "k");
        for (String other : List.of("value.i", "value.u")) {
            int holding = 0;
            for (String op : List.of("<", "==", ">")) {
                if (Boolean.TRUE.equals(Expression.compile("value.z " + op + " " + other, ExpressionTypes.DYN)
                        .evaluate(zero))) {
                    holding++;
                }
            }
            assertEquals(1, holding, "-0.0 against " + other);
        }
        // 2^53 + 1 has no double: the nearest, 2^53, is below it.
        assertEquals(true, eval("9007199254740992.0 < 9007199254740993"));
        assertEquals(true, eval("9007199254740993 > 9007199254740992.0"));
        assertEquals(true, eval("9223372036854775807 < 9223372036854775808.0"), "Long.MAX is below 2^63");
        assertEquals(true, eval("-9223372036854775808 >= -9223372036854775808.0"));
        assertEquals(true, eval("18446744073709551615u < 18446744073709551616.0"));
        assertEquals(true, eval("1.5 > 1 && 1.5 < 2 && 2.0 <= 2 && 2.0 >= 2u && 2.5 > 2u"));
    }

    @Test
    void celsCommonExtensionsAreThere() throws Exception {
        assertEquals("ANN", eval("value.user.upperAscii()"));
        assertEquals(List.of("a", "b"), eval("'a,b'.split(',')"));
        assertEquals("n", eval("value.user.substring(1, 2)"));
        assertEquals("x", eval("'  x '.trim()"));
        assertEquals(2.5, eval("math.greatest(value.amount / 10, value.price)"));
        assertEquals(true, eval("sets.contains(value.tags, ['b'])"));
        assertEquals(529L, eval("cel.bind(a, value.amount, a * a)"));
        assertEquals("YW5u", eval("base64.encode(bytes(value.user))"));
        assertEquals(
                "a-b|1|true|7|ann",
                eval("['a', 'B'.lowerAscii()].join('-') + '|' + string(value.user.indexOf('n'))"
                        + " + '|' + string(sets.intersects([1], [1, 2])) + '|' + string(math.abs(-7)) + '|'"
                        + " + string(base64.decode('YW5u')).replace('x', 'y')"));
        assertEquals(2L, eval("math.least(value.amount, 2)"));
    }

    @Test
    void aTextKeyOrValueMayBeNullAsATombstoneOrAMissingKeyIs() throws Exception {
        ExpressionTypes text = new ExpressionTypes(ExpressionTypes.Kind.STRING, ExpressionTypes.Kind.STRING);
        Expression keyed = Expression.compileCondition("key != null && key.startsWith('k')", "a filter", text);
        assertTrue(keyed.test(new Rec("v", "k1")));
        assertFalse(keyed.test(new Rec("v", NullValue.NULL_VALUE)));
        Expression tombstone = Expression.compileCondition("value == null", "a filter", text);
        assertTrue(tombstone.test(new Rec(NullValue.NULL_VALUE, "k")));
        assertFalse(tombstone.test(new Rec("v", "k")));
        assertEquals(2L, Expression.compile("size(value)", text).evaluate(new Rec("hé", "k")));
        assertEquals("string", Expression.compile("value", text).resultTypeName());
        assertEquals("k!", Expression.compile("key + '!'", text).evaluate(new Rec("v", "k")));
        ExpressionTypes bytes = new ExpressionTypes(ExpressionTypes.Kind.BYTES, ExpressionTypes.Kind.BYTES);
        assertTrue(Expression.compileCondition("value != null && key == null", "a filter", bytes)
                .test(new Rec(new byte[] {1}, NullValue.NULL_VALUE)));
        // Still typed: a text is no number and has no fields.
        assertTrue(compileError("value.amount", text).message().contains("does not support field selection"));
        assertEquals(
                "found no matching overload for '_>_' applied to '(string, int)'",
                compileError("key > 5", text).message());
    }

    @Test
    void conditionsMustGiveABool() throws Exception {
        ExpressionError error = assertThrows(
                ExpressionError.class,
                () -> Expression.compileCondition("value.amount + 1 > 0 ? 1 : 2", "a filter", ExpressionTypes.DYN));
        assertEquals(
                List.of(new ExpressionError.Issue(1, 1, "a filter must give a bool, this gives int")), error.issues());

        Expression dyn = Expression.compileCondition("value.amount", "a filter", ExpressionTypes.DYN);
        assertEquals(
                "expected a bool from value.amount, got int",
                assertThrows(EvaluationError.class, () -> dyn.test(new Rec(order(), "k")))
                        .getMessage());
        assertTrue(Expression.compileCondition("value.amount > 20", "a filter", ExpressionTypes.DYN)
                .test(new Rec(order(), "k")));
        assertFalse(Expression.compile("topic == 'x'", ExpressionTypes.DYN).mayBeBool() == false);
    }
}
