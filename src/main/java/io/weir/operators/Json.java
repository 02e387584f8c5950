package io.weir.operators;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import dev.cel.common.values.CelByteString;
import dev.cel.common.values.NullValue;
import io.weir.dataflow.BadRecordException;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON text to and from the value model that expressions and operators work on: an object is a
 * {@code Map<String,Object>} (insertion order kept), an array a {@code List<Object>}, an integer a
 * {@code Long}, a number with a fraction or exponent a {@code Double}, then {@code String},
 * {@code Boolean}, and JSON null is {@link NullValue#NULL_VALUE} (CEL's null; a Java null never
 * appears inside a value).
 *
 * <p>Decoding is strict: one JSON document per record (trailing text is an error), no repeated
 * field names, integers within 64 bits. Such a record goes to the dead-letter topic rather than
 * being read one way here and another way by the next consumer.
 */
public final class Json {
    /**
     * Repeated field names are refused in {@link #read}, by the map itself: the parser's own
     * detection (StreamReadFeature.STRICT_DUPLICATE_DETECTION) kept a HashSet of names per object.
     */
    private static final JsonFactory FACTORY = JsonFactory.builder().build();

    private Json() {}

    /** Decodes one JSON document; throws {@link BadRecordException} saying what is wrong. */
    public static Object decode(byte[] bytes) {
        if (bytes == null) {
            throw new BadRecordException("value is null (a tombstone), expected a JSON document");
        }
        try (JsonParser p = FACTORY.createParser(bytes)) {
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new BadRecordException("value is empty, expected a JSON document");
            }
            Object value = read(p, first);
            JsonToken trailing;
            try {
                trailing = p.nextToken();
            } catch (IOException e) {
                trailing = JsonToken.NOT_AVAILABLE;
            }
            if (trailing != null) {
                throw new BadRecordException("value is not one JSON document: more text follows it at offset "
                        + p.currentLocation().getByteOffset());
            }
            return value;
        } catch (InputCoercionException e) {
            throw new BadRecordException("value is not valid JSON: " + firstLine(e.getOriginalMessage()), e);
        } catch (IOException e) {
            throw new BadRecordException("value is not valid JSON: " + firstLine(e.getMessage()), e);
        }
    }

    private static Object read(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case START_OBJECT: {
                // Up to SMALL_OBJECT fields in two arrays (Fields), beyond that a LinkedHashMap.
                String[] names = new String[SMALL_OBJECT];
                Object[] values = new Object[SMALL_OBJECT];
                int n = 0;
                for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
                    // Checked on the name's token, before its value is read: the offset is the name's.
                    for (int i = 0; i < n; i++) {
                        if (names[i].equals(name)) {
                            throw repeated(p, name);
                        }
                    }
                    if (n == SMALL_OBJECT) {
                        return readLarge(p, names, values, name);
                    }
                    names[n] = name;
                    values[n++] = read(p, p.nextToken());
                }
                return new Fields(names, values, n);
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
                    throw new BadRecordException("value has an integer beyond 64 bits: " + abbreviate(p.getText())
                            + " at offset " + p.currentTokenLocation().getByteOffset());
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
                throw new BadRecordException("value is not valid JSON: unexpected " + t);
        }
    }

    /** Objects of up to this many fields decode into a {@link Fields}. */
    static final int SMALL_OBJECT = 8;

    /**
     * The rest of an object that outgrew {@link #SMALL_OBJECT}: its fields so far, then the field
     * {@code name} (whose token is current and which repeats none of them) and those after it.
     */
    private static Map<String, Object> readLarge(JsonParser p, String[] names, Object[] values, String name)
            throws IOException {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < names.length; i++) {
            map.put(names[i], values[i]);
        }
        for (; name != null; name = p.nextFieldName()) {
            if (map.containsKey(name)) {
                throw repeated(p, name);
            }
            map.put(name, read(p, p.nextToken()));
        }
        return map;
    }

    private static BadRecordException repeated(JsonParser p, String name) {
        return new BadRecordException("value is not valid JSON: Duplicate field '" + abbreviate(name) + "' at offset "
                + p.currentTokenLocation().getByteOffset());
    }

    /** Encodes a value of the model (and plain Java values: null, Integer, byte[] as Base64). */
    public static byte[] encode(Object value) {
        return ENCODERS.get().encode(value);
    }

    private static final ThreadLocal<Encoder> ENCODERS = ThreadLocal.withInitial(Encoder::new);

    /**
     * One thread's generator, kept open over a reusable buffer: each value is written as a root
     * value without a separator and its bytes copied out. Making a generator per value (its context,
     * buffers and output array) cost as much as writing a small document.
     */
    private static final class Encoder {
        private final Buffer out = new Buffer();
        private JsonGenerator generator;
        private boolean busy;

        byte[] encode(Object value) {
            if (busy) {
                return encodeOnce(value); // re-entered (a value's toString?): not on the shared generator
            }
            busy = true;
            try {
                if (generator == null) {
                    generator = FACTORY.createGenerator(out);
                    generator.setRootValueSeparator(null);
                }
                out.reset();
                write(generator, value);
                generator.flush();
                return out.toByteArray();
            } catch (IOException e) {
                generator = null;
                throw new IllegalStateException("writing JSON to memory failed", e);
            } catch (RuntimeException e) {
                generator = null; // stopped inside a document: start the next one on a fresh generator
                throw e;
            } finally {
                busy = false;
            }
        }

        private static byte[] encodeOnce(Object value) {
            Buffer out = new Buffer();
            try (JsonGenerator g = FACTORY.createGenerator(out)) {
                write(g, value);
            } catch (IOException e) {
                throw new IllegalStateException("writing JSON to memory failed", e);
            }
            return out.toByteArray();
        }
    }

    /** A growable byte sink that can be emptied and reused. */
    private static final class Buffer extends java.io.OutputStream {
        private byte[] bytes = new byte[256];
        private int size;

        void reset() {
            size = 0;
        }

        byte[] toByteArray() {
            return java.util.Arrays.copyOf(bytes, size);
        }

        @Override
        public void write(int b) {
            if (size == bytes.length) {
                bytes = java.util.Arrays.copyOf(bytes, bytes.length * 2);
            }
            bytes[size++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            if (size + len > bytes.length) {
                bytes = java.util.Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + len));
            }
            System.arraycopy(b, off, bytes, size, len);
            size += len;
        }
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
            finite(d);
            g.writeNumber(d);
        } else if (v instanceof Float f) {
            finite(f);
            g.writeNumber(f);
        } else if (v instanceof Boolean b) {
            g.writeBoolean(b);
        } else if (v instanceof Fields f) {
            g.writeStartObject();
            for (int i = 0; i < f.size(); i++) {
                g.writeFieldName(f.name(i));
                write(g, f.value(i));
            }
            g.writeEndObject();
        } else if (v instanceof Map<?, ?> map) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                g.writeFieldName(String.valueOf(e.getKey()));
                write(g, e.getValue());
            }
            g.writeEndObject();
        } else if (v instanceof List<?> list) {
            g.writeStartArray();
            for (Object item : list) {
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
            throw new BadRecordException("cannot write a " + v.getClass().getSimpleName() + " as JSON");
        }
    }

    private static void finite(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new BadRecordException("cannot write " + d + " as JSON, which has no NaN or infinity");
        }
    }

    /** A short description of a value for messages: its JSON type and the start of its text. */
    public static String describe(Object v) {
        String type;
        if (v == null || v instanceof NullValue) {
            return "null";
        } else if (v instanceof Map) {
            type = "object";
        } else if (v instanceof List) {
            type = "array";
        } else if (v instanceof String) {
            type = "string";
        } else if (v instanceof Boolean) {
            type = "boolean";
        } else if (v instanceof Number) {
            type = "number";
        } else if (v instanceof byte[] b) {
            return "bytes (" + b.length + ")";
        } else {
            type = v.getClass().getSimpleName();
        }
        String text;
        try {
            text = new String(encode(v), java.nio.charset.StandardCharsets.UTF_8);
        } catch (RuntimeException e) {
            text = String.valueOf(v);
        }
        return type + " " + abbreviate(text);
    }

    private static String abbreviate(String text) {
        return text.length() > 40 ? text.substring(0, 40) + "…" : text;
    }

    private static String firstLine(String s) {
        int nl = s == null ? -1 : s.indexOf('\n');
        return nl < 0 ? String.valueOf(s) : s.substring(0, nl);
    }
}
