package io.weir.operators;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.values.CelByteString;
import dev.cel.common.values.NullValue;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts between the value model of {@link Json} and the plain Java values custom operators see
 * ({@code io.weir.api.Record}): JSON null is Java null there and {@link NullValue#NULL_VALUE} here,
 * CEL bytes are {@code byte[]} there. Maps and lists are copied both ways, so neither side can change
 * the other's (byte arrays too).
 */
final class JavaValues {
    private JavaValues() {}

    /** A value of the model (or a decoded key) as plain Java. */
    static Object toJava(Object v) {
        if (v == null || v instanceof NullValue) {
            return null;
        }
        if (v instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                out.put(String.valueOf(e.getKey()), toJava(e.getValue()));
            }
            return out;
        }
        if (v instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            for (Object item : list) {
                out.add(toJava(item));
            }
            return out;
        }
        if (v instanceof CelByteString b) {
            return b.toByteArray();
        }
        if (v instanceof byte[] b) {
            return b.clone(); // a bytes key is also what state is keyed by: never hand out the array itself
        }
        return v;
    }

    /**
     * A value a custom operator emitted, in the model: Integer, Short and Byte become Long, Float
     * becomes Double, null becomes {@link NullValue#NULL_VALUE}, a JsonNode its model value.
     *
     * @throws IllegalArgumentException for a type the model cannot hold, naming it
     */
    static Object toModel(Object v) {
        if (v == null) {
            return NullValue.NULL_VALUE;
        }
        if (v instanceof String || v instanceof Boolean || v instanceof Long || v instanceof Double) {
            return v;
        }
        if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return ((Number) v).longValue();
        }
        if (v instanceof Float f) {
            return f.doubleValue();
        }
        if (v instanceof BigInteger b) {
            if (b.bitLength() < 64) {
                return b.longValue();
            }
            throw new IllegalArgumentException("cannot emit the integer " + b + ": it does not fit in 64 bits");
        }
        if (v instanceof BigDecimal d) {
            return d.doubleValue();
        }
        if (v instanceof byte[] b) {
            return b.clone();
        }
        if (v instanceof Map<?, ?> map) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (e.getKey() == null) {
                    throw new IllegalArgumentException("cannot emit a map with a null key: JSON field names are text");
                }
                out.put(String.valueOf(e.getKey()), toModel(e.getValue()));
            }
            return out;
        }
        if (v instanceof Collection<?> items) {
            List<Object> out = new ArrayList<>(items.size());
            for (Object item : items) {
                out.add(toModel(item));
            }
            return out;
        }
        if (v instanceof JsonNode node) {
            return fromTree(node);
        }
        throw new IllegalArgumentException("cannot emit a " + v.getClass().getName()
                + ": expected a Map, List, String, Number, Boolean, null, JsonNode or byte[]");
    }

    private static Object fromTree(JsonNode node) {
        switch (node.getNodeType()) {
            case OBJECT: {
                Map<String, Object> out = new LinkedHashMap<>();
                for (Map.Entry<String, JsonNode> e : node.properties()) {
                    out.put(e.getKey(), fromTree(e.getValue()));
                }
                return out;
            }
            case ARRAY: {
                List<Object> out = new ArrayList<>(node.size());
                for (JsonNode item : node) {
                    out.add(fromTree(item));
                }
                return out;
            }
            case STRING:
                return node.textValue();
            case BOOLEAN:
                return node.booleanValue();
            case NUMBER:
                return node.isIntegralNumber() ? toModel(node.bigIntegerValue()) : (Object) node.doubleValue();
            case BINARY:
                try {
                    return node.binaryValue();
                } catch (IOException e) {
                    throw new IllegalArgumentException("cannot read the binary node: " + e.getMessage(), e);
                }
            case NULL:
            case MISSING:
                return NullValue.NULL_VALUE;
            default:
                throw new IllegalArgumentException(
                        "cannot emit a JsonNode of type " + node.getNodeType() + ": expected JSON data");
        }
    }
}
