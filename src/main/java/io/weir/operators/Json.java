package io.weir.operators;

import dev.cel.common.values.NullValue;
import io.weir.dataflow.BadRecordException;
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

    private static final ThreadLocal<JsonEncoder> ENCODERS = ThreadLocal.withInitial(JsonEncoder::new);

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
