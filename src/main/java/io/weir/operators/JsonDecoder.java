package io.weir.operators;

import dev.cel.common.values.NullValue;
import io.weir.dataflow.BadRecordException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one JSON document (RFC 8259, UTF-8) straight from a record's bytes into the value model of
 * {@link Json}. It accepts and refuses what Jackson's parser in its default settings does (the tests
 * hold the two side by side), with three differences: malformed UTF-8 (an overlong form, an encoded
 * surrogate, a missing continuation byte) is refused rather than read one way here and another way
 * elsewhere; text in UTF-16 or UTF-32 is not guessed from zero bytes; and a string or name has no
 * length limit of its own (Jackson's are 20,000,000 and 50,000 characters; a record's size bounds
 * it).
 *
 * <p>Made for the record path: a Jackson parser per record (its context, buffers from a
 * thread-local pool and a child symbol table) cost about as much as reading the few fields of an
 * order. Field names that recur are shared from a small table instead of being made per record.
 */
final class JsonDecoder {
    /** Jackson's defaults (StreamReadConstraints): deeper nesting or longer numbers are refused. */
    static final int MAX_DEPTH = 1000;

    static final int MAX_NUMBER_LENGTH = 1000;

    static {
        // Initialises every class a decode uses now, not possibly at the bottom of a deep first
        // document, where a stack overflow inside a class's initialiser would break it for good.
        decode("{\"a\":[1,-1.5e0,\"s\\u00e9\u00e9\",true,false,null,{}]}".getBytes(StandardCharsets.UTF_8));
    }

    private final byte[] in;
    private int pos;
    private int depth;

    private JsonDecoder(byte[] in) {
        this.in = in;
    }

    static Object decode(byte[] bytes) {
        JsonDecoder d = new JsonDecoder(bytes);
        if (bytes.length >= 3 && bytes[0] == (byte) 0xEF && bytes[1] == (byte) 0xBB && bytes[2] == (byte) 0xBF) {
            d.pos = 3; // a byte order mark, which Jackson skips too
        }
        d.skipSpace();
        if (d.pos == bytes.length) {
            throw new BadRecordException("value is empty, expected a JSON document");
        }
        Object value;
        try {
            value = d.value();
        } catch (StackOverflowError e) {
            // Two frames per level; a thread's stack holds MAX_DEPTH of them once the code is compiled,
            // but a cold or small stack may not: the record is refused, the thread goes on.
            throw invalid("nesting " + d.depth + " levels deep is more than this thread's stack holds");
        }
        d.skipSpace();
        if (d.pos < bytes.length) {
            throw new BadRecordException("value is not one JSON document: more text follows it at offset " + d.pos);
        }
        return value;
    }

    private Object value() {
        if (pos == in.length) {
            throw invalid("the text ends where a value was expected");
        }
        switch (in[pos]) {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                pos++;
                return string();
            case 't':
                literal("true");
                return Boolean.TRUE;
            case 'f':
                literal("false");
                return Boolean.FALSE;
            case 'n':
                literal("null");
                return NullValue.NULL_VALUE;
            case '-':
            case '0':
            case '1':
            case '2':
            case '3':
            case '4':
            case '5':
            case '6':
            case '7':
            case '8':
            case '9':
                return number();
            default:
                throw unexpected("a value");
        }
    }

    private Object object() {
        pos++;
        enter();
        String[] names = new String[Json.SMALL_OBJECT];
        Object[] values = new Object[Json.SMALL_OBJECT];
        int n = 0;
        skipSpace();
        if (pos < in.length && in[pos] == '}') {
            pos++;
            depth--;
            return new Fields(names, values, 0);
        }
        while (true) {
            skipSpace();
            int nameAt = pos;
            String name = name();
            for (int i = 0; i < n; i++) {
                if (names[i] == name || names[i].equals(name)) {
                    throw repeated(name, nameAt);
                }
            }
            if (n == Json.SMALL_OBJECT) {
                return large(names, values, name);
            }
            names[n] = name;
            colon();
            values[n++] = value();
            if (endOf('}')) {
                depth--;
                return new Fields(names, values, n);
            }
        }
    }

    /** The rest of an object that outgrew {@link Json#SMALL_OBJECT}, from the field {@code name} on. */
    private Map<String, Object> large(String[] names, Object[] values, String name) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < names.length; i++) {
            map.put(names[i], values[i]);
        }
        while (true) {
            colon();
            map.put(name, value());
            if (endOf('}')) {
                depth--;
                return map;
            }
            skipSpace();
            int nameAt = pos;
            name = name();
            if (map.containsKey(name)) {
                throw repeated(name, nameAt);
            }
        }
    }

    private void colon() {
        skipSpace();
        if (pos == in.length || in[pos] != ':') {
            throw unexpected("':' after a field name");
        }
        pos++;
        skipSpace();
    }

    private List<Object> array() {
        pos++;
        enter();
        List<Object> list = new ArrayList<>();
        skipSpace();
        if (pos < in.length && in[pos] == ']') {
            pos++;
            depth--;
            return list;
        }
        while (true) {
            skipSpace();
            list.add(value());
            if (endOf(']')) {
                depth--;
                return list;
            }
        }
    }

    /** After a member: true at the closing {@code close}, false after a comma, else an error. */
    private boolean endOf(char close) {
        skipSpace();
        if (pos < in.length) {
            byte b = in[pos];
            if (b == ',') {
                pos++;
                return false;
            }
            if (b == close) {
                pos++;
                return true;
            }
        }
        throw unexpected("',' or '" + close + "'");
    }

    private void enter() {
        if (++depth > MAX_DEPTH) {
            throw invalid("nesting deeper than " + MAX_DEPTH + " levels");
        }
    }

    private void literal(String word) {
        int start = pos;
        for (int i = 0; i < word.length(); i++, pos++) {
            if (pos == in.length || in[pos] != word.charAt(i)) {
                pos = start;
                throw unexpected("a value");
            }
        }
    }

    private Object number() {
        int start = pos;
        boolean negative = in[pos] == '-';
        if (negative) {
            pos++;
        }
        if (!digitAt(pos)) {
            throw invalid("a '-' not followed by a digit at offset " + start);
        }
        if (in[pos] == '0') {
            pos++;
            if (digitAt(pos)) {
                throw invalid("a number with a leading zero at offset " + start);
            }
        } else {
            while (digitAt(pos)) {
                pos++;
            }
        }
        boolean integer = true;
        if (pos < in.length && in[pos] == '.') {
            pos++;
            digits(start, "a decimal point");
            integer = false;
        }
        if (pos < in.length && (in[pos] == 'e' || in[pos] == 'E')) {
            pos++;
            if (pos < in.length && (in[pos] == '+' || in[pos] == '-')) {
                pos++;
            }
            digits(start, "an exponent");
            integer = false;
        }
        int length = pos - start;
        int digits = 0; // as Jackson counts a number's length: its digits only
        for (int i = start; i < pos; i++) {
            if (in[i] >= '0' && in[i] <= '9') {
                digits++;
            }
        }
        if (digits > MAX_NUMBER_LENGTH) {
            throw invalid("a number of " + digits + " digits (at most " + MAX_NUMBER_LENGTH + ") at offset " + start);
        }
        if (!integer) {
            return Double.parseDouble(new String(in, start, length, StandardCharsets.ISO_8859_1));
        }
        // Summed negatively, so that Long.MIN_VALUE fits.
        long value = 0;
        for (int i = negative ? start + 1 : start; i < pos; i++) {
            int digit = in[i] - '0';
            if (value < (Long.MIN_VALUE + digit) / 10) {
                throw new BadRecordException("value has an integer beyond 64 bits: "
                        + abbreviate(new String(in, start, length, StandardCharsets.ISO_8859_1)) + " at offset "
                        + start);
            }
            value = value * 10 - digit;
        }
        if (!negative) {
            if (value == Long.MIN_VALUE) {
                throw new BadRecordException("value has an integer beyond 64 bits: "
                        + new String(in, start, length, StandardCharsets.ISO_8859_1) + " at offset " + start);
            }
            value = -value;
        }
        return value;
    }

    private void digits(int start, String after) {
        if (!digitAt(pos)) {
            throw invalid(after + " not followed by a digit in the number at offset " + start);
        }
        while (digitAt(pos)) {
            pos++;
        }
    }

    private boolean digitAt(int i) {
        return i < in.length && in[i] >= '0' && in[i] <= '9';
    }

    /** A field name, its opening quote at {@code pos}. */
    private String name() {
        if (pos == in.length || in[pos] != '"') {
            throw unexpected("a field name in double quotes");
        }
        int start = ++pos;
        int hash = 0;
        while (pos < in.length) {
            byte b = in[pos];
            if (b == '"') {
                String name = Names.get(in, start, pos - start, hash);
                pos++;
                return name;
            }
            if (b == '\\' || b < 0x20) { // an escape, a control character or a byte of a multi-byte character
                pos = start;
                return string();
            }
            hash = 31 * hash + b;
            pos++;
        }
        throw invalid("a string not closed at the end of the text");
    }

    /** A string's text, {@code pos} just after its opening quote. */
    private String string() {
        int start = pos;
        while (pos < in.length) {
            byte b = in[pos];
            if (b == '"') {
                return new String(in, start, pos++ - start, StandardCharsets.ISO_8859_1);
            }
            if (b == '\\' || b < 0x20) {
                return escapedOrWide(start);
            }
            pos++;
        }
        throw invalid("a string not closed at the end of the text");
    }

    /** The rest of a string with escapes or characters beyond ASCII: {@code start} after the quote. */
    private String escapedOrWide(int start) {
        StringBuilder text = new StringBuilder(pos - start + 16);
        for (int i = start; i < pos; i++) {
            text.append((char) in[i]);
        }
        while (pos < in.length) {
            int b = in[pos];
            if (b == '"') {
                pos++;
                return text.toString();
            }
            if (b == '\\') {
                escape(text);
            } else if (b >= 0 && b < 0x20) {
                throw invalid(
                        "a control character (code " + b + ") in a string, which must be escaped, at offset " + pos);
            } else if (b >= 0) {
                text.append((char) b);
                pos++;
            } else {
                utf8(text);
            }
        }
        throw invalid("a string not closed at the end of the text");
    }

    private void escape(StringBuilder text) {
        int at = pos++;
        if (pos == in.length) {
            throw invalid("a string not closed at the end of the text");
        }
        byte b = in[pos++];
        switch (b) {
            case '"' -> text.append('"');
            case '\\' -> text.append('\\');
            case '/' -> text.append('/');
            case 'b' -> text.append('\b');
            case 'f' -> text.append('\f');
            case 'n' -> text.append('\n');
            case 'r' -> text.append('\r');
            case 't' -> text.append('\t');
            case 'u' -> {
                int c = 0;
                for (int i = 0; i < 4; i++, pos++) {
                    int h = pos < in.length ? Character.digit(in[pos], 16) : -1;
                    if (h < 0) {
                        throw invalid("a \\u escape without four hex digits at offset " + at);
                    }
                    c = c * 16 + h;
                }
                text.append((char) c);
            }
            default -> throw invalid("an unknown escape at offset " + at);
        }
    }

    /** One character of two to four bytes of UTF-8 (RFC 3629: no overlong form, no surrogate). */
    private void utf8(StringBuilder text) {
        int at = pos;
        int lead = in[pos++] & 0xFF;
        int count;
        int min;
        int max = 0xBF;
        int c;
        if (lead >= 0xC2 && lead <= 0xDF) {
            count = 1;
            c = lead & 0x1F;
            min = 0x80;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            count = 2;
            c = lead & 0x0F;
            min = lead == 0xE0 ? 0xA0 : 0x80;
            max = lead == 0xED ? 0x9F : 0xBF;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            count = 3;
            c = lead & 0x07;
            min = lead == 0xF0 ? 0x90 : 0x80;
            max = lead == 0xF4 ? 0x8F : 0xBF;
        } else {
            throw invalid("malformed UTF-8 (byte 0x" + Integer.toHexString(lead) + ") at offset " + at);
        }
        for (int i = 0; i < count; i++, pos++) {
            int next = pos < in.length ? in[pos] & 0xFF : -1;
            if (next < min || next > max) {
                throw invalid("malformed UTF-8 at offset " + at);
            }
            c = (c << 6) | (next & 0x3F);
            min = 0x80;
            max = 0xBF;
        }
        text.appendCodePoint(c);
    }

    private void skipSpace() {
        while (pos < in.length) {
            byte b = in[pos];
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return;
            }
            pos++;
        }
    }

    private BadRecordException unexpected(String expected) {
        if (pos == in.length) {
            return invalid("the text ends where " + expected + " was expected");
        }
        int b = in[pos] & 0xFF;
        String found = b >= 0x20 && b < 0x7F ? "'" + (char) b + "'" : "byte 0x" + Integer.toHexString(b);
        return invalid("expected " + expected + " but found " + found + " at offset " + pos);
    }

    private static BadRecordException invalid(String what) {
        return new BadRecordException("value is not valid JSON: " + what);
    }

    private static BadRecordException repeated(String name, int at) {
        return invalid("Duplicate field '" + abbreviate(name) + "' at offset " + at);
    }

    static String abbreviate(String text) {
        return text.length() > 40 ? text.substring(0, 40) + "…" : text;
    }

    /**
     * Field names of plain ASCII that recur (every record of a topic has the same few) come from a
     * table shared by all threads: a String is immutable, so a racy read sees a whole one or none.
     */
    private static final class Names {
        private static final int SIZE = 1024;
        private static final int LONGEST = 32;
        private static final String[] TABLE = new String[SIZE];

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
}
