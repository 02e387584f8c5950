package io.weir.state;

import java.nio.charset.StandardCharsets;

/** Turns state values to bytes and back; state holds only bytes so a snapshot can never alias. */
public interface Serde<T> {
    byte[] serialize(T value);

    T deserialize(byte[] bytes);

    /**
     * Whether {@link #deserialize} keeps nothing of the array it is given (it copies out what it
     * needs): then a store may hand it the array it holds instead of a copy ({@link StateStore#read}).
     */
    default boolean copiesOut() {
        return false;
    }

    /** The bytes as they are; its deserialize keeps the array, so a store hands it a copy. */
    Serde<byte[]> BYTES = new Serde<>() {
        @Override
        public byte[] serialize(byte[] value) {
            return value;
        }

        @Override
        public byte[] deserialize(byte[] bytes) {
            return bytes;
        }
    };

    Serde<String> STRING = new Serde<>() {
        @Override
        public byte[] serialize(String value) {
            return value.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String deserialize(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }

        @Override
        public boolean copiesOut() {
            return true;
        }
    };

    Serde<Long> LONG = new Serde<>() {
        @Override
        public byte[] serialize(Long value) {
            long v = value;
            byte[] b = new byte[8];
            for (int i = 7; i >= 0; i--) {
                b[i] = (byte) v;
                v >>>= 8;
            }
            return b;
        }

        @Override
        public Long deserialize(byte[] bytes) {
            long v = 0;
            for (byte b : bytes) {
                v = (v << 8) | (b & 0xFF);
            }
            return v;
        }

        @Override
        public boolean copiesOut() {
            return true;
        }
    };
}
