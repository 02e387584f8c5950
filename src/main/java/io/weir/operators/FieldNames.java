package io.weir.operators;

import java.nio.charset.StandardCharsets;

/**
 * Field names of plain ASCII that recur (every record of a topic has the same few) come from a
 * table shared by all threads: a String is immutable, so a racy read sees a whole one or none.
 */
final class FieldNames {
    private static final int SIZE = 1024;
    private static final int LONGEST = 32;
    private static final String[] TABLE = new String[SIZE];

    private FieldNames() {}

    static String get(byte[] in, int start, int length, int hash) {
        int slot = (hash ^ (hash >>> 16)) & (SIZE - 1);
        String known = TABLE[slot];
        if (known != null && known.length() == length && same(known, in, start)) {
            return known;
        }
        String name = new String(in, start, length, StandardCharsets.ISO_8859_1);
        if (length <= LONGEST) {
            TABLE[slot] = name;
        }
        return name;
    }

    private static boolean same(String known, byte[] in, int start) {
        for (int i = 0; i < known.length(); i++) {
            if (known.charAt(i) != in[start + i]) {
                return false;
            }
        }
        return true;
    }
}
