package io.weir.operators;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.cel.common.values.CelByteString;
import dev.cel.common.values.NullValue;
import io.weir.dataflow.BadRecordException;
import java.io.IOException;
import java.math.BigInteger;
import java.util.Base64;
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
 * field names, integers within 64 bits, well-formed UTF-8 ({@link JsonDecoder}). Such a record goes
 * to the dead-letter topic rather than being read one way here and another way by the next consumer.
 */
public final class Json {
    private static final JsonFactory FACTORY = JsonFactory.builder().build();

    private Json() {}

    /** Decodes one JSON document; throws {@link BadRecordException} saying what is wrong. */
    public static Object decode(byte[] bytes) {
        if (bytes == null) {
            throw new BadRecordException("value is null (a tombstone), expected a JSON document");
        }
        return JsonDecoder.decode(bytes);
    }

    /** Objects of up to this many fields decode into a {@link Fields}. */
    static final int SMALL_OBJECT = 8;

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
        return JsonDecoder.abbreviate(text);
    }
}
