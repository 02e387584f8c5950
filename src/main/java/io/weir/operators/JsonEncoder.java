package io.weir.operators;

import dev.cel.common.values.CelByteString;
import dev.cel.common.values.NullValue;
import io.weir.dataflow.BadRecordException;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Writes a value of {@link Json}'s model as JSON text in UTF-8, byte for byte what Jackson's
 * generator writes in its default settings (the tests hold the two side by side): control
 * characters escaped (backspace, tab, newline, form feed and return by a letter, the others as a
 * four-digit hex escape), quote and backslash escaped, surrogates (paired or not) as hex escapes,
 * other characters as UTF-8,
 * doubles as {@link Double#toString}. One per thread, over a buffer it reuses: a Jackson generator
 * per record, or one kept per thread, spent as long on its own bookkeeping as on the few fields of
 * an aggregate's row.
 */
final class JsonEncoder {
    /** Jackson's default (StreamWriteConstraints): deeper values are refused. */
    static final int MAX_DEPTH = 1000;

    private static final byte[] HEX = "0123456789ABCDEF".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** What an ASCII character is written as: 0 itself, 1 a hex escape, else the letter after a backslash. */
    private static final byte[] ESCAPES = new byte[128];

    static {
        for (int c = 0; c < 0x20; c++) {
            ESCAPES[c] = 1;
        }
        ESCAPES['\b'] = 'b';
        ESCAPES['\t'] = 't';
        ESCAPES['\n'] = 'n';
        ESCAPES['\f'] = 'f';
        ESCAPES['\r'] = 'r';
        ESCAPES['"'] = '"';
        ESCAPES['\\'] = '\\';
    }

    /** Slots of the table of encoded names; a power of two. */
    private static final int NAMES = 64;

    private final String[] nameKeys = new String[NAMES];
    private final byte[][] nameBytes = new byte[NAMES][];
    private byte[] buf = new byte[256];
    private int size;
    private int depth;
    private boolean busy;

    /** The JSON text of {@code value}, in a new array. */
    byte[] encode(Object value) {
        if (busy) {
            return new JsonEncoder().encode(value); // re-entered (a map key's toString?): not over this buffer
        }
        busy = true;
        try {
            size = 0;
            depth = 0;
            write(value);
            return Arrays.copyOf(buf, size);
        } finally {
            busy = false;
        }
    }

    private void write(Object v) {
        if (v == null || v instanceof NullValue) {
            ascii("null");
        } else if (v instanceof String s) {
            string(s);
        } else if (v instanceof Long l) {
            number(l);
        } else if (v instanceof Integer i) {
            number(i);
        } else if (v instanceof Double d) {
            finite(d);
            ascii(Double.toString(d));
        } else if (v instanceof Float f) {
            finite(f);
            ascii(Float.toString(f));
        } else if (v instanceof Boolean b) {
            ascii(b ? "true" : "false");
        } else if (v instanceof Fields f) {
            enter();
            put((byte) '{');
            for (int i = 0; i < f.size(); i++) {
                if (i > 0) {
                    put((byte) ',');
                }
                name(f.name(i));
                write(f.value(i));
            }
            put((byte) '}');
            depth--;
        } else if (v instanceof Map<?, ?> map) {
            enter();
            put((byte) '{');
            boolean first = true;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (!first) {
                    put((byte) ',');
                }
                first = false;
                string(String.valueOf(e.getKey()));
                put((byte) ':');
                write(e.getValue());
            }
            put((byte) '}');
            depth--;
        } else if (v instanceof List<?> list) {
            enter();
            put((byte) '[');
            boolean first = true;
            for (Object item : list) {
                if (!first) {
                    put((byte) ',');
                }
                first = false;
                write(item);
            }
            put((byte) ']');
            depth--;
        } else if (v instanceof byte[] b) {
            string(Base64.getEncoder().encodeToString(b));
        } else if (v instanceof CelByteString b) {
            string(Base64.getEncoder().encodeToString(b.toByteArray()));
        } else if (v instanceof BigInteger b) {
            ascii(b.toString());
        } else if (v instanceof Number n) {
            string(n.toString(), false); // as Jackson's writeNumber(String): the text as it is
        } else {
            throw new BadRecordException("cannot write a " + v.getClass().getSimpleName() + " as JSON");
        }
    }

    private void enter() {
        if (++depth > MAX_DEPTH) {
            throw new BadRecordException("cannot write a value nested deeper than " + MAX_DEPTH + " levels as JSON");
        }
    }

    private static void finite(double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            throw new BadRecordException("cannot write " + d + " as JSON, which has no NaN or infinity");
        }
    }

    private void number(long v) {
        if (v == Long.MIN_VALUE) {
            ascii("-9223372036854775808");
            return;
        }
        ensure(20);
        if (v < 0) {
            buf[size++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long rest = v / 10; rest > 0; rest /= 10) {
            digits++;
        }
        for (int i = size + digits - 1; i >= size; i--) {
            buf[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        size += digits;
    }

    /**
     * A field's name with its quotes and the colon. The names of a decoded object are the decoder's
     * shared instances and an operator's output names are constants, so the few distinct names
     * written are kept encoded, by identity, in a small table (a name looks at four slots from its
     * hash's; a new one takes the first free of them, else the first).
     */
    private void name(String name) {
        int h = name.hashCode();
        int home = (h ^ (h >>> 7) ^ (h >>> 16)) & (NAMES - 1);
        int free = -1;
        for (int probe = 0; probe < 4; probe++) {
            int slot = (home + probe) & (NAMES - 1);
            String key = nameKeys[slot];
            if (key == name) {
                byte[] encoded = nameBytes[slot];
                ensure(encoded.length);
                System.arraycopy(encoded, 0, buf, size, encoded.length);
                size += encoded.length;
                return;
            }
            if (key == null && free < 0) {
                free = slot;
            }
        }
        int start = size;
        string(name);
        put((byte) ':');
        int slot = free < 0 ? home : free;
        nameKeys[slot] = name;
        nameBytes[slot] = Arrays.copyOfRange(buf, start, size);
    }

    private void string(String s) {
        string(s, true);
    }

    /** {@code s} in quotes (escaped), or without them as raw text. */
    private void string(String s, boolean quoted) {
        int n = s.length();
        ensure(n + 2);
        if (quoted) {
            buf[size++] = '"';
        }
        // Most text is ASCII without anything to escape: written straight into the room just made,
        // up to the first character that needs more (an escape, or more than one byte).
        int i = 0;
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x80 || (quoted && ESCAPES[c] != 0)) {
                break;
            }
            buf[size + i] = (byte) c;
        }
        size += i;
        for (; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                byte escape = ESCAPES[c];
                if (escape == 0 || !quoted) {
                    put((byte) c);
                } else if (escape == 1) {
                    unicodeEscape(c);
                } else {
                    put((byte) '\\');
                    put(escape);
                }
            } else if (c < 0x800) {
                ensure(2);
                buf[size++] = (byte) (0xC0 | (c >> 6));
                buf[size++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isSurrogate(c)) {
                unicodeEscape(c); // as Jackson writes them, paired or not
            } else {
                ensure(3);
                buf[size++] = (byte) (0xE0 | (c >> 12));
                buf[size++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                buf[size++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        if (quoted) {
            put((byte) '"');
        }
    }

    private void unicodeEscape(char c) {
        ensure(6);
        buf[size++] = '\\';
        buf[size++] = 'u';
        buf[size++] = HEX[(c >> 12) & 0xF];
        buf[size++] = HEX[(c >> 8) & 0xF];
        buf[size++] = HEX[(c >> 4) & 0xF];
        buf[size++] = HEX[c & 0xF];
    }

    private void ascii(String s) {
        int n = s.length();
        ensure(n);
        for (int i = 0; i < n; i++) {
            buf[size++] = (byte) s.charAt(i);
        }
    }

    private void put(byte b) {
        ensure(1);
        buf[size++] = b;
    }

    private void ensure(int more) {
        if (size + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
        }
    }
}
