package io.weir.operators;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.dataflow.BadRecordException;
import io.weir.dataflow.Codec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** The value formats a source or sink can name: {@code json}, {@code string}, {@code bytes}. */
public final class Codecs {
    static final ObjectMapper JSON = new ObjectMapper();

    private Codecs() {}

    public static Codec named(String format) {
        switch (format) {
            case "json":
                return JSON_CODEC;
            case "string":
                return STRING_CODEC;
            case "bytes":
                return BYTES_CODEC;
            default:
                throw new IllegalArgumentException("unknown format '" + format + "', expected json, string or bytes");
        }
    }

    private static final Codec JSON_CODEC = new Codec() {
        @Override
        public Object decode(byte[] bytes) {
            if (bytes == null) {
                throw new BadRecordException("value is null (a tombstone), expected a JSON document");
            }
            try {
                JsonNode node = JSON.readTree(bytes);
                if (node == null || node.isMissingNode()) {
                    throw new BadRecordException("value is empty, expected a JSON document");
                }
                return node;
            } catch (IOException e) {
                throw new BadRecordException("value is not valid JSON: " + firstLine(e.getMessage()), e);
            }
        }

        @Override
        public byte[] encode(Object value) {
            if (value instanceof byte[] b) {
                return b;
            }
            try {
                return JSON.writeValueAsBytes(value);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException(
                        "cannot write " + value.getClass().getSimpleName() + " as JSON", e);
            }
        }
    };

    private static final Codec STRING_CODEC = new Codec() {
        @Override
        public Object decode(byte[] bytes) {
            return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
        }

        @Override
        public byte[] encode(Object value) {
            return value == null ? null : value.toString().getBytes(StandardCharsets.UTF_8);
        }
    };

    private static final Codec BYTES_CODEC = new Codec() {
        @Override
        public Object decode(byte[] bytes) {
            return bytes;
        }

        @Override
        public byte[] encode(Object value) {
            return (byte[]) value;
        }
    };

    private static String firstLine(String s) {
        int nl = s == null ? -1 : s.indexOf('\n');
        return nl < 0 ? String.valueOf(s) : s.substring(0, nl);
    }
}
