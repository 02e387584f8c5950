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
 * order. Field names that recur are shared from a small table ({@link FieldNames}) instead of being
 * made per record.
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
        return JsonNumbers.value(in, start, pos, negative, integer);
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
                String name = FieldNames.get(in, start, pos - start, hash);
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
                pos = JsonStringChars.escape(in, pos, text);
            } else if (b >= 0 && b < 0x20) {
                throw invalid(
                        "a control character (code " + b + ") in a string, which must be escaped, at offset " + pos);
            } else if (b >= 0) {
                text.append((char) b);
                pos++;
            } else {
                pos = JsonStringChars.utf8(in, pos, text);
            }
        }
        throw invalid("a string not closed at the end of the text");
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

    static BadRecordException invalid(String what) {
        return new BadRecordException("value is not valid JSON: " + what);
    }

    private static BadRecordException repeated(String name, int at) {
        return invalid("Duplicate field '" + abbreviate(name) + "' at offset " + at);
    }

    static String abbreviate(String text) {
        return text.length() > 40 ? text.substring(0, 40) + "…" : text;
    }
}
