package io.weir.expr;

import com.google.common.primitives.UnsignedLong;
import dev.cel.common.values.CelByteString;
import dev.cel.common.values.NullValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts between the package's value model and what CEL takes and gives: {@code byte[]} is bound
 * as {@link CelByteString} and comes back as {@code byte[]}; maps become {@link LinkedHashMap}s
 * with string keys, lists {@link ArrayList}s, integers {@code Long}s. Anything else CEL may give
 * (unknowns, types, timestamps, unsigned values beyond a long) is an evaluation error.
 */
final class Values {

    private Values() {}

    /** A variable's value as CEL takes it. */
    static Object bind(Object value) {
        return value instanceof byte[] bytes ? CelByteString.of(bytes) : value;
    }

    static Object normalise(Object value) throws EvaluationError {
        if (value instanceof String || value instanceof Long || value instanceof Double || value instanceof Boolean) {
            return value;
        }
        if (value instanceof NullValue) {
            return NullValue.NULL_VALUE;
        }
        if (value instanceof Integer i) {
            return i.longValue();
        }
        if (value instanceof Float f) {
            return f.doubleValue();
        }
        if (value instanceof UnsignedLong u) {
            if (u.compareTo(UnsignedLong.valueOf(Long.MAX_VALUE)) > 0) {
                throw new EvaluationError("the result " + u + "u does not fit a signed 64-bit integer");
            }
            return u.longValue();
        }
        if (value instanceof CelByteString bytes) {
            return bytes.toByteArray();
        }
        if (value instanceof byte[] bytes) {
            return bytes.clone();
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>();
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                if (!(entry.getKey() instanceof String key)) {
                    throw new EvaluationError("a map in the result has the key " + entry.getKey() + " of type "
                            + typeName(entry.getKey()) + ", expected string keys");
                }
                copy.put(key, normalise(entry.getValue()));
            }
            return copy;
        }
        if (value instanceof List<?> list) {
            List<Object> copy = new ArrayList<>(list.size());
            for (Object item : list) {
                copy.add(normalise(item));
            }
            return copy;
        }
        throw new EvaluationError("the result is " + typeName(value)
                + ", expected a map, list, string, int, double, bool, bytes or null");
    }

    /** The CEL name of a value's type, for messages. */
    static String typeName(Object value) {
        if (value == null) {
            return "nothing";
        }
        if (value instanceof String) {
            return "string";
        }
        if (value instanceof Long || value instanceof Integer) {
            return "int";
        }
        if (value instanceof UnsignedLong) {
            return "uint";
        }
        if (value instanceof Double || value instanceof Float) {
            return "double";
        }
        if (value instanceof Boolean) {
            return "bool";
        }
        if (value instanceof NullValue) {
            return "null";
        }
        if (value instanceof CelByteString || value instanceof byte[]) {
            return "bytes";
        }
        if (value instanceof Map) {
            return "map";
        }
        if (value instanceof List) {
            return "list";
        }
        return "a value of unsupported type " + value.getClass().getSimpleName();
    }

    /**
     * CEL's message without the {@code <input>:line:column:} prefix, the caret picture under the
     * source line, and the {@code evaluation error:} lead-in.
     */
    static String clean(String message) {
        if (message == null) {
            return "unknown error";
        }
        String first = message.lines().findFirst().orElse("").strip();
        first = first.replaceFirst("^ERROR:\\s*", "");
        first = first.replaceFirst("^<input>:\\d+:\\d+:\\s*", "");
        first = first.replaceFirst("^evaluation error(?: at <input>:\\d+)?:\\s*", "");
        first = first.replaceFirst("\\s*\\(in container ''\\)$", "");
        first = first.replaceFirst("\\s*\\(candidates: .*\\)$", "");
        return first.isEmpty() ? message.strip() : first;
    }
}
