package io.weir.state;

import java.util.Arrays;

/** A byte array as a map key: content equality, unsigned lexicographic order. */
record Bytes(byte[] array) implements Comparable<Bytes> {
    @Override
    public boolean equals(Object o) {
        return o instanceof Bytes b && Arrays.equals(array, b.array);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(array);
    }

    @Override
    public int compareTo(Bytes o) {
        return Arrays.compareUnsigned(array, o.array);
    }

    /** The smallest key greater than every key starting with {@code prefix}, or null if none. */
    static byte[] prefixEnd(byte[] prefix) {
        byte[] end = prefix.clone();
        for (int i = end.length - 1; i >= 0; i--) {
            if (end[i] != (byte) 0xFF) {
                end[i]++;
                return Arrays.copyOf(end, i + 1);
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return Arrays.toString(array);
    }
}
