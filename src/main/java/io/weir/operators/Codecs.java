package io.weir.operators;

import dev.cel.common.values.CelByteString;
import dev.cel.common.values.NullValue;
import io.weir.dataflow.Codec;
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
            return bytes == null ? NullValue.NULL_VALUE : new String(bytes, StandardCharsets.UTF_8);
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
}
