package io.weir.operators;

import dev.cel.common.values.CelByteString;
import dev.cel.common.values.NullValue;
import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Codec;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The key and value formats a source or sink can name: {@code json} (the value model of
 * {@link Json}), {@code string} (UTF-8 text; a value that is not text is written as JSON) and
 * {@code bytes} (as they are; text is written as UTF-8 and any other value as JSON). A null
 * value (a tombstone) is JSON's null for {@code string} and {@code bytes}, and a bad record for
 * {@code json}.
 */
public final class Codecs {
    private Codecs() {}

    public static Codec named(String format) {
        switch (format) {
            case "json":
                return JSON;
            case "string":
                return STRING;
            case "bytes":
                return BYTES;
            default:
                throw new IllegalArgumentException("unknown format '" + format + "', expected json, string or bytes");
        }
    }

    public static final Codec JSON = new Codec() {
        @Override
        public Object decode(byte[] bytes) {
            return Json.decode(bytes);
        }

        @Override
        public byte[] encode(Object value) {
            return Json.encode(value);
        }

        @Override
        public String name() {
            return "json";
        }
    };

    public static final Codec STRING = new Codec() {
        @Override
        public Object decode(byte[] bytes) {
            return bytes == null ? NullValue.NULL_VALUE : utf8(bytes);
        }

        /**
         * A key as text, bytes that are not UTF-8 replaced (U+FFFD), as before values were checked:
         * keys written by binary serializers (an int's four bytes) still group and join as they are.
         */
        @Override
        public Object decodeKey(byte[] bytes) {
            return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
        }

        @Override
        public byte[] encode(Object value) {
            if (value == null || value instanceof NullValue) {
                return null;
            }
            if (value instanceof String s) {
                return s.getBytes(StandardCharsets.UTF_8);
            }
            if (value instanceof byte[] b) {
                return b;
            }
            return Json.encode(value);
        }

        @Override
        public String name() {
            return "string";
        }
    };

    public static final Codec BYTES = new Codec() {
        @Override
        public Object decode(byte[] bytes) {
            return bytes == null ? NullValue.NULL_VALUE : bytes;
        }

        @Override
        public byte[] encode(Object value) {
            if (value == null || value instanceof NullValue) {
                return null;
            }
            if (value instanceof byte[] b) {
                return b;
            }
            if (value instanceof CelByteString b) {
                return b.toByteArray();
            }
            if (value instanceof String s) {
                return s.getBytes(StandardCharsets.UTF_8);
            }
            return Json.encode(value); // as a string sink writes a value that is not text
        }

        @Override
        public String name() {
            return "bytes";
        }
    };

    /**
     * {@code bytes} as UTF-8 text; bytes that are not UTF-8 are refused (as the JSON format refuses
     * them), not replaced with U+FFFD. The JDK's decoder does the work; only a text with U+FFFD in it
     * (a replacement, or the character itself) is decoded again, strictly, to tell which.
     */
    static String utf8(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (text.indexOf('\uFFFD') < 0) {
            return text;
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CoderResult result = decoder.decode(in, CharBuffer.allocate(bytes.length), true);
        if (result.isError()) {
            throw new BadRecordException(String.format(
                    "value is not valid UTF-8 text: malformed byte 0x%02x at offset %d",
                    bytes[in.position()] & 0xff, in.position()));
        }
        return text;
    }
}
