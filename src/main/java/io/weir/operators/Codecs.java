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
     * them), not replaced with U+FFFD. Text of ASCII only, the usual key, takes the JDK's fast path.
     */
    static String utf8(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0) {
                CharsetDecoder decoder = StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT);
                ByteBuffer in = ByteBuffer.wrap(bytes);
                CharBuffer out = CharBuffer.allocate(bytes.length);
                CoderResult result = decoder.decode(in, out, true);
                if (!result.isError()) {
                    result = decoder.flush(out);
                }
                if (result.isError()) {
                    throw new BadRecordException(String.format(
                            "value is not valid UTF-8 text: malformed byte 0x%02x at offset %d",
                            bytes[in.position()] & 0xff, in.position()));
                }
                return out.flip().toString();
            }
        }
        return new String(bytes, StandardCharsets.ISO_8859_1); // ASCII: the same text, no decoding
    }
}
